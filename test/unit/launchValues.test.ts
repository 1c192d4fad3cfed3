/**
 * The values the launch review list shows (launch/launchValues.ts through planLaunch): what the run
 * will really get, a value with an error shown as written beside its error, never as the default
 * the run would not reach (issue 27: `backend: dockr` showed "auto", `parallel: 0` showed 2).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { planLaunch } from '../../server/src/launch/index.js';
import type { NewRunLaunch } from '../../server/src/protocol/launch.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'gp-launch-values-'));
  writeFileSync(join(dir, 'tasks.jsonl'), `${JSON.stringify({ task_id: 't', sandbox: { local_repo: '.', workdir: '/r' } })}\n`);
  writeFileSync(join(dir, 'broken.yaml'), 'sandbox:\n  backend: dockr\nrollout:\n  parallel: 0\n  agent: rule\n');
  writeFileSync(join(dir, 'good.yaml'), 'sandbox:\n  backend: local\nrollout:\n  attempts: 3\n');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (config: string, over: Partial<NewRunLaunch> = {}): NewRunLaunch => ({
  kind: 'rollout',
  config: join(dir, config),
  taskFiles: [join(dir, 'tasks.jsonl')],
  tasks: [],
  agent: null,
  backend: null,
  parallel: null,
  attempts: null,
  sets: [],
  cwd: dir,
  ...over,
});

test('a misspelt backend and a parallel of 0 are shown as written, each with its error, not as the defaults', async () => {
  const plan = await planLaunch({ mode: 'new', run: run('broken.yaml') });
  assert.ok(plan.values);
  assert.deepEqual(plan.values.backend, { value: 'dockr', from: 'file', error: plan.values.backend.error });
  assert.match(plan.values.backend.error ?? '', /sandbox\.backend must be one of "auto", "docker", "local", not 'dockr'\. Did you mean 'docker'\?/);
  assert.equal(plan.values.parallel.value, '0');
  assert.match(plan.values.parallel.error ?? '', /rollout\.parallel is 0 but must be ≥ 1/);
  assert.deepEqual(plan.values.agent, { value: 'rule', from: 'file', error: null });
  assert.equal(plan.values.attempts.from, 'default');
  assert.equal(plan.findings.filter((f) => f.severity === 'error').length, 2);
});

test('valid values come from the resolution: the file, the defaults, and a flag over the file', async () => {
  const plan = await planLaunch({ mode: 'new', run: run('good.yaml', { parallel: 4 }) });
  assert.ok(plan.values);
  assert.deepEqual(plan.values.backend, { value: 'local', from: 'file', error: null });
  assert.deepEqual(plan.values.attempts, { value: '3', from: 'file', error: null });
  assert.deepEqual(plan.values.parallel, { value: '4', from: 'flag', error: null });
  assert.equal(plan.values.agent.from, 'default');
  assert.notEqual(plan.values.agent.value, null);
});

test('a flag that breaks a valid file value is blamed for its error', async () => {
  const plan = await planLaunch({ mode: 'new', run: run('good.yaml', { sets: ['sandbox.backend=dockr'] }) });
  assert.equal(plan.values?.backend.value, 'dockr');
  assert.equal(plan.values?.backend.from, 'flag');
  assert.notEqual(plan.values?.backend.error, null);
});
