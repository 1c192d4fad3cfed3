import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { experimentConfigSchema, type ExperimentConfig } from '../../server/src/config/index.js';
import { estimatorModule, hydraArgument, hydraValue, microBatchPerGpu, verlOverrides, type TrainPaths } from '../../server/src/trainer/index.js';
import { realOutcomeEstimator } from '../../server/src/protocol/noOutcome.js';

const paths: TrainPaths = {
  trainFiles: '/runs/r/data/train.parquet',
  valFiles: '/runs/r/data/val.parquet',
  modelPath: '/models/tiny',
  agentLoopConfig: '/repo/python/graph_planner_verl/agent_loop.yaml',
  checkpointDir: '/runs/r/checkpoints',
  rolloutDumpDir: '/runs/r/rollouts',
};

function config(input: Record<string, unknown> = {}): ExperimentConfig {
  return experimentConfigSchema.parse(input);
}

function valueOf(c: ExperimentConfig, key: string, extra: Partial<Parameters<typeof verlOverrides>[1]> = {}): unknown {
  const found = verlOverrides(c, { paths, runName: 'run-1', ...extra }).filter((o) => o.key === key);
  return found.at(-1)?.value;
}

test('passes the run’s own files, not the config’s paths, as data and model', () => {
  const c = config({ paths: { dataset_train: 'datasets/x.jsonl', planner_model: 'models/Q' } });
  assert.equal(valueOf(c, 'data.train_files'), paths.trainFiles);
  assert.equal(valueOf(c, 'data.val_files'), paths.valFiles);
  assert.equal(valueOf(c, 'actor_rollout_ref.model.path'), paths.modelPath);
  assert.equal(valueOf(c, 'actor_rollout_ref.rollout.agent.agent_loop_config_path'), paths.agentLoopConfig);
  assert.equal(valueOf(c, 'trainer.default_local_dir'), paths.checkpointDir);
});

test('always keeps Verl’s file logger on, because gp train tails it', () => {
  assert.deepEqual(valueOf(config({ logging: { log_backend: 'none' } }), 'trainer.logger'), ['console', 'file']);
  assert.deepEqual(valueOf(config({ logging: { log_backend: 'tensorboard' } }), 'trainer.logger'), ['console', 'file', 'tensorboard']);
  assert.deepEqual(valueOf(config({ logging: { wandb: { enabled: true } } }), 'trainer.logger'), ['console', 'file', 'wandb']);
});

test('spells the config’s nulls as Verl does: never-save is -1, no mini-batch means one update per step', () => {
  const c = config({ training: { train_batch_size: 8 }, logging: { save_interval: null, eval_interval: 5 } });
  assert.equal(valueOf(c, 'trainer.save_freq'), -1);
  assert.equal(valueOf(c, 'trainer.test_freq'), 5);
  assert.equal(valueOf(c, 'actor_rollout_ref.actor.ppo_mini_batch_size'), 8);
  assert.equal(valueOf(c, 'trainer.experiment_name'), 'run-1');
  assert.equal(valueOf(c, 'actor_rollout_ref.actor.optim.lr'), undefined, 'a null learning rate keeps Verl’s default');
});

test('derives the micro-batch from grad_accum_steps over every GPU', () => {
  const c = config({ training: { train_batch_size: 8, rollout_n: 4, grad_accum_steps: 2 }, resources: { num_gpus: 8, num_nodes: 1 } });
  // A mini-batch of 8 tasks × 4 episodes is 32 samples, 4 per GPU, taken in 2 passes of 2.
  assert.equal(microBatchPerGpu(c), 2);
  assert.equal(valueOf(c, 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu'), 2);
  assert.equal(microBatchPerGpu(config({ training: { train_batch_size: 1, rollout_n: 2, grad_accum_steps: 8 } })), 1, 'never below one sample');
});

test('applies verl_overrides last, so a user’s value wins over the table', () => {
  const c = config({ training: { rollout_n: 4 }, verl_overrides: { actor_rollout_ref: { rollout: { n: 16 } }, trainer: { val_before_train: true } } });
  const all = verlOverrides(c, { paths, runName: 'r' });
  const rolloutN = all.filter((o) => o.key === 'actor_rollout_ref.rollout.n');
  assert.deepEqual(
    rolloutN.map((o) => [o.source, o.value]),
    [
      ['table', 4],
      ['user', 16],
    ],
  );
  assert.equal(all.at(-1)?.source, 'user');
  const [table, user] = rolloutN;
  assert.ok(table !== undefined && user !== undefined);
  assert.equal(hydraArgument(user), '++actor_rollout_ref.rollout.n=16');
  assert.equal(hydraArgument(table), 'actor_rollout_ref.rollout.n=4');
});

test('replaces the token budgets for a smoke run', () => {
  const c = config();
  assert.equal(valueOf(c, 'data.max_response_length', { lengths: { prompt: 100, response: 200 } }), 200);
  assert.equal(valueOf(c, 'data.max_prompt_length', { lengths: { prompt: 100, response: 200 } }), 100);
});

test('writes values in Hydra’s override grammar', () => {
  assert.equal(hydraValue('grpo'), 'grpo');
  assert.equal(hydraValue('/a/b c.parquet'), "'/a/b c.parquet'");
  assert.equal(hydraValue("it's"), "'it\\'s'");
  assert.equal(hydraValue('true'), "'true'", 'a string that reads as a boolean stays a string');
  assert.equal(hydraValue('1e-5'), "'1e-5'", 'a string that reads as a number stays a string');
  assert.equal(hydraValue(5e-5), '0.00005');
  assert.equal(hydraValue(['console', 'file']), '[console,file]');
  assert.equal(hydraValue({ a: 1, b: 'x y' }), "{a:1,b:'x y'}");
  assert.equal(hydraValue(null), 'null');
});

test('adds the ray.init key Verl’s config does not declare instead of overriding it', () => {
  const all = verlOverrides(config(), { paths, runName: 'r' });
  const gpus = all.find((o) => o.key === 'ray_kwargs.ray_init.num_gpus');
  assert.ok(gpus);
  assert.match(hydraArgument(gpus), /^\+ray_kwargs\.ray_init\.num_gpus=/);
});

test('runs grpo as GRPO over real outcomes and passes failed_members as a key added to Verl’s algorithm section', () => {
  assert.equal(valueOf(config(), 'algorithm.adv_estimator'), realOutcomeEstimator);
  assert.equal(valueOf(config({ training: { adv_estimator: 'rloo' } }), 'algorithm.adv_estimator'), 'rloo', 'other estimators are Verl’s own');
  assert.equal(valueOf(config(), 'algorithm.failed_members'), 'exclude');
  const all = verlOverrides(config({ training: { failed_members: 'drop_group' } }), { paths, runName: 'r' });
  const rule = all.find((o) => o.key === 'algorithm.failed_members');
  assert.ok(rule);
  assert.deepEqual([rule.source, rule.field], ['table', 'training.failed_members']);
  assert.equal(hydraArgument(rule), '+algorithm.failed_members=drop_group');
  const estimator = all.find((o) => o.key === 'algorithm.adv_estimator');
  assert.ok(estimator);
  assert.equal(hydraArgument(estimator), `algorithm.adv_estimator=${realOutcomeEstimator}`);
});

test('a user’s verl_overrides estimator wins, so Verl’s own GRPO stays one override away', () => {
  assert.equal(valueOf(config({ verl_overrides: { algorithm: { adv_estimator: 'grpo' } } }), 'algorithm.adv_estimator'), 'grpo');
});

test('the module gp train names in VERL_USE_EXTERNAL_MODULES registers the estimator under the name it passes', () => {
  const file = join('python', ...estimatorModule.split('.')) + '.py';
  assert.match(readFileSync(file, 'utf8'), new RegExp(`^ESTIMATOR_NAME = "${realOutcomeEstimator}"$`, 'm'));
});
