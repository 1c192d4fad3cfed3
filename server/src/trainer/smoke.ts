/**
 * `gp train --smoke`: the whole training path on CPU, with one of two policies. `model` (the
 * default) is a real pretrained model, SmolLM2-135M-Instruct, whose replies Verl's agent loop
 * samples from the same weights the smoke's actor update changes, so each step generates from the
 * weights the step before it left. `scripted` is a tiny random model trained on the rule agent's
 * replies, which the environment service serves: deterministic, for tests that need an outcome.
 * docs/trainer-bridge.md#smoke says what each proves.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createRuleAgent, type Agent } from '../agents/index.js';
import type { ExperimentConfig } from '../config/index.js';
import type { VerlOverride } from './verlOverrides.js';

export type SmokePolicy = 'model' | 'scripted';
export const smokePolicies: readonly SmokePolicy[] = ['model', 'scripted'];

export interface SmokeSettings {
  readonly policy: SmokePolicy;
  /** Where the smoke's model folder is: built (scripted) or converted from `languageModel` (model). */
  readonly modelDir: string;
  /** The GGUF file the model policy starts from (scripts/setup-language-model.sh installs it). */
  readonly languageModel: string;
  readonly steps: number;
}

/**
 * The token budgets of each policy's smoke. The tiny tokenizer (python/graph_planner_verl/smoke/tiny_model.py)
 * needs several times a real one's tokens for the same text, and a rule-agent episode of the sample
 * tasks fits in its budgets. SmolLM2's tokenizer reads the first prompt of a sample task in about
 * 1,100 tokens, and `modelSmoke.maxSteps` replies of `modelSmoke.maxNewTokens` with the
 * observations between them fit in the response budget.
 */
export const smokeLengths = {
  scripted: { prompt: 8192, response: 8192 },
  model: { prompt: 3072, response: 4096 },
} as const;

/**
 * The model policy's limits, so a smoke step takes a few minutes on two CPU cores: a reply is cut
 * at `maxNewTokens`, and an episode ends after `maxSteps` replies (almost all of them protocol
 * errors from a 135M model, which is expected). Its group's returns then usually tie and GRPO's
 * advantages are zero; the entropy term of Verl's actor loss (`actor.entropy_coeff`, which Verl
 * subtracts from the policy loss) still moves the weights, which the smoke measures.
 */
export const modelSmoke = { maxNewTokens: 48, maxSteps: 2, entropyCoeff: 0.001 } as const;

/** Where the caches are: $XDG_CACHE_HOME/graph-planner or ~/.cache/graph-planner. */
function cacheDir(): string {
  return join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'graph-planner');
}

/** The GGUF file scripts/setup-language-model.sh installs (in $GP_LANGUAGE_MODEL_DIR when set). */
export function languageModelFile(): string {
  const dir = process.env['GP_LANGUAGE_MODEL_DIR'];
  return join(
    dir !== undefined && dir !== '' ? dir : join(homedir(), '.cache', 'graph-planner', 'models', 'smollm2-135m-instruct-q4_1'),
    'SmolLM2-135M-Instruct.Q4_1.gguf',
  );
}

export function smokeSettings(policy: SmokePolicy, steps: number): SmokeSettings {
  return { policy, steps, modelDir: join(cacheDir(), policy === 'model' ? 'smollm2-135m-instruct' : 'tiny-qwen2'), languageModel: languageModelFile() };
}

/**
 * The smoke's batch, whatever the config file asks: one task per step in the smallest group GRPO can
 * compare (two episodes). A smoke checks an installation, so it runs the same few episodes on any
 * config and on any task file with one task or more, such as datasets/sample/tasks.jsonl, instead
 * of the config's batch (four tasks of four episodes by default, about half an hour on two cores).
 * A batch set on the command line (`--set training.rollout_n=8`) still wins: the person asked for it
 * for this very run.
 */
export const smokeBatch = { trainBatchSize: 1, rolloutN: 2 } as const;

/**
 * The config a smoke runs with: `smokeBatch` (but for the keys in `setOnCommandLine`, dotted paths
 * the command line's overrides set), and the model policy's episodes ending after
 * `modelSmoke.maxSteps` replies. Both are written into the resolved config (ARCHITECTURE.md §4.5),
 * so the run folder says what ran.
 */
export function smokeConfig(config: ExperimentConfig, policy: SmokePolicy, setOnCommandLine: ReadonlySet<string> = new Set()): ExperimentConfig {
  const keep = (key: string): boolean => setOnCommandLine.has(`training.${key}`);
  const training = {
    ...config.training,
    ...(keep('train_batch_size') ? {} : { train_batch_size: smokeBatch.trainBatchSize }),
    ...(keep('rollout_n') ? {} : { rollout_n: smokeBatch.rolloutN }),
    ...(keep('ppo_mini_batch_size') ? {} : { ppo_mini_batch_size: null }),
  };
  const shortEpisodes = policy === 'model' && config.env.max_steps > modelSmoke.maxSteps;
  return { ...config, training, env: shortEpisodes ? { ...config.env, max_steps: modelSmoke.maxSteps } : config.env };
}

/** Overrides the smoke adds to the config's, placed before the user's own so those still win. */
export function smokeOverrides(policy: SmokePolicy): VerlOverride[] {
  return policy === 'model' ? [{ key: 'actor_rollout_ref.actor.entropy_coeff', value: modelSmoke.entropyCoeff, source: 'run' }] : [];
}

/** The smoke driver's arguments (python/graph_planner_verl/smoke/run.py). */
export function smokeDriverArgs(runDir: string, smoke: SmokeSettings): string[] {
  const policy =
    smoke.policy === 'model'
      ? ['--policy', 'model', '--language-model', smoke.languageModel, '--max-new-tokens', String(modelSmoke.maxNewTokens)]
      : ['--policy', 'scripted'];
  return ['-m', 'graph_planner_verl.smoke.run', '--run-dir', runDir, '--steps', String(smoke.steps), ...policy, '--'];
}

/**
 * The scripted policy: the rule agent, except that every second episode of a group opens with a
 * reply the action protocol refuses. The group's returns then differ, so GRPO's advantages are not
 * all zero and the actor update moves the weights.
 */
export function scriptedSmokePolicy(member: number): Agent {
  const rule = createRuleAgent();
  if (member % 2 === 0) return rule;
  let fumbled = false;
  return {
    name: 'rule-fumbling-first',
    act: (observation, signal) => {
      if (fumbled) return rule.act(observation, signal);
      fumbled = true;
      return Promise.resolve({ response: 'I am not sure which tool to call yet.' });
    },
  };
}
