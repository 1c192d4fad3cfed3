/**
 * The grader-surface rule's wiring, for real: its facts command answers inside a container (the
 * sample image's Python and pytest) and in a local working copy; `gp task test --patch` refuses a
 * root `conftest.py` and an edit of a unittest-style task's test file as an episode would (nothing
 * applied, nothing earned, the path and rule named), and `--allow-protected` grades it anyway and
 * says so.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { openSandbox, sandboxSpecForTask } from '../../server/src/sandbox/index.js';
import { loadTasks } from '../../server/src/tasks/loadTasks.js';
import { GraderFactsCache, graderFindingsOfPatch, graderTaskSurface } from '../../server/src/testing/index.js';
import { taskVerdictSchema } from '../../server/src/protocol/verify.js';
import { git, runGp, type GpResult } from '../support/cli.js';

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
const conftest = patchFile(
  'conftest.diff',
  'diff --git a/conftest.py b/conftest.py\nnew file mode 100644\n--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1,5 @@\n+import pytest\n+@pytest.hookimpl(hookwrapper=True)\n+def pytest_runtest_makereport(item, call):\n+    outcome = yield\n+    outcome.get_result().outcome = "passed"\n',
);

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
      const found = graderFindingsOfPatch(
        'diff --git a/pytest.py b/pytest.py\nnew file mode 100644\n--- /dev/null\n+++ b/pytest.py\n@@ -0,0 +1 @@\n+x = 1\n',
        graderTaskSurface(task),
        facts,
      );
      assert.equal(found[0]?.rule, 'shadow');
      assert.doesNotMatch(found[0]?.reason ?? '', /shipped/);
    } finally {
      await sandbox.close();
    }
  });
}

test('gp task test --patch refuses a root conftest.py: nothing is applied or earned, and the output says which path, why and what to do', async () => {
  const r = await gp(
    'task',
    'test',
    'datasets/sample/tasks.jsonl',
    '--task',
    'sample-calc-add',
    '--backend',
    'local',
    '--patch',
    conftest,
    '--run-dir',
    join(dir, 'refused'),
  );
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.match(r.out, /refused: the patch changes what the grader reads/);
  assert.match(r.out, /conftest\.py \(runner-config\): pytest loads every conftest\.py/);
  assert.match(r.out, /--allow-protected/);
  assert.doesNotMatch(r.out, /RESOLVED/);
  assert.match(r.out, /0 tasks passed, 1 not/);
});

test("gp task test --patch refuses an edit of a unittest-style task's test file", async () => {
  const edit = patchFile('unittest.diff', 'diff --git a/tests/test_calc_unittest.py b/tests/test_calc_unittest.py\nold mode 100644\nnew mode 100755\n');
  const r = await gp(
    'task',
    'test',
    'datasets/sample/tasks.jsonl',
    '--task',
    'sample-calc-add-unittest',
    '--backend',
    'local',
    '--patch',
    edit,
    '--json',
    '--run-dir',
    join(dir, 'unittest'),
  );
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  const line = JSON.parse(r.out.split('\n').find((l) => l.startsWith('{')) ?? '{}') as {
    refused?: boolean;
    protected_paths?: Array<{ path: string; rule: string }>;
  };
  assert.equal(line.refused, true);
  assert.deepEqual(
    line.protected_paths?.map((f) => `${f.path} ${f.rule}`),
    ['tests/test_calc_unittest.py task-tests'],
  );
});

test('--allow-protected grades a patch that changes a protected file and names the paths it was allowed', async () => {
  const fixAndIni = patchFile(
    'allowed.diff',
    '--- a/app/calc.py\n+++ b/app/calc.py\n@@ -6 +6 @@\n-    return lhs - rhs\n+    return lhs + rhs\ndiff --git a/pytest.ini b/pytest.ini\nnew file mode 100644\n--- /dev/null\n+++ b/pytest.ini\n@@ -0,0 +1,2 @@\n+[pytest]\n+addopts = -q\n',
  );
  const r = await gp(
    'task',
    'test',
    'datasets/sample/tasks.jsonl',
    '--task',
    'sample-calc-add',
    '--backend',
    'local',
    '--patch',
    fixAndIni,
    '--allow-protected',
    '--run-dir',
    join(dir, 'allowed'),
  );
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /allowed protected paths \(--allow-protected\): pytest\.ini \(runner-config\)/);
  assert.match(r.out, /RESOLVED_FULL/);
});

test('gp dataset verify reports a gold patch that changes a protected path, and --allow-protected certifies it with the paths noted', async () => {
  const root = join(dir, 'verify');
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'tests'), { recursive: true });
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(
    join(repo, 'tests', 'test_calc.py'),
    'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
  );
  git(repo, 'init', '-q');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'base');
  const base = git(repo, 'rev-parse', 'HEAD');
  const gold =
    '--- a/calc.py\n+++ b/calc.py\n@@ -2 +2 @@\n-    return a - b\n+    return a + b\ndiff --git a/tox.ini b/tox.ini\nnew file mode 100644\n--- /dev/null\n+++ b/tox.ini\n@@ -0,0 +1,2 @@\n+[pytest]\n+addopts = -p no:cacheprovider\n';
  const data = join(root, 'data');
  mkdirSync(data);
  const dataset = join(data, 'tasks.jsonl');
  const sandbox = { workdir: '/testbed', backend: 'local', local_repo: '../repo', base_commit: base, test_command: 'python3 -m pytest -rA tests/test_calc.py' };
  writeFileSync(
    dataset,
    `${JSON.stringify({ task_id: 'tox', issue: { title: 't', body: '' }, FAIL_TO_PASS: ['tests/test_calc.py::test_add'], PASS_TO_PASS: ['tests/test_calc.py::test_zero'], sandbox })}\n`,
  );
  writeFileSync(join(data, 'gold_predictions_tasks.jsonl'), `${JSON.stringify({ instance_id: 'tox', model_name_or_path: 'gold', model_patch: gold })}\n`);
  const refused = await runGp(root, ['dataset', 'verify', dataset, '--run-dir', join(root, 'run1')]);
  assert.equal(refused.code, 1, `${refused.out}\n${refused.err}`);
  assert.match(refused.out, /tox \(line 1\): gold-protected: the gold patch changes what the grader reads: tox\.ini \(runner-config\)/);
  assert.match(refused.out, /--allow-protected/);
  const verdict = taskVerdictSchema.parse(JSON.parse(readFileSync(join(root, 'run1', 'verdicts.jsonl'), 'utf8').trim()));
  assert.deepEqual(verdict.runs, [], 'nothing was graded');
  const allowed = await runGp(root, ['dataset', 'verify', dataset, '--allow-protected', '--run-dir', join(root, 'run2')]);
  assert.equal(allowed.code, 0, `${allowed.out}\n${allowed.err}`);
  assert.match(allowed.out, /tox \(line 1\): certified .*\(allowed protected paths: tox\.ini\)/);
  const certified = taskVerdictSchema.parse(JSON.parse(readFileSync(join(root, 'run2', 'verdicts.jsonl'), 'utf8').trim()));
  assert.deepEqual(
    certified.protected_paths?.map((f) => f.path),
    ['tox.ini'],
  );
});
