import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TaskFilesResult, TaskPageResult } from '../../server/src/protocol/index.js';
import { engineServices, startHarness, type Harness } from '../support/lspHarness.js';
import { taskLine, writeTaskFile } from '../support/taskFiles.js';

let root: string;
let h: Harness;
let big: string;
let small: string;
let certified: string;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'gp-tasks-view-'));
  mkdirSync(join(root, 'datasets', 'instances'), { recursive: true });
  big = join(root, 'datasets', 'big.jsonl');
  writeTaskFile(big, { tasks: 5000, brokenLines: [10, 20] });
  small = join(root, 'datasets', 'small.jsonl');
  const local = { task_id: 'local-one', sandbox: { workdir: '/repo', backend: 'local', local_repo: '../repo', r2e_ds_json: 'instances/local-one.json' } };
  const gone = { task_id: 'gone-instance', sandbox: { docker_image: 'img:1', workdir: '/testbed', r2e_ds_json: 'instances/none.json' } };
  writeFileSync(small, [JSON.stringify(local), JSON.stringify(gone)].join('\n'));
  writeFileSync(join(root, 'datasets', 'instances', 'local-one.json'), '{}');
  // JSONL outside the dataset globs: not listed.
  writeFileSync(join(root, 'notes.jsonl'), `${taskLine(1)}\n`);
  // A run under the default run root, outputs/, with an outcome for two tasks.
  const run = join(root, 'outputs', 'run-1');
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'resolved_config.yaml'), 'agent: rule\n');
  const end = (task: string, resolved: boolean, reason: string) =>
    JSON.stringify({
      ts: '2026-11-01T10:00:00.000Z',
      kind: 'episode-end',
      episode_id: `${task}#0`,
      task_id: task,
      resolved,
      steps: 2,
      total_reward: 0,
      termination_reason: reason,
      duration_ms: 5,
    });
  writeFileSync(join(run, 'events.jsonl'), `${end('task-00001', true, 'submitted')}\n${end('local-one', false, 'error')}\n`);
  // A verification of small.jsonl that found a flaky test, as `gp dataset verify` leaves it.
  const verification = join(root, 'outputs', 'verify-1');
  mkdirSync(verification, { recursive: true });
  writeFileSync(
    join(verification, 'status.json'),
    JSON.stringify({
      state: 'finished',
      command: 'gp dataset verify datasets/small.jsonl',
      pid: 1,
      host: 'elsewhere',
      started_at: '2026-11-01T11:00:00.000Z',
      episodes: { total: 2, finished: 1, resolved: 1, errored: 0 },
    }),
  );
  writeFileSync(
    join(verification, 'events.jsonl'),
    `${JSON.stringify({ ts: '2026-11-01T11:00:00.000Z', kind: 'run-start', command: 'gp dataset verify datasets/small.jsonl', total: 2, resumed: 0, dataset: small })}\n`,
  );
  const flaky = {
    kind: 'verdict',
    task_id: 'local-one',
    line: 1,
    status: 'flaky',
    reason: 'tests changed outcome between identical runs',
    flaky: ['tests/test_a.py::test_clock'],
    failing: [],
    passing_without_fix: [],
    repeats: 3,
    runs: [],
    started_at: '2026-11-01T11:00:01.000Z',
    duration_ms: 3000,
  };
  writeFileSync(join(verification, 'verdicts.jsonl'), `${JSON.stringify(flaky)}\n`);
  // A certified dataset's row carries its own certification.
  certified = join(root, 'datasets', 'certified.jsonl');
  const certification = { status: 'certified', run: '../outputs/verify-0', verified_at: '2026-10-01T09:00:00.000Z', repeats: 2, removed_flaky: [] };
  writeFileSync(certified, `${JSON.stringify({ ...JSON.parse(taskLine(3)), certification })}\n`);
  // An engine that answers and holds no image, so each row's readiness is the same on every machine.
  h = await startHarness({}, root, {
    ...engineServices(),
    dockerEngine: () => ({ reach: () => Promise.resolve({ ok: true, where: 'unix:///test.sock', hasImage: () => Promise.resolve(false) }) }),
  });
});
after(async () => {
  await h.close();
  rmSync(root, { recursive: true, force: true });
});

const files = () => h.client.sendRequest('graphPlanner/tasks/files', {}) as Promise<TaskFilesResult>;
const page = (path: string, offset: number, limit: number, filter: string | null = null) =>
  h.client.sendRequest('graphPlanner/tasks/page', { path, offset, limit, filter }) as Promise<TaskPageResult>;

test('lists the dataset files the globs match, with their task and invalid line counts', async () => {
  const { files: listed } = await files();
  assert.deepEqual(listed, [
    { path: big, tasks: 4998, invalid: 2 },
    { path: certified, tasks: 1, invalid: 0 },
    { path: small, tasks: 2, invalid: 0 },
  ]);
});

test('pages through a 5,000-task file with each task outcome, its line and its instance file', async () => {
  const first = await page(big, 0, 500);
  assert.equal(first.tasks.length, 500);
  assert.equal(first.matching, 4998);
  assert.equal(first.next, 500);
  assert.deepEqual(first.tasks[1], {
    taskId: 'task-00001',
    line: 1,
    repo: 'org-1/repo-1',
    image: 'sweb.eval.x86_64.task-00001:latest',
    localRepo: null,
    instanceFile: null,
    outcome: 'resolved',
    outcomeRun: join(root, 'outputs', 'run-1'),
    certification: null,
    title: 'Task 1 fails on empty input',
    // The engine double holds no image (the preflight's own answers are test/server/taskPreflight.test.ts's).
    readiness: {
      backend: 'docker',
      imagePresent: false,
      problem: {
        code: 'image-missing',
        reason:
          'Image sweb.eval.x86_64.task-00001:latest is not on this Docker engine. Build it with `gp images build` (the sample images) or pull it with `gp images prepull --manifest FILE` (or `gp images prepull sweb.eval.x86_64.task-00001:latest`).',
      },
    },
  });
  assert.equal(first.tasks[0]?.outcome, 'never');
  assert.equal(first.tasks[10]?.line, 11, 'the broken line 10 is skipped and lines keep their numbers');
  const last = await page(big, 4500, 500);
  assert.equal(last.tasks.length, 498);
  assert.equal(last.next, null);

  const { tasks } = await page(small, 0, 50);
  assert.deepEqual(
    tasks.map((t) => [t.taskId, t.localRepo, t.instanceFile, t.outcome]),
    [
      ['local-one', '../repo', join(root, 'datasets', 'instances', 'local-one.json'), 'error'],
      ['gone-instance', null, null, 'never'],
    ],
  );
});

test('each task carries its certification: the verdict of a verification of its file, or its row’s own', async () => {
  const { tasks } = await page(small, 0, 50);
  assert.deepEqual(tasks[0]?.certification, {
    status: 'flaky',
    source: 'verification',
    reason: 'tests changed outcome between identical runs',
    flaky: ['tests/test_a.py::test_clock'],
    failing: [],
    passingWithoutFix: [],
    repeats: 3,
    run: join(root, 'outputs', 'verify-1'),
    at: '2026-11-01T11:00:01.000Z',
    running: false,
  });
  assert.equal(tasks[1]?.certification, null, 'not verified');
  const row = (await page(certified, 0, 10)).tasks[0];
  assert.equal(row?.certification?.source, 'row');
  assert.equal(row?.certification?.status, 'certified');
  assert.equal(row?.certification?.run, '../outputs/verify-0');
  assert.equal(
    (await page(big, 0, 5)).tasks.every((t) => t.certification === null),
    true,
    'a verification of another file says nothing of these tasks',
  );
});

test('a verdict appended to a verification shows on the next page', async () => {
  const verdicts = join(root, 'outputs', 'verify-1', 'verdicts.jsonl');
  const goldFails = {
    kind: 'verdict',
    task_id: 'gone-instance',
    line: 2,
    status: 'gold-fails',
    reason: 'the gold patch leaves 1 test failing',
    flaky: [],
    failing: ['tests/test_b.py::test_x'],
    passing_without_fix: [],
    repeats: 3,
    runs: [],
    started_at: '2026-11-01T11:00:05.000Z',
    duration_ms: 3000,
  };
  appendFileSync(verdicts, `${JSON.stringify(goldFails)}\n`);
  // Outcomes and certifications read within the last two seconds are reused by a page; a file listing reads them again.
  await files();
  const { tasks } = await page(small, 0, 50);
  assert.equal(tasks[1]?.certification?.status, 'gold-fails');
  assert.deepEqual(tasks[1]?.certification?.failing, ['tests/test_b.py::test_x']);
});

test('filters a page by id or repository', async () => {
  const filtered = await page(big, 0, 500, 'task-0001');
  // task-00010 to task-00019, less the broken line 10.
  assert.equal(filtered.matching, 9);
  assert.deepEqual(
    filtered.tasks.slice(0, 2).map((t) => t.taskId),
    ['task-00011', 'task-00012'],
  );
  assert.equal((await page(big, 0, 500, 'ORG-6/REPO-12')).matching, 54, 'tasks i with i % 7 = 6 and i % 13 = 12, in any case');
});

test('answers an unreadable file or invalid parameters with an error, and goes on answering', async () => {
  await assert.rejects(page(join(root, 'datasets', 'missing.jsonl'), 0, 10), /Cannot read the tasks of .*missing\.jsonl/);
  await assert.rejects(h.client.sendRequest('graphPlanner/tasks/page', { path: big, offset: -1, limit: 10, filter: null }));
  assert.equal((await page(small, 0, 1)).tasks.length, 1);
});

test('a dataset file changed on disk is pushed once as tasks/changed, and the next page reads the new file', async () => {
  writeFileSync(small, `${taskLine(7)}\n`);
  const uri = `file://${small}`;
  await h.client.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [
      { uri, type: 2 },
      { uri: `file://${big}`, type: 2 },
    ],
  });
  const changed = (await h.notification('graphPlanner/tasks/changed')) as { reason: string };
  assert.match(changed.reason, /dataset/);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(h.notifications.filter((n) => n.method === 'graphPlanner/tasks/changed').length, 1, 'one push for the burst');
  assert.deepEqual(
    (await page(small, 0, 10)).tasks.map((t) => t.taskId),
    ['task-00007'],
  );
});
