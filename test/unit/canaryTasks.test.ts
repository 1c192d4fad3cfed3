/**
 * The learning canary's task family (server/src/trainer/canary.ts): every task is a real bug whose
 * fix is its one operator, checked by running its tests with pytest before and after the fix; the
 * held-out functions are never trained on; the prompts are short; the family loads as tasks; the
 * canary's config rewards a fix with 1 and anything else with 0.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { before, test } from 'node:test';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { loadRolloutTasks } from '../../server/src/launch/index.js';
import { canaryConfig, canaryDefaults, writeCanaryFamily, type CanaryFamily, type CanaryTaskSpec } from '../../server/src/trainer/index.js';

interface Spec {
  readonly seed: number;
  readonly train: string[];
  readonly held_out: string[];
  readonly tasks: Record<string, CanaryTaskSpec>;
}

const dir = mkdtempSync(join(tmpdir(), 'gp-canary-'));
let family: CanaryFamily;
let spec: Spec;
before(async () => {
  family = await writeCanaryFamily(dir);
  spec = JSON.parse(readFileSync(family.specFile, 'utf8')) as Spec;
});

function pytest(repo: string): number | null {
  return spawnSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/test_ops.py'], { cwd: repo, encoding: 'utf8' }).status;
}

test('the family has its sizes, and a held-out function shares no argument name with a training one', () => {
  assert.equal(spec.train.length, canaryDefaults.trainTasks);
  assert.equal(spec.held_out.length, canaryDefaults.heldOutTasks);
  const names = (ids: readonly string[]) => new Set(ids.flatMap((id) => /^def \w+\((\w+), (\w+)\)/.exec(spec.tasks[id]?.prompt ?? '')?.slice(1) ?? []));
  const trained = names(spec.train);
  for (const name of names(spec.held_out)) assert.ok(!trained.has(name), `${name} is in both splits`);
  for (const id of [...spec.train, ...spec.held_out]) assert.ok((spec.tasks[id]?.prompt.length ?? 0) < 400, `${id}'s prompt is short`);
});

test('a seed gives the same family on every run', async () => {
  const again = await writeCanaryFamily(mkdtempSync(join(tmpdir(), 'gp-canary-again-')));
  assert.equal(
    readFileSync(again.trainFile, 'utf8').replaceAll(join(dirname(again.trainFile)), ''),
    readFileSync(family.trainFile, 'utf8').replaceAll(dir, ''),
  );
});

test('each task fails its test as written and passes it with its one operator fixed (real pytest)', () => {
  // A spread of tasks of both splits; each sandbox is a copy, so the family stays as written.
  for (const id of [...spec.train.slice(0, 6), ...spec.held_out.slice(0, 4)]) {
    const task = spec.tasks[id];
    assert.ok(task !== undefined);
    const repo = mkdtempSync(join(tmpdir(), 'gp-canary-task-'));
    cpSync(join(dir, 'repos', id), repo, { recursive: true });
    assert.equal(pytest(repo), 1, `${id} fails as written`);
    const fix = /Bug: \w+ should return .*, but it uses `(\S+)`/.exec(task.prompt);
    assert.ok(fix !== null, task.prompt);
    const source = readFileSync(join(repo, task.path), 'utf8').split('\n');
    const line = source[task.line - 1] ?? '';
    assert.ok(line.startsWith(task.before) && line.endsWith(task.after), `${id}: line ${task.line} is the one to fix`);
    const right = ['+', '-', '*', '//', '%', '**'].filter((op) => {
      source[task.line - 1] = `${task.before}${op}${task.after}`;
      writeFileSync(join(repo, task.path), source.join('\n'));
      return pytest(repo) === 0;
    });
    assert.equal(right.length, 1, `${id}: exactly one operator fixes it (${right.join(', ')})`);
    assert.notEqual(right[0], fix[1], `${id}: the fix is not the operator it uses`);
  }
});

test('the family loads as tasks on the local backend, and the canary’s config rewards a fix alone', async () => {
  const loaded = await loadRolloutTasks({
    files: [family.trainFile, family.heldOutFile],
    taskIds: [],
    limit: undefined,
    cwd: dir,
    command: 'test',
    allowedMountRoots: [],
  });
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.problems.join('\n'));
  assert.equal(loaded.tasks.length, canaryDefaults.trainTasks + canaryDefaults.heldOutTasks);
  const config = canaryConfig(experimentConfigSchema.parse({}));
  assert.deepEqual(
    [config.env.reward_scale, config.env.failure_penalty, config.env.step_penalty, config.env.timeout_penalty, config.env.max_steps],
    [1, 0, 0, 0, 2],
  );
  assert.deepEqual([config.training.train_batch_size, config.training.rollout_n, config.training.lr], [4, 8, canaryDefaults.lr]);
  const set = canaryConfig(experimentConfigSchema.parse({ training: { lr: 1e-4 } }), new Set(['training.lr']));
  assert.equal(set.training.lr, 1e-4, 'a learning rate set on the command line wins');
});
