/**
 * The grader-surface rule's wiring, for real: its facts command answers inside a container (the
 * sample image's Python and pytest) and in a local working copy; `gp task test --patch` refuses a
 * root `conftest.py` and an edit of a unittest-style task's test file as an episode would (nothing
 * applied, nothing earned, the path and rule named), and `--allow-protected` grades it anyway and
 * says so.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { openSandbox, sandboxSpecForTask } from '../../server/src/sandbox/index.js';
import { loadTasks } from '../../server/src/tasks/loadTasks.js';
import { GraderFactsCache, graderFindingsOfPatch, graderTaskSurface } from '../../server/src/testing/index.js';
import { runGp, type GpResult } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-grader-surface-'));
const run = `grader-surface-${process.pid}`;
after(() => rmSync(dir, { recursive: true, force: true }));

function gp(...args: string[]): Promise<GpResult> {
  return runGp(process.cwd(), args);
}

function patchFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

// A root conftest.py that reports every test as passed: the hostile patch of issue 36.
const conftest = patchFile('conftest.diff', 'diff --git a/conftest.py b/conftest.py\nnew file mode 100644\n--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1,5 @@\n+import pytest\n+@pytest.hookimpl(hookwrapper=True)\n+def pytest_runtest_makereport(item, call):\n+    outcome = yield\n+    outcome.get_result().outcome = "passed"\n');

async function sampleTask(id: string) {
  const loaded = await loadTasks(resolve('datasets/sample/tasks.jsonl'));
  const found = loaded.tasks.find((t) => t.task.task_id === id)?.task;
  assert.ok(found, id);
  return found;
}

for (const backend of ['docker', 'local'] as const) {
  test(`the facts command answers from the task's environment on the ${backend} backend`, async () => {
    const task = await sampleTask('sample-calc-add');
    const sandbox = await openSandbox(sandboxSpecForTask(task, { ...defaultSandboxOptions(), backend, run, baseDir: resolve('datasets/sample') }));
    try {
      const cache = new GraderFactsCache();
      const facts = await cache.factsFor(sandbox);
      assert.ok(facts.environment, facts.why);
      assert.match(facts.environment.python, /^3\.\d+\.\d+$/);
      assert.ok(facts.environment.stdlib.includes('json') && facts.environment.stdlib.includes('unittest'));
      assert.ok(facts.environment.installed.includes('pytest'), 'pytest is installed where the tests run');
      assert.ok(facts.environment.pytest?.config_names.includes('pytest.ini'), JSON.stringify(facts.environment.pytest));
      assert.ok(facts.baseFiles?.has('app/calc.py') && facts.baseFiles.has('tests/test_calc.py'));
      // The environment's names decide: the installed pytest shadowed at the root is found, with its reason.
      const found = graderFindingsOfPatch('diff --git a/pytest.py b/pytest.py\nnew file mode 100644\n--- /dev/null\n+++ b/pytest.py\n@@ -0,0 +1 @@\n+x = 1\n', graderTaskSurface(task), facts);
      assert.equal(found[0]?.rule, 'shadow');
      assert.doesNotMatch(found[0]?.reason ?? '', /shipped/);
    } finally {
      await sandbox.close();
    }
  });
}

test('gp task test --patch refuses a root conftest.py: nothing is applied or earned, and the output says which path, why and what to do', async () => {
  const r = await gp('task', 'test', 'datasets/sample/tasks.jsonl', '--task', 'sample-calc-add', '--backend', 'local', '--patch', conftest, '--run-dir', join(dir, 'refused'));
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.match(r.out, /refused: the patch changes what the grader reads/);
  assert.match(r.out, /conftest\.py \(runner-config\): pytest loads every conftest\.py/);
  assert.match(r.out, /--allow-protected/);
  assert.doesNotMatch(r.out, /RESOLVED/);
  assert.match(r.out, /0 tasks passed, 1 not/);
});

test('gp task test --patch refuses an edit of a unittest-style task\'s test file', async () => {
  const edit = patchFile('unittest.diff', 'diff --git a/tests/test_calc_unittest.py b/tests/test_calc_unittest.py\nold mode 100644\nnew mode 100755\n');
  const r = await gp('task', 'test', 'datasets/sample/tasks.jsonl', '--task', 'sample-calc-add-unittest', '--backend', 'local', '--patch', edit, '--json', '--run-dir', join(dir, 'unittest'));
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  const line = JSON.parse(r.out.split('\n').find((l) => l.startsWith('{')) ?? '{}') as { refused?: boolean; protected_paths?: Array<{ path: string; rule: string }> };
  assert.equal(line.refused, true);
  assert.deepEqual(line.protected_paths?.map((f) => `${f.path} ${f.rule}`), ['tests/test_calc_unittest.py task-tests']);
});

test('--allow-protected grades a patch that changes a protected file and names the paths it was allowed', async () => {
  const fixAndIni = patchFile('allowed.diff', '--- a/app/calc.py\n+++ b/app/calc.py\n@@ -6 +6 @@\n-    return lhs - rhs\n+    return lhs + rhs\ndiff --git a/pytest.ini b/pytest.ini\nnew file mode 100644\n--- /dev/null\n+++ b/pytest.ini\n@@ -0,0 +1,2 @@\n+[pytest]\n+addopts = -q\n');
  const r = await gp('task', 'test', 'datasets/sample/tasks.jsonl', '--task', 'sample-calc-add', '--backend', 'local', '--patch', fixAndIni, '--allow-protected', '--run-dir', join(dir, 'allowed'));
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /allowed protected paths \(--allow-protected\): pytest\.ini \(runner-config\)/);
  assert.match(r.out, /RESOLVED_FULL/);
});
