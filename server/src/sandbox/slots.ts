/**
 * How many sandboxes a machine can hold (issue 22's capacity arithmetic). A node advertises its
 * slots to Ray as the custom resource `gp_sandbox_slots` (`gp ray slots` prints the number and the
 * `ray start` argument); the capacity preflight (`config/sandboxCapacity.ts`) compares them with
 * the episodes a command runs at once. A node keeps some CPU and memory for itself, its Docker
 * daemon and the trainer's processes; the rest is shared out in slots, each the size of what one
 * sandbox counts as. That size is the backend's to say (`SandboxBackend.slotShare`, registered in
 * `backends.ts`); the arithmetic here is pure, so the preflight, the hosts and `gp ray slots` agree
 * on one answer.
 */
import type { SandboxLimits } from '../protocol/sandbox.js';

export interface NodeResources {
  readonly cpus: number;
  readonly memoryBytes: number;
}

/** What one sandbox counts as on a node: cores, and bytes of memory (undefined: not counted). */
export interface SlotShare {
  readonly cpus: number;
  readonly memoryBytes: number | undefined;
}

export interface SlotCount {
  readonly slots: number;
  /** Which resource ran out first (`override` when the count was given). */
  readonly limitedBy: 'cpus' | 'memory' | 'override';
}

/** What a node keeps for itself: one CPU and 2 GiB, or an eighth of each on a large machine. */
export function nodeReserve(node: NodeResources): NodeResources {
  return { cpus: Math.max(1, node.cpus / 8), memoryBytes: Math.max(2 * 1024 ** 3, node.memoryBytes / 8) };
}

/**
 * The share of a sandbox sized by what it uses steadily, not by its limits, as the docker and the
 * local backends' are. Its memory limit is one it may really fill, so memory divides by it. Its
 * CPU limit (Docker's `--cpus`) caps bursts (a test run, an install) and reserves nothing, and a
 * task instance uses about one core steadily (issue 22), so it counts as min(1, limit) cores: a
 * 2-core machine with the default limit of 2 offers one slot, not none. No CPU limit counts as one
 * core; no memory limit, as no memory, since nothing bounds it.
 */
export function steadyShare(limits: Pick<SandboxLimits, 'cpus' | 'memoryBytes'>): SlotShare {
  const memory = limits.memoryBytes;
  return { cpus: Math.min(1, limits.cpus ?? 1), memoryBytes: memory === null || memory <= 0 ? undefined : memory };
}

/**
 * Sandboxes that fit on a node at once: what is left after its reserve, divided by one sandbox's
 * share of CPU and of memory, whichever runs out first. `override` wins.
 */
export function slotsFor(node: NodeResources, share: SlotShare, override?: number): SlotCount {
  if (override !== undefined) return { slots: Math.max(0, Math.floor(override)), limitedBy: 'override' };
  const reserve = nodeReserve(node);
  const byCpu = Math.floor(Math.max(0, node.cpus - reserve.cpus) / share.cpus);
  const byMemory =
    share.memoryBytes === undefined ? Number.POSITIVE_INFINITY : Math.floor(Math.max(0, node.memoryBytes - reserve.memoryBytes) / share.memoryBytes);
  return byMemory < byCpu ? { slots: byMemory, limitedBy: 'memory' } : { slots: byCpu, limitedBy: 'cpus' };
}

/** The larger of two shares in each resource: a slot that fits either sandbox. */
export function widerShare(a: SlotShare, b: SlotShare): SlotShare {
  const memory = a.memoryBytes === undefined ? b.memoryBytes : b.memoryBytes === undefined ? a.memoryBytes : Math.max(a.memoryBytes, b.memoryBytes);
  return { cpus: Math.max(a.cpus, b.cpus), memoryBytes: memory };
}
