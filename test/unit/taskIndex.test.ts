import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { TaskIndexCache, validateJsonlFile } from '../../server/src/tasks/index.js';
import { taskLine, writeTaskFile } from '../support/taskFiles.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'gp-task-index-'));

test('pages through a 5,000-task file, reading it once', async () => {
  const file = join(scratch(), 'big.jsonl');
  writeTaskFile(file, { tasks: 5000 });
  const cache = new TaskIndexCache();
  const started = performance.now();
  const first = await cache.page(file, 0, 500, null);
  const firstMs = performance.now() - started;
  assert.equal(first.tasks.length, 500);
  assert.equal(first.matching, 5000);
  assert.equal(first.next, 500);
  assert.deepEqual(first.tasks[0], {
    taskId: 'task-00000',
    line: 0,
    title: 'Task 0 fails on empty input',
    repo: 'org-0/repo-0',
    image: 'sweb.eval.x86_64.task-00000:latest',
    localRepo: null,
    instance: null,
    certification: null,
    source: { backend: 'auto', docker_image: 'sweb.eval.x86_64.task-00000:latest' },
  });
  // Generous: the bench measures it; this only catches an index that does far more than one pass.
  assert.ok(firstMs < 5000, `the first page took ${Math.round(firstMs)} ms`);

  const ids: string[] = first.tasks.map((t) => t.taskId);
  let next: number | null = first.next;
  while (next !== null) {
    const page = await cache.page(file, next, 500, null);
    ids.push(...page.tasks.map((t) => t.taskId));
    next = page.next;
  }
  assert.equal(ids.length, 5000);
  assert.equal(new Set(ids).size, 5000);
  assert.equal(ids[4999], 'task-04999');
  assert.equal(cache.builds, 1, 'later pages come from the index, not from the file');
});

test('filters by id or repository, in any case, and pages through the matches', async () => {
  const file = join(scratch(), 'tasks.jsonl');
  writeTaskFile(file, { tasks: 5000 });
  const cache = new TaskIndexCache();
  const byRepo = await cache.page(file, 0, 100, 'ORG-3/');
  // Tasks i with i % 7 === 3 below 5,000.
  assert.equal(byRepo.matching, 714);
  assert.ok(byRepo.tasks.every((t) => t.repo?.startsWith('org-3/')));
  const rest = await cache.page(file, 700, 100, 'org-3/');
  assert.equal(rest.tasks.length, 14);
  assert.equal(rest.next, null);
  const byId = await cache.page(file, 0, 500, 'task-0424');
  assert.deepEqual(
    byId.tasks.map((t) => t.taskId),
    Array.from({ length: 10 }, (_, i) => `task-0424${i}`),
  );
  assert.equal((await cache.page(file, 0, 10, '  ')).matching, 5000, 'a blank filter is no filter');
  assert.equal((await cache.page(file, 0, 10, 'nothing like it')).matching, 0);
  assert.equal(cache.builds, 1);
});

test('a file changed on disk is read again, an unchanged one is not', async () => {
  const file = join(scratch(), 'tasks.jsonl');
  writeTaskFile(file, { tasks: 3 });
  const cache = new TaskIndexCache();
  assert.equal((await cache.get(file)).tasks.length, 3);
  assert.equal((await cache.get(file)).tasks.length, 3);
  assert.equal(cache.builds, 1);
  appendFileSync(file, `${taskLine(3)}\n`);
  const after = await cache.get(file);
  assert.equal(after.tasks.length, 4);
  assert.equal(after.tasks[3]?.line, 3);
  assert.equal(cache.builds, 2);
});

test('counts invalid lines as the diagnostics do: broken JSON, schema errors and duplicate ids; blank lines are not counted', async () => {
  const dir = scratch();
  const file = join(dir, 'mixed.jsonl');
  const noImage = JSON.stringify({ task_id: 'no-image', sandbox: { workdir: '/testbed' } });
  const local = JSON.stringify({
    task_id: 'local',
    sandbox: { workdir: '/repo', backend: 'local', local_repo: '../repo', r2e_ds_json: 'instances/local.json' },
  });
  writeFileSync(file, ['\ufeff' + taskLine(0), '', '{"task_id": broken', taskLine(0), noImage, local, '   ', taskLine(1)].join('\r\n'));
  const index = await new TaskIndexCache().get(file);
  assert.deepEqual(
    index.tasks.map((t) => `${t.line}:${t.taskId}`),
    ['0:task-00000', '5:local', '7:task-00001'],
  );
  assert.equal(index.invalid, 3, 'the broken line, the duplicate id and the task without an image');
  assert.equal(index.tasks.length, (await validateJsonlFile(file)).summary.tasks, 'the same count as the diagnostics from disk');
  assert.deepEqual(index.tasks[1], {
    taskId: 'local',
    line: 5,
    title: null,
    repo: null,
    image: null,
    localRepo: '../repo',
    instance: 'instances/local.json',
    certification: null,
    source: { backend: 'local', local_repo: '../repo' },
  });
});

test('a file that is not text is one invalid line, and a file that cannot be read rejects', async () => {
  const dir = scratch();
  const binary = join(dir, 'binary.jsonl');
  writeFileSync(binary, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131) % 256)));
  const cache = new TaskIndexCache();
  assert.deepEqual({ tasks: (await cache.get(binary)).tasks.length, invalid: (await cache.get(binary)).invalid }, { tasks: 0, invalid: 1 });
  await assert.rejects(cache.page(join(dir, 'missing.jsonl'), 0, 10, null), /ENOENT/);
});

test('a legacy flat row is normalised before its fields are read', async () => {
  const file = join(scratch(), 'legacy.jsonl');
  writeFileSync(
    file,
    `${JSON.stringify({ task_id: 'old', docker_image: 'graph-planner/repoenv-sample:latest', repo: 'a/b', instance: { commands: ['pytest -k failing'] } })}\n`,
  );
  const index = await new TaskIndexCache().get(file);
  assert.deepEqual(
    index.tasks.map((t) => [t.taskId, t.image, t.repo]),
    [['old', 'graph-planner/repoenv-sample:latest', 'a/b']],
  );
});
