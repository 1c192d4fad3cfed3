import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTasks } from '../../server/src/tasks/index.js';

test('loadTasks returns the valid rows and names each bad row by line and column', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-load-'));
  const file = join(dir, 'tasks.jsonl');
  const good = { task_id: 'a', sandbox: { docker_image: 'img', workdir: '/testbed' } };
  writeFileSync(
    file,
    [JSON.stringify(good), '{"task_id": "b", "sandbox": ', '', JSON.stringify({ task_id: 'c' }), '[1, 2]', JSON.stringify({ ...good, task_id: 'd' })].join(
      '\n',
    ),
  );
  const loaded = await loadTasks(file);
  assert.deepEqual(
    loaded.tasks.map((t) => [t.task.task_id, t.line]),
    [
      ['a', 1],
      ['d', 6],
    ],
  );
  assert.equal(loaded.problems.length, 3);
  assert.match(loaded.problems[0] ?? '', new RegExp(`^${file}:2:\\d+ invalid JSON`));
  assert.match(loaded.problems[1] ?? '', new RegExp(`^${file}:4:1 sandbox: `));
  assert.match(loaded.problems[2] ?? '', new RegExp(`^${file}:5:1 `));
});

test('loadTasks normalises the original flat shape', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-load-'));
  const file = join(dir, 'legacy.jsonl');
  writeFileSync(file, `${JSON.stringify({ task_id: 'x', docker_image: 'img', instance: { mounts: [], env: {} } })}\n`);
  const loaded = await loadTasks(file);
  assert.deepEqual(loaded.problems, []);
  assert.equal(loaded.tasks[0]?.task.sandbox.docker_image, 'img');
});

test('loadTasks reads a .json file with a list of tasks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-load-'));
  const file = join(dir, 'tasks.json');
  writeFileSync(
    file,
    JSON.stringify(
      [
        { task_id: 'a', sandbox: { local_repo: '.', workdir: '/w' } },
        { task_id: 'b', sandbox: { local_repo: '.', workdir: '/w' } },
      ],
      null,
      2,
    ),
  );
  const loaded = await loadTasks(file);
  assert.deepEqual(
    loaded.tasks.map((t) => t.task.task_id),
    ['a', 'b'],
  );
});
