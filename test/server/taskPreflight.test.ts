/**
 * The preflight of a launch's tasks through the language server (protocol/taskPreflight.ts): which
 * tasks cannot run on the chosen backend, with the sandbox's own reasons, and the same answer on
 * each Tasks view row. The Docker engine is a double holding one image, so the docker answers do
 * not depend on this machine; the local answers read real folders.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TaskPageResult, TaskPreflightResult } from '../../server/src/protocol/index.js';
import type { DockerEngineView } from '../../server/src/sandbox/index.js';
import { engineServices, startHarness, type Harness } from '../support/lspHarness.js';

let root: string;
let h: Harness;
let file: string;
let engineUp = true;

const held = new Set(['graph-planner/repoenv-sample:latest']);
const engine = (): DockerEngineView => ({
  reach: () =>
    Promise.resolve(
      engineUp
        ? { ok: true, where: 'unix:///test.sock', hasImage: (image: string) => Promise.resolve(held.has(image)) }
        : { ok: false, where: 'unix:///test.sock', cause: 'connect ENOENT' },
    ),
});

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'gp-task-preflight-'));
  mkdirSync(join(root, 'datasets'), { recursive: true });
  mkdirSync(join(root, 'repo'));
  file = join(root, 'datasets', 'swe.jsonl');
  const rows = [
    // Runs anywhere: its image is held and its repository is here.
    {
      task_id: 'both',
      sandbox: { docker_image: 'graph-planner/repoenv-sample:latest', local_repo: '../repo', workdir: '/testbed' },
      issue: { title: 'calc.add returns the wrong result' },
    },
    // A SWE-bench row with no local_repo: the local backend cannot run it, and the engine lacks its image.
    {
      task_id: 'swe-only-image',
      sandbox: { docker_image: 'sweb.eval.x86_64.django__django-1:latest', workdir: '/testbed' },
      issue: { body: '\n  QuerySet.union() drops ordering\x1b[31m\nmore text' },
    },
    // A local repository that is not on this machine.
    { task_id: 'gone-repo', sandbox: { local_repo: '../missing', workdir: '/repo', backend: 'local' } },
  ];
  writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  h = await startHarness({}, root, { ...engineServices(), dockerEngine: engine });
});
after(async () => {
  await h.close();
  rmSync(root, { recursive: true, force: true });
});

const preflight = (backend: 'auto' | 'docker' | 'local' | null, tasks: string[] = []) =>
  h.client.sendRequest('graphPlanner/tasks/preflight', { taskFiles: [file], tasks, backend }) as Promise<TaskPreflightResult>;

test('on the local backend, a task without local_repo and one whose repository is gone are named with their lines and reasons', async () => {
  const result = await preflight('local');
  assert.equal(result.total, 3);
  assert.deepEqual(
    result.blocked.map((b) => [b.taskId, b.line, b.readiness.backend, b.readiness.problem?.code]),
    [
      ['swe-only-image', 1, 'local', 'no-local-repo'],
      ['gone-repo', 2, 'local', 'local-repo-missing'],
    ],
  );
  assert.match(result.blocked[0]?.readiness.problem?.reason ?? '', /has no local_repo, so the local backend cannot run it/);
  assert.match(result.blocked[1]?.readiness.problem?.reason ?? '', /local_repo .*missing of task gone-repo is not a folder on this machine/);
});

test('on the docker backend, a task whose image the engine lacks and one with no image are named; a held image runs', async () => {
  const result = await preflight('docker');
  assert.deepEqual(
    result.blocked.map((b) => [b.taskId, b.readiness.problem?.code, b.readiness.imagePresent]),
    [
      ['swe-only-image', 'image-missing', false],
      ['gone-repo', 'no-image', null],
    ],
  );
  assert.match(result.blocked[0]?.readiness.problem?.reason ?? '', /Image sweb\.eval\.x86_64\.django__django-1:latest is not on this Docker engine/);
});

test('auto decides as a sandbox does: without an engine, a task with a local copy falls back to it and one without cannot run', async () => {
  engineUp = false;
  try {
    const result = await preflight('auto', ['both', 'swe-only-image']);
    assert.equal(result.total, 2);
    assert.deepEqual(
      result.blocked.map((b) => [b.taskId, b.readiness.backend, b.readiness.problem?.code]),
      [['swe-only-image', 'docker', 'daemon-unreachable']],
    );
    assert.match(result.blocked[0]?.readiness.problem?.reason ?? '', /Docker daemon not reachable at unix:\/\/\/test\.sock/);
  } finally {
    engineUp = true;
  }
});

test('a file that cannot be read is a problem, not a crash', async () => {
  const result = (await h.client.sendRequest('graphPlanner/tasks/preflight', {
    taskFiles: [join(root, 'none.jsonl')],
    tasks: [],
    backend: null,
  })) as TaskPreflightResult;
  assert.equal(result.total, 0);
  assert.equal(result.problems.length, 1);
  assert.match(result.problems[0] ?? '', /none\.jsonl cannot be read/);
});

test('each Tasks view row carries the issue title on one line and the same readiness with its own backend', async () => {
  const page = (await h.client.sendRequest('graphPlanner/tasks/page', { path: file, offset: 0, limit: 10, filter: null })) as TaskPageResult;
  const rows = Object.fromEntries(page.tasks.map((t) => [t.taskId, t]));
  assert.equal(rows['both']?.title, 'calc.add returns the wrong result');
  assert.deepEqual(rows['both']?.readiness, { backend: 'docker', imagePresent: true, problem: null });
  // The first non-blank line of the body, its escape shown as text, never sent to a terminal.
  assert.equal(rows['swe-only-image']?.title, 'QuerySet.union() drops ordering\\x1b[31m');
  assert.equal(rows['swe-only-image']?.readiness.problem?.code, 'image-missing');
  assert.equal(rows['gone-repo']?.title, null);
  assert.equal(rows['gone-repo']?.readiness.problem?.code, 'local-repo-missing');
});
