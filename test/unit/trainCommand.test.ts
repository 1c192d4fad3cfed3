import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';
import { trainPreflight } from '../../server/src/cli/trainCommand.js';
import { experimentConfigSchema } from '../../server/src/config/index.js';

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
  assert.deepEqual(await trainPreflight(experimentConfigSchema.parse({ training: { rollout_n: 2 } }), { smoke: false, ray: true }), [], 'a Ray cluster brings its own GPUs');
});

test('gp train --dry-run prints the Verl command line with the run’s overrides and starts nothing', async () => {
  const { io: cli, out, err } = io();
  const code = await runCli(['train', 'configs/experiments/planner_debug.yaml', '--smoke', '--dry-run', '--tasks', 'datasets/sample/tasks.jsonl', '--run-dir', '/tmp/gp-dry-run-never-written'], cli, resolve('.'));
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
  const code = await runCli(['train', '--smoke', '--tasks', 'datasets/sample/tasks.jsonl', '--set', 'training.train_batch_size=8', '--set', 'training.rollout_n=2'], cli, resolve('.'));
  assert.equal(code, 2);
  assert.match(err.join('\n'), /3 training task\(s\), fewer than training.train_batch_size \(8\)/);
});
