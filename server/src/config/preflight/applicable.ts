/**
 * Notes that only matter when a model runs on GPUs: how the planner and CGM share the GPUs, their
 * memory estimate, and that a model path will be downloaded. A config that runs the model-free
 * rule agent (`launch/agents.ts`) on the local backend (a working copy on this machine, no
 * container) describes rollouts that load no model, like the Getting Started sample, so those
 * notes say nothing about its runs and are left out. The backend matters because the rule agent
 * is also the default agent: a training config leaves it as it is and runs its sandboxes in
 * containers (`auto` or `docker`), and keeps its notes. Warnings and errors about the same
 * settings always show, because `gp train` with that config would meet them.
 */
import type { ExperimentConfig } from '../schema.js';
import type { Finding } from '../../protocol/index.js';
import { agentUsesModel } from '../../protocol/agentNames.js';
import { runsOnHost } from '../../protocol/sandboxBackends.js';

/** The codes of the notes about models and GPUs. */
export const modelNoteCodes: ReadonlySet<string> = new Set([
  'preflight/shared-devices',
  'preflight/gpu-memory-estimate',
  'preflight/memory-estimate-unavailable',
  'preflight/model-not-local',
]);

/**
 * The settings that only say which model runs and how it is split over GPUs; the experiment
 * overview leaves their rows out for a config that loads no model (the default `models/Qwen3-14B`
 * would otherwise read as the sample's model).
 */
export const modelSettingKeys: ReadonlySet<string> = new Set(['paths.planner_model', 'parallel.tensor_parallel_planner']);

/**
 * Whether the config's runs load a model or use GPUs; the one rule for what applies to a config,
 * read by preflight (below) and by the experiment overview, which shows its GPU layout only then.
 */
export function usesModels(config: ExperimentConfig): boolean {
  return agentUsesModel(config.rollout.agent) || !runsOnHost(config.sandbox.backend);
}

/** The findings without the notes that do not apply to the config's agent and backend. */
export function applicableFindings(config: ExperimentConfig, findings: readonly Finding[]): Finding[] {
  if (usesModels(config)) return [...findings];
  return findings.filter((f) => !(modelNoteCodes.has(f.code) && (f.severity === 'info' || f.severity === 'hint')));
}
