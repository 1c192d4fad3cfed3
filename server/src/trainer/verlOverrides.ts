/**
 * The Hydra overrides `gp train` passes to `python -m verl.trainer.main_ppo`: the config-to-Verl
 * table (`config/verlMapping.ts`, the `maps_to` of each field), the settings our agent loop and
 * run folder need, and the experiment's `verl_overrides` last, so a user's override always wins.
 * Pure: the integration test composes the result with Verl 0.9.1's own Hydra config, so a key
 * Verl does not have fails there rather than in a user's launch.
 */
import { verlMappedFields, verlOverrideLeaves, type ExperimentConfig } from '../config/index.js';
import { getAt } from '../util/keyPath.js';
import { realOutcomeEstimator } from '../protocol/noOutcome.js';

/** Where the run's files are, as absolute paths on the machine the trainer runs on. */
export interface TrainPaths {
  readonly trainFiles: string;
  readonly valFiles: string;
  readonly modelPath: string;
  /** The agent-loop YAML file that registers our agent loop (python/graph_planner_verl/agent_loop.yaml). */
  readonly agentLoopConfig: string;
  readonly checkpointDir: string;
  readonly rolloutDumpDir: string;
}

export interface VerlOverrideOptions {
  readonly paths: TrainPaths;
  /** The run's name; Verl's experiment name when the config names none. */
  readonly runName: string;
  /**
   * Token budgets replacing the config's (the smoke run: its tiny tokenizer spends several times
   * the tokens of a real one on the same conversation).
   */
  readonly lengths?: { readonly prompt: number; readonly response: number };
}

/** The name our agent loop is registered under; the training parquet's `agent_name` column. */
export const agentLoopName = 'graph_planner';

/**
 * The module that registers it with Verl. Verl 0.9.1 imports the modules named in
 * `VERL_USE_EXTERNAL_MODULES` whenever it is imported, so the trainer's environment names this one
 * and the estimator is registered in whichever process computes the advantages.
 */
export const estimatorModule = 'graph_planner_verl.real_outcome_grpo';

/** One override with where it came from, so `gp train --dry-run` can explain each line. */
export interface VerlOverride {
  readonly key: string;
  readonly value: unknown;
  /** `table`: a config field's `maps_to`; `run`: what our agent loop and run folder need; `user`: `verl_overrides`. */
  readonly source: 'table' | 'run' | 'user';
  /** The config field the value came from, for `table` rows. */
  readonly field?: string;
}

/** Loggers Verl writes to for each `logging.log_backend`; `file` is always on, because we tail it. */
function loggers(config: ExperimentConfig): string[] {
  const backend = config.logging.wandb.enabled ? 'wandb' : config.logging.log_backend;
  if (backend === 'none' || backend === 'file') return ['console', 'file'];
  if (backend === 'console') return ['console', 'file'];
  return ['console', 'file', backend];
}

/**
 * The value Verl receives for a mapped field. Paths are the run's own files; null means "Verl's
 * default" for most fields and is then left out, but some nulls have a meaning Verl spells otherwise.
 */
function tableValue(config: ExperimentConfig, mapsTo: string, value: unknown, options: VerlOverrideOptions): unknown {
  switch (mapsTo) {
    case 'data.train_files':
      return options.paths.trainFiles;
    case 'data.val_files':
      return options.paths.valFiles;
    case 'actor_rollout_ref.model.path':
      return options.paths.modelPath;
    case 'data.max_prompt_length':
      return options.lengths?.prompt ?? value;
    case 'data.max_response_length':
      return options.lengths?.response ?? value;
    case 'algorithm.adv_estimator':
      return value === 'grpo' ? realOutcomeEstimator : value;
    case 'trainer.logger':
      return loggers(config);
    case 'trainer.experiment_name':
      return value ?? options.runName;
    case 'actor_rollout_ref.actor.ppo_mini_batch_size':
      return value ?? config.training.train_batch_size;
    case 'trainer.save_freq':
    case 'trainer.test_freq':
      return value ?? -1;
    default:
      return value;
  }
}

/**
 * Samples per GPU in one forward/backward pass, so that a mini-batch takes `grad_accum_steps`
 * passes: a mini-batch holds `ppo_mini_batch_size × rollout_n` samples spread over every GPU.
 */
export function microBatchPerGpu(config: ExperimentConfig): number {
  const mini = (config.training.ppo_mini_batch_size ?? config.training.train_batch_size) * config.training.rollout_n;
  const gpus = Math.max(1, config.resources.num_gpus * config.resources.num_nodes);
  return Math.max(1, Math.floor(mini / gpus / config.training.grad_accum_steps));
}

/** Every override, in the order they are passed: table, run, then the user's. */
export function verlOverrides(config: ExperimentConfig, options: VerlOverrideOptions): VerlOverride[] {
  const table = verlMappedFields.flatMap((field): VerlOverride[] => {
    const value = tableValue(config, field.mapsTo, getAt(config, field.path), options);
    return value === null || value === undefined ? [] : [{ key: field.mapsTo, value, source: 'table', field: field.path.join('.') }];
  });
  const run: [string, unknown][] = [
    ['actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu', microBatchPerGpu(config)],
    ['actor_rollout_ref.rollout.name', 'vllm'],
    ['actor_rollout_ref.rollout.mode', 'async'],
    ['actor_rollout_ref.rollout.agent.agent_loop_config_path', options.paths.agentLoopConfig],
    ['actor_rollout_ref.rollout.agent.default_agent_loop', agentLoopName],
    ['data.return_raw_chat', true],
    // Our agent loop refuses an over-long prompt itself; Verl's filter would drop tasks silently.
    ['data.filter_overlong_prompts', false],
    ['data.truncation', 'error'],
    ['trainer.default_local_dir', options.paths.checkpointDir],
    ['trainer.rollout_data_dir', options.paths.rolloutDumpDir],
    ['trainer.resume_mode', 'auto'],
    ['trainer.val_before_train', false],
  ];
  const user = verlOverrideLeaves(config.verl_overrides).map((leaf): VerlOverride => ({ key: leaf.key, value: leaf.value, source: 'user' }));
  return [...table, ...run.map(([key, value]): VerlOverride => ({ key, value, source: 'run' })), ...user];
}

/**
 * Keys Verl 0.9.1's config does not declare but passes on, so Hydra must be told to add them (`+`),
 * not to override them: `main_ppo` calls `ray.init(**ray_init)`, which takes `num_gpus`, and Verl
 * hands its `algorithm` section to a registered estimator, which reads `failed_members`.
 */
const addedKeys = new Set(['ray_kwargs.ray_init.num_gpus', 'algorithm.failed_members']);

/**
 * One override as a Hydra command-line argument. Table and run keys must exist in Verl's config
 * (a plain `key=value`, so Hydra refuses a key that drifted); a user's key may add one (`++`).
 */
export function hydraArgument(override: VerlOverride): string {
  const prefix = override.source === 'user' ? '++' : addedKeys.has(override.key) ? '+' : '';
  return `${prefix}${override.key}=${hydraValue(override.value)}`;
}

/** A value in Hydra's override grammar: lists in brackets, strings quoted unless they are plain words. */
export function hydraValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `[${value.map(hydraValue).join(',')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}:${hydraValue(v)}`)
      .join(',')}}`;
  }
  const text = String(value);
  // Hydra's unquoted values may hold letters, digits and a few symbols; everything else is quoted,
  // with backslashes and quotes escaped as its grammar requires.
  if (/^[A-Za-z0-9_./\-+:@~]+$/.test(text) && !/^(true|false|null|[\d.eE+-]+)$/i.test(text)) return text;
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
