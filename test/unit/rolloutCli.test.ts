/** `gp rollout` and `gp eval` refuse bad command lines, configs and task files with exit 2, before anything runs. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { runGp, type GpResult } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-rollout-cli-'));
const sample = resolve('datasets/sample/tasks.jsonl');

function gp(...args: string[]): Promise<GpResult> {
  return runGp(dir, args);
}

function nothingRan(): void {
  assert.equal(existsSync(join(dir, 'outputs')), false, 'no run folder was made');
}

test('an unknown flag, a missing file argument and eval --attempts are usage errors', async () => {
  const unknown = await gp('rollout', sample, '--frobnicate');
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown option --frobnicate\./);
  assert.equal((await gp('rollout')).code, 2);
  const attempts = await gp('eval', sample, '--attempts', '3');
  assert.equal(attempts.code, 2);
  assert.match(attempts.err, /eval runs one attempt per task/);
  assert.equal((await gp('rollout', sample, '--limit', '0')).code, 2);
  nothingRan();
});

test('a config value out of range names the flag it came from', async () => {
  const r = await gp('rollout', sample, '--parallel', '1000');
  assert.equal(r.code, 2);
  assert.match(r.err, /rollout\.parallel|\(from --parallel 1000\)/);
  const agent = await gp('rollout', sample, '--agent', 'oracle');
  assert.equal(agent.code, 2);
  assert.match(agent.err, /--agent oracle/);
  nothingRan();
});

test('a config file error is reported at its file:line:col', async () => {
  const yaml = join(dir, 'bad.yaml');
  writeFileSync(yaml, 'env:\n  max_steps: lots\n');
  const r = await gp('rollout', sample, '--config', yaml);
  assert.equal(r.code, 2);
  assert.match(r.err, /bad\.yaml:2:14 error /);
  nothingRan();
});

test('task file problems exit 2 with file:line:col: invalid rows, duplicate ids, unknown --task, missing files', async () => {
  const bad = join(dir, 'bad.jsonl');
  const first = readFileSync(sample, 'utf8').split('\n')[0] ?? '';
  writeFileSync(bad, `${first}\n{"task_id": "x", "sandbox": 3}\n${first}\n{not json\n`);
  const r = await gp('rollout', bad);
  assert.equal(r.code, 2);
  assert.match(r.err, /bad\.jsonl:2:1 sandbox: /);
  assert.match(r.err, /bad\.jsonl:3:1 task_id sample-calc-add is already used at .*bad\.jsonl:1/);
  assert.match(r.err, /bad\.jsonl:4:2 invalid JSON/);
  const missing = await gp('rollout', sample, '--task', 'no-such-task');
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no task no-such-task/);
  assert.equal((await gp('rollout', join(dir, 'absent.jsonl'))).code, 2);
  nothingRan();
});

test('--resume without a run to resume says so', async () => {
  const r = await gp('rollout', sample, '--resume', '--output-dir', join(dir, 'empty-outputs'));
  assert.equal(r.code, 2);
  assert.match(r.err, /--resume found no unfinished gp rollout run/);
});

test('--agent model without backends.planner_endpoint is refused before anything runs, naming the key', async () => {
  const r = await gp('rollout', sample, '--agent', 'model', '--output-dir', join(dir, 'model-outputs'));
  assert.equal(r.code, 2);
  assert.match(r.err, /backends\.planner_endpoint/);
  assert.equal(existsSync(join(dir, 'model-outputs')), false, 'no run folder was made');
});
