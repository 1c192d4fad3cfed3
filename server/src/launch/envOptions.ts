/**
 * Environment settings from an experiment config and a task. The task's own `max_steps` lowers the
 * config's, never raises it (ARCHITECTURE.md §4.5); the task's reward fields, when present, override the
 * config's for that task because they are the more specific statement.
 */
import type { ExperimentConfig } from '../config/index.js';
import type { EnvOptions, PatchModel } from '../env/index.js';
import { PreimageStore, recordTestRun } from '../runs/index.js';
import type { TaskEntry } from '../tasks/index.js';
import { graderTaskSurface } from '../testing/index.js';
import { semanticProvider, type SemanticProvider } from './semanticSearch.js';

export function effectiveMaxSteps(config: ExperimentConfig, task: TaskEntry): number {
  return task.max_steps === undefined ? config.env.max_steps : Math.min(task.max_steps, config.env.max_steps);
}

export function envOptionsFromConfig(config: ExperimentConfig, task: TaskEntry, extra: { runDir?: string; patchModel?: PatchModel } = {}): EnvOptions {
  const env = config.env;
  return {
    limits: {
      maxSteps: effectiveMaxSteps(config, task),
      repoOpLimit: task.repo_op_limit ?? env.repo_op_limit,
      stepTimeoutMs: env.step_timeout * 1000,
      // The task's own limits lower the config's episode limit, as max_steps does (§4.5); a Harbor
      // task's verifier timeout replaces the config's test timeout, since it is the task's own measure.
      episodeTimeoutMs: Math.min(env.episode_timeout, task.episode_timeout ?? Number.POSITIVE_INFINITY) * 1000,
      testTimeoutMs: (task.verifier?.timeout_sec ?? config.sandbox.test_timeout) * 1000,
    },
    rewards: {
      reward_scale: task.reward_scale ?? env.reward_scale,
      failure_penalty: task.failure_penalty ?? env.failure_penalty,
      step_penalty: task.step_penalty ?? env.step_penalty,
      timeout_penalty: task.timeout_penalty ?? env.timeout_penalty,
    },
    memoryLimits: { nodes: env.memory_nodes, edges: env.memory_edges, note_tokens: env.memory_note_tokens },
    guard: {
      maxEdits: env.max_edits_per_patch,
      maxLinesPerEdit: env.max_lines_per_edit,
      maxCandidates: env.max_repair_candidates,
      requireFocusWindows: true,
      protectedPaths: env.protected_paths,
      protectedPenalty: env.protected_penalty,
      surface: graderTaskSurface(task),
    },
    ...(extra.patchModel === undefined ? {} : { patchModel: extra.patchModel }),
    ...withSemantic(semanticProvider(env.semantic_search)),
    ...(extra.runDir === undefined ? {} : { recordTestRun: recordTestRunIn(extra.runDir), recordPreimage: preimagesIn(extra.runDir) }),
  };
}

/** One store per run directory, so every episode of a run shares its pre-images (and its cap). */
const stores = new Map<string, PreimageStore>();

function preimagesIn(runDir: string): NonNullable<EnvOptions['recordPreimage']> {
  let store = stores.get(runDir);
  if (store === undefined) {
    store = new PreimageStore(runDir);
    stores.set(runDir, store);
  }
  const kept = store;
  return (path, content) => kept.record(path, content);
}

/** Records a submit's test run in the run directory (runs/testRuns.ts). */
function recordTestRunIn(runDir: string): NonNullable<EnvOptions['recordTestRun']> {
  return (run) => recordTestRun(runDir, run);
}

function withSemantic(provider: SemanticProvider | undefined): Pick<EnvOptions, 'semantic'> {
  return provider === undefined ? {} : { semantic: provider };
}
