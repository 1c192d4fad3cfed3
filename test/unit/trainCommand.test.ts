import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';
import { trainPreflight } from '../../server/src/cli/trainCommand.js';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { modelSmoke, smokeBatch, smokeConfig, smokeLengths, smokeSettings } from '../../server/src/trainer/index.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

test('refuses GRPO with one episode per task, saying why and what to set', async () => {
  const config = experimentConfigSchema.parse({ training: { adv_estimator: 'grpo', rollout_n: 1 } });
  const problems = await trainPreflight(config, { smoke: true, ray: false });
  assert.equal(problems.length, 1);
  assert.match(problems[0] ?? '', /rollout_n is 1.*every advantage is zero.*rollout_n to 2/);
  assert.deepEqual(await trainPreflight(experimentConfigSchema.parse({ training: { rollout_n: 2 } }), { smoke: true, ray: false }), []);
});

test('refuses a real local launch on a machine without a visible GPU, and offers the ways out', async (t) => {
  const problems = await trainPreflight(experimentConfigSchema.parse({ training: { rollout_n: 2 } }), { smoke: false, ray: false });
  if (problems.length === 0) {
    t.diagnostic('this machine shows a GPU (nvidia-smi -L), so the refusal cannot be observed here');
    return;
  }
  assert.match(problems[0] ?? '', /no GPU is visible.*--ray ADDRESS.*--smoke/);
  assert.deepEqual(
    await trainPreflight(experimentConfigSchema.parse({ training: { rollout_n: 2 } }), { smoke: false, ray: true }),
    [],
    'a Ray cluster brings its own GPUs',
  );
});

test('gp train --dry-run prints the Verl command line with the run’s overrides and starts nothing', async () => {
  const { io: cli, out, err } = io();
  const code = await runCli(
    [
      'train',
      'configs/experiments/planner_debug.yaml',
      '--smoke',
      '--dry-run',
      '--tasks',
      'datasets/sample/tasks.jsonl',
      '--run-dir',
      '/tmp/gp-dry-run-never-written',
    ],
    cli,
    resolve('.'),
  );
  assert.equal(code, 0, err.join('\n'));
  const text = out.join('\n');
  assert.match(text, /-m \\\n {2}graph_planner_verl\.smoke\.run/);
  assert.match(text, /actor_rollout_ref\.rollout\.n=2/);
  assert.match(text, /data\.train_files=\/tmp\/gp-dry-run-never-written\/data\/train\.parquet/);
  assert.match(text, /actor_rollout_ref\.rollout\.agent\.agent_loop_config_path=.*python\/graph_planner_verl\/agent_loop\.yaml/);
});

test('gp train reports usage errors with the usage line and exit 2', async () => {
  const { io: cli, err } = io();
  assert.equal(await runCli(['train', '--steps', '2'], cli, resolve('.')), 2);
  assert.match(err.join('\n'), /--steps is for --smoke/);
  assert.match(err.join('\n'), /gp train \[CONFIG\]/);
});

test('gp train refuses fewer tasks than one batch before starting anything', async () => {
  const { io: cli, err } = io();
  // --ray to an address nothing answers: the launch needs no local GPU, and the cluster's slots are only a warning.
  const code = await runCli(
    [
      'train',
      '--ray',
      '127.0.0.1:9',
      '--dry-run',
      '--tasks',
      'datasets/sample/tasks.jsonl',
      '--set',
      'training.train_batch_size=8',
      '--set',
      'training.rollout_n=2',
    ],
    cli,
    resolve('.'),
  );
  assert.equal(code, 2);
  assert.match(err.join('\n'), /3 training task\(s\), fewer than training.train_batch_size \(8\)/);
});

test('the documented smoke command (docs/training.md, the walkthrough’s Train step) passes every check on the sample tasks: the smoke trains one task per step in a group of two, whatever the config’s batch', async () => {
  const { io: cli, out, err } = io();
  // The documented command, plus --dry-run so that nothing starts (the integration test runs it whole).
  const code = await runCli(
    ['train', '--smoke', '--tasks', 'datasets/sample/tasks.jsonl', '--dry-run', '--run-dir', '/tmp/gp-dry-run-never-written'],
    cli,
    resolve('.'),
  );
  assert.equal(code, 0, err.join('\n'));
  const args = out.join('\n').split(' \\\n  ');
  assert.ok(args.includes(`data.train_batch_size=${smokeBatch.trainBatchSize}`), args.join(' '));
  assert.ok(args.includes(`actor_rollout_ref.rollout.n=${smokeBatch.rolloutN}`), args.join(' '));
  const big = experimentConfigSchema.parse({ training: { train_batch_size: 64, rollout_n: 8, ppo_mini_batch_size: 16 } });
  assert.deepEqual(
    ['train_batch_size', 'rollout_n', 'ppo_mini_batch_size'].map(
      (k) => smokeConfig(big, 'scripted').training[k as 'train_batch_size' | 'rollout_n' | 'ppo_mini_batch_size'],
    ),
    [1, 2, null],
  );
  assert.equal(big.training.train_batch_size, 64, 'the config itself is left as it was');
  assert.equal(smokeConfig(big, 'scripted', new Set(['training.rollout_n'])).training.rollout_n, 8, 'a group size set on the command line wins');
  const { io: cli8, out: out8, err: err8 } = io();
  const code8 = await runCli(
    ['train', '--smoke', '--tasks', 'datasets/sample/tasks.jsonl', '--dry-run', '--run-dir', '/tmp/gp-dry-run-never-written', '--set', 'training.rollout_n=8'],
    cli8,
    resolve('.'),
  );
  assert.equal(code8, 0, err8.join('\n'));
  const args8 = out8.join('\n').split(' \\\n  ');
  assert.ok(args8.includes('actor_rollout_ref.rollout.n=8') && args8.includes(`data.train_batch_size=${smokeBatch.trainBatchSize}`), args8.join(' '));
});

test('the smoke’s default policy is the real model: its driver flags, short episodes, its budgets and the entropy term before the user’s overrides', async () => {
  const { io: cli, out, err } = io();
  const code = await runCli(
    [
      'train',
      'configs/experiments/planner_debug.yaml',
      '--smoke',
      '--dry-run',
      '--tasks',
      'datasets/sample/tasks.jsonl',
      '--run-dir',
      '/tmp/gp-dry-run-never-written',
      '--set',
      'verl_overrides={"actor_rollout_ref.actor.entropy_coeff": 0.5}',
    ],
    cli,
    resolve('.'),
  );
  assert.equal(code, 0, err.join('\n'));
  const args = out.join('\n').split(' \\\n  ');
  const after = (flag: string): string | undefined => args[args.indexOf(flag) + 1];
  assert.equal(after('--policy'), 'model');
  assert.match(after('--language-model') ?? '', /SmolLM2-135M-Instruct\.Q4_1\.gguf$/);
  assert.equal(after('--max-new-tokens'), String(modelSmoke.maxNewTokens));
  assert.ok(args.includes(`data.max_prompt_length=${smokeLengths.model.prompt}`) && args.includes(`data.max_response_length=${smokeLengths.model.response}`));
  assert.match(args.find((a) => a.startsWith('actor_rollout_ref.model.path=')) ?? '', /smollm2-135m-instruct$/);
  const ours = args.indexOf(`actor_rollout_ref.actor.entropy_coeff=${modelSmoke.entropyCoeff}`);
  const users = args.indexOf('++actor_rollout_ref.actor.entropy_coeff=0.5');
  assert.ok(ours !== -1 && users > ours, 'the experiment’s own verl_overrides come last and win');
});

test('--smoke-policy scripted runs the rule agent’s smoke with the tiny model and its budgets', async () => {
  const { io: cli, out, err } = io();
  const code = await runCli(
    [
      'train',
      'configs/experiments/planner_debug.yaml',
      '--smoke',
      '--smoke-policy',
      'scripted',
      '--dry-run',
      '--tasks',
      'datasets/sample/tasks.jsonl',
      '--run-dir',
      '/tmp/gp-dry-run-never-written',
    ],
    cli,
    resolve('.'),
  );
  assert.equal(code, 0, err.join('\n'));
  const text = out.join('\n');
  assert.match(text, /--policy \\\n {2}scripted/);
  assert.doesNotMatch(text, /--language-model|entropy_coeff/);
  assert.match(text, /actor_rollout_ref\.model\.path=\S*tiny-qwen2/);
  assert.match(text, new RegExp(`data\\.max_response_length=${smokeLengths.scripted.response}`));
});

test('--smoke-policy takes model or scripted, and only with --smoke', async () => {
  const bad = io();
  assert.equal(await runCli(['train', '--smoke', '--smoke-policy', 'rule', '--dry-run'], bad.io, resolve('.')), 2);
  assert.match(bad.err.join('\n'), /--smoke-policy must be model or scripted, not "rule"/);
  const alone = io();
  assert.equal(await runCli(['train', '--smoke-policy', 'scripted', '--dry-run'], alone.io, resolve('.')), 2);
  assert.match(alone.err.join('\n'), /--smoke-policy is for --smoke/);
});

test('the model smoke caps the episode at its step limit, and leaves a shorter limit and the scripted smoke alone', () => {
  const config = experimentConfigSchema.parse({ env: { max_steps: 6 } });
  assert.equal(smokeConfig(config, 'model').env.max_steps, modelSmoke.maxSteps);
  assert.equal(smokeConfig(config, 'scripted').env.max_steps, 6);
  const short = experimentConfigSchema.parse({ env: { max_steps: 1 } });
  assert.equal(smokeConfig(short, 'model').env.max_steps, 1);
});

test('a model smoke whose GGUF file is missing is refused before anything starts, naming the setup script', async () => {
  const config = experimentConfigSchema.parse({ training: { rollout_n: 2 } });
  const settings = { ...smokeSettings('model', 1), languageModel: '/nonexistent/SmolLM2-135M-Instruct.Q4_1.gguf' };
  const problems = await trainPreflight(config, { smoke: true, ray: false, smokeSettings: settings });
  assert.equal(problems.length, 1);
  assert.match(
    problems[0] ?? '',
    /\/nonexistent\/SmolLM2-135M-Instruct\.Q4_1\.gguf, which is missing: run bash scripts\/setup-language-model\.sh, or choose --smoke-policy scripted/,
  );
  assert.deepEqual(await trainPreflight(config, { smoke: true, ray: false, smokeSettings: { ...settings, policy: 'scripted' } }), []);
});
