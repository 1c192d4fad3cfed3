/**
 * `gp task test` end to end: the sample dataset's tasks in real containers (and on the local
 * backend), with and without a fix, and the files a run leaves behind.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { runGp, type GpResult } from '../support/cli.js';
import { swebenchReportSchema, testRunRecordSchema } from '../../server/src/protocol/index.js';
import { runLayout } from '../../server/src/runs/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-task-test-'));
const fix = join(dir, 'fix.diff');
// A zero-context hunk, as `diff -U0` writes it; the sandbox accepts it.
writeFileSync(fix, '--- a/app/calc.py\n+++ b/app/calc.py\n@@ -6 +6 @@\n-    return lhs - rhs\n+    return lhs + rhs\n');
const wrong = join(dir, 'wrong.diff');
writeFileSync(wrong, '--- a/app/calc.py\n+++ b/app/calc.py\n@@ -6 +6 @@\n-    return lhs / rhs\n+    return lhs + rhs\n');

function gp(...args: string[]): Promise<GpResult> {
  return runGp(process.cwd(), args);
}

function records(runDir: string) {
  return readFileSync(runLayout(runDir).testRuns, 'utf8')
    .trim()
    .split('\n')
    .map((l) => testRunRecordSchema.parse(JSON.parse(l)));
}

after(async () => {
  rmSync(dir, { recursive: true, force: true });
  const left = await new Docker().listContainers({ all: true, filters: { label: ['graph-planner.task=sample-calc-add'] } });
  assert.deepEqual(left, [], 'gp task test left containers behind');
});

test('grades the unfixed sample task as not resolved, test by test, in a container', async () => {
  const runDir = join(dir, 'unfixed');
  const r = await gp('task', 'test', 'datasets/sample/tasks.jsonl', '--task', 'sample-calc-add', '--backend', 'docker', '--run-dir', runDir);
  assert.equal(r.code, 1, r.err);
  assert.match(r.out, /FAILED +tests\/test_calc.py::test_addition/);
  assert.match(r.out, /PASSED +tests\/test_calc.py::test_multiplication/);
  assert.match(r.out, /RESOLVED_NO: FAIL_TO_PASS 0\/1 pass/);
  const [record] = records(runDir);
  assert.equal(record?.backend, 'docker');
  assert.equal(record?.grade.kind === 'swebench' && record.grade.report.resolved, false);
});

test('resolves both sample tasks (pytest and unittest) with the fix, and writes report.json', async () => {
  const runDir = join(dir, 'fixed');
  const r = await gp(
    'task',
    'test',
    'datasets/sample/tasks.jsonl',
    '--task',
    'sample-calc-add',
    '--task',
    'sample-calc-add-unittest',
    '--patch',
    fix,
    '--run-dir',
    runDir,
  );
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /2 tasks passed, 0 not/);
  const report = swebenchReportSchema.parse(
    JSON.parse(readFileSync(runLayout(runDir).resolve(runLayout(runDir).instanceReportRelative('sample-calc-add-unittest')), 'utf8')),
  );
  assert.deepEqual(report['sample-calc-add-unittest']?.tests_status?.FAIL_TO_PASS.success, ['test_add (tests.test_calc_unittest.CalcTest.test_add)']);
  assert.equal(records(runDir).length, 2);
});

test('a patch that does not apply is reported, graded unapplied, and runs no tests', async () => {
  const runDir = join(dir, 'wrong');
  const r = await gp('task', 'test', 'datasets/sample/tasks.jsonl', '--task', 'sample-calc-add', '--patch', wrong, '--run-dir', runDir);
  assert.equal(r.code, 1);
  assert.match(r.out, /patch: The patch does not apply: app\/calc.py:6\. Nothing was changed\./);
  const report = swebenchReportSchema.parse(
    JSON.parse(readFileSync(runLayout(runDir).resolve(runLayout(runDir).instanceReportRelative('sample-calc-add')), 'utf8')),
  );
  assert.deepEqual(report['sample-calc-add'], { patch_is_None: false, patch_exists: true, patch_successfully_applied: false, resolved: false });
});

test('runs the same task on the local backend', async () => {
  const runDir = join(dir, 'local');
  const r = await gp('task', 'test', 'datasets/sample/tasks.jsonl', '--task', 'sample-calc-add', '--backend', 'local', '--patch', fix, '--run-dir', runDir);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.equal(records(runDir)[0]?.backend, 'local');
  assert.match(r.out, /^backend: local$/m);
});

test('auto without a reachable daemon runs locally, says why once, and records the reason', async () => {
  const runDir = join(dir, 'auto-fallback');
  const saved = process.env['DOCKER_HOST'];
  process.env['DOCKER_HOST'] = 'unix:///nonexistent/docker.sock';
  let r;
  try {
    r = await gp(
      'task',
      'test',
      'datasets/sample/tasks.jsonl',
      '--task',
      'sample-calc-add',
      '--task',
      'sample-calc-add-unittest',
      '--backend',
      'auto',
      '--patch',
      fix,
      '--run-dir',
      runDir,
    );
  } finally {
    if (saved === undefined) delete process.env['DOCKER_HOST'];
    else process.env['DOCKER_HOST'] = saved;
  }
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.equal(r.err.match(/auto fell back: no Docker daemon at unix:\/\/\/nonexistent\/docker\.sock/g)?.length, 1, r.err);
  assert.match(
    r.out,
    /^backend: local \(auto fell back: no Docker daemon at unix:\/\/\/nonexistent\/docker\.sock .*; commands run on this host without a container/m,
  );
  assert.deepEqual(
    records(runDir).map((t) => [t.backend, t.backendFallback?.code]),
    [
      ['local', 'daemon-unreachable'],
      ['local', 'daemon-unreachable'],
    ],
  );
});

test('usage errors name the problem and exit 2', async () => {
  assert.equal((await gp('task', 'test', 'datasets/sample/tasks.jsonl', '--task', 'nope')).code, 2);
  const bad = await gp('task', 'test', 'datasets/sample/tasks.jsonl', '--backend', 'kubernetes');
  assert.equal(bad.code, 2);
  // --backend is an override of sandbox.backend, so the schema names the allowed values and the flag.
  assert.match(bad.err, /--backend kubernetes: error schema\/enum sandbox\.backend must be one of "auto", "docker", "local"/);
  assert.match(bad.err, /no task was run/);
  assert.equal((await gp('task', 'test')).code, 2);
});
