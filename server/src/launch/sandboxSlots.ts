/**
 * A config's `sandbox` section as sandbox slots (issue 22): what one sandbox counts as on a node,
 * asked of the backend `sandbox.backend` names through the registry (`sandbox/backends.ts`), with
 * the limits the sandboxes are opened with, and how many of them a node holds
 * (`sandbox/slots.ts`). `gp ray slots` prints both.
 */
import type { ExperimentConfig } from '../config/index.js';
import { slotShareFor, slotsFor, type NodeResources, type SlotCount, type SlotShare } from '../sandbox/index.js';
import { sandboxLimitsFromConfig } from './sandboxOptions.js';

/** What one sandbox of this config counts as on a node. */
export function slotShare(sandbox: ExperimentConfig['sandbox']): SlotShare {
  return slotShareFor(sandbox.backend, sandboxLimitsFromConfig(sandbox));
}

/** Sandboxes of this config that fit on a node at once; `override` wins. */
export function sandboxSlots(node: NodeResources, sandbox: ExperimentConfig['sandbox'], override?: number): SlotCount {
  return slotsFor(node, slotShare(sandbox), override);
}
