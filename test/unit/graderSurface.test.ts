/**
 * The grader-facing surface (server/src/testing/graderSurface.ts): hostile patches of every class are
 * found with their rule and reason (shadowing modules, package metadata, the runner's configuration,
 * start-up hooks, the task's own tests of every id style by edit, rename, mode change, link and
 * delete), and legitimate source-only patches are not. Patches are read with git's extended headers
 * (sandbox/patchPaths.ts `patchChanges`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EnvironmentFacts } from '../../server/src/protocol/graderSurface.js';
import { patchChanges } from '../../server/src/sandbox/index.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import {
  filesOfTestCommand,
  filesOfTestId,
  graderFindingsOfPatch,
  graderTaskSurface,
  pathRoots,
  shippedFacts,
  type GraderFacts,
  type GraderTaskSurface,
} from '../../server/src/testing/index.js';

const environment: EnvironmentFacts = {
  python: '3.11.7',
  stdlib: ['json', 'os', 'types', 'unittest', 'typing', 'string'],
  stdlib_from: 'stdlib_module_names',
  installed: ['pytest', '_pytest', 'pluggy', 'calc_helpers', 'requests', 'calc'],
  pytest: { version: '8.3.3', config_names: ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'] },
};
const base = new Set([
  'calc/__init__.py',
  'calc/core.py',
  'tests/test_calc.py',
  'tests/test_calc_unittest.py',
  'tests/helpers.py',
  'README.md',
  'setup.py',
  'docs/conf.py',
]);
const facts: GraderFacts = { environment, baseFiles: base };

const task = taskEntrySchema.parse({
  task_id: 'calc',
  sandbox: { workdir: '/testbed', local_repo: '.', test_command: 'python -m pytest -rA tests/test_calc.py' },
  FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
  PASS_TO_PASS: ['test_add (tests.test_calc_unittest.CalcTest.test_add)'],
});
const surface = graderTaskSurface(task);

const add = (path: string, body = 'x = 1') => `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+${body}\n`;
const edit = (path: string) => `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`;
const rules = (patch: string, s: GraderTaskSurface = surface, f: GraderFacts = facts) => graderFindingsOfPatch(patch, s, f).map((x) => `${x.path} ${x.rule}`);

test('reads git extended headers: renames, mode changes, links, deletions and quoted paths', () => {
  const patch = [
    'diff --git a/tests/test_calc.py b/tests/moved.py\nsimilarity index 100%\nrename from tests/test_calc.py\nrename to tests/moved.py',
    'diff --git a/tests/test_calc_unittest.py b/tests/test_calc_unittest.py\nold mode 100644\nnew mode 100755',
    'diff --git a/link.py b/link.py\nnew file mode 120000\n--- /dev/null\n+++ b/link.py\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file',
    'diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x',
    'diff --git "a/x y.py" "b/x y.py"\n--- "a/x y.py"\n+++ "b/x y.py"\n@@ -1 +1 @@\n-a\n+b',
  ].join('\n');
  assert.deepEqual(patchChanges(patch), [
    { kind: 'rename', path: 'tests/moved.py', from: 'tests/test_calc.py', link: false },
    { kind: 'modify', path: 'tests/test_calc_unittest.py', mode: '100755', link: false },
    { kind: 'add', path: 'link.py', mode: '120000', link: true },
    { kind: 'delete', path: 'gone.py', link: false },
    { kind: 'modify', path: 'x y.py', link: false },
  ]);
  // A plain unified diff with no `diff --git` line: one change per `---`/`+++` pair.
  assert.deepEqual(
    patchChanges('--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+n\n').map((c) => `${c.kind} ${c.path}`),
    ['modify a.py', 'add n.py'],
  );
});

test('a new module at a path root named like a standard or installed one is a shadow', () => {
  assert.deepEqual(rules(add('json.py')), ['json.py shadow']);
  assert.deepEqual(rules(add('pytest.py')), ['pytest.py shadow']);
  assert.deepEqual(rules(add('calc_helpers/__init__.py')), ['calc_helpers/__init__.py shadow']);
  assert.deepEqual(rules(add('types/core.py')), ['types/core.py shadow'], 'a package folder of a stdlib name');
  assert.deepEqual(rules(add('_pytest.cpython-311-x86_64-linux-gnu.so')), ['_pytest.cpython-311-x86_64-linux-gnu.so shadow'], 'an extension module');
  // The folder holding the task's tests (no __init__.py) is on the path under pytest's rootdir insertion.
  assert.deepEqual(rules(add('tests/string.py')), ['tests/string.py shadow']);
  const reason = graderFindingsOfPatch(add('json.py'), surface, facts)[0]?.reason ?? '';
  assert.match(reason, /instead of the standard library's json/);
  assert.match(graderFindingsOfPatch(add('requests.py'), surface, facts)[0]?.reason ?? '', /installed in the task's environment/);
});

test("a shadow under the task's pythonpath or a src layout is found there, and a rename into a root counts", () => {
  const srcBase = new Set(['src/calc/__init__.py', 'tests/test_calc.py']);
  assert.deepEqual(rules(add('src/json.py'), surface, { environment, baseFiles: srcBase }), ['src/json.py shadow']);
  const lib = { ...surface, pythonPath: ['lib'] };
  assert.deepEqual(rules(add('lib/os.py'), lib), ['lib/os.py shadow']);
  assert.deepEqual(pathRoots(lib, base).sort(), ['.', 'lib', 'tests']);
  assert.deepEqual(rules('diff --git a/calc/util.py b/typing.py\nsimilarity index 100%\nrename from calc/util.py\nrename to typing.py\n'), [
    'typing.py shadow',
  ]);
});

test("the repository's own top-level names and unknown names are not shadows", () => {
  // `calc` is installed (an editable install of the repository) but the repository had it at its base.
  assert.deepEqual(rules(add('calc/extra.py')), []);
  assert.deepEqual(rules(add('calc_tools.py')), []);
  assert.deepEqual(rules(add('docs/json.py')), [], 'docs/ is not on the path');
  assert.deepEqual(rules(add('json/data.txt')), [], 'a data file makes no module');
});

test('without environment facts the shipped standard-library list stands in, and the reason says so', () => {
  const found = graderFindingsOfPatch(add('json.py'), surface, shippedFacts('no Python in the sandbox answered'));
  assert.equal(found[0]?.rule, 'shadow');
  assert.match(found[0]?.reason ?? '', /shipped standard-library list: no Python in the sandbox answered/);
  // With no base listing, a module counts as new only when the patch adds it.
  assert.deepEqual(rules(edit('json.py'), surface, shippedFacts('x')), []);
});

test('package metadata anywhere is refused: egg-info, dist-info, entry points, egg-link, editable hooks, .pth', () => {
  const entry = '[pytest11]\nevil = evil_plugin';
  assert.deepEqual(rules(add('x.egg-info/entry_points.txt', entry)), ['x.egg-info/entry_points.txt package-metadata']);
  assert.deepEqual(rules(add('y.dist-info/METADATA', 'Name: y') + add('y.dist-info/entry_points.txt', entry)), [
    'y.dist-info/METADATA package-metadata',
    'y.dist-info/entry_points.txt package-metadata',
  ]);
  assert.deepEqual(rules(add('src/entry_points.txt', entry)), ['src/entry_points.txt package-metadata']);
  assert.deepEqual(rules(add('z.egg-link', '.')), ['z.egg-link package-metadata']);
  assert.deepEqual(rules(add('__editable___calc_finder.py')), ['__editable___calc_finder.py package-metadata']);
  assert.deepEqual(rules(add('deep/hook.pth', 'import evil')), ['deep/hook.pth package-metadata']);
  assert.match(graderFindingsOfPatch(add('x.egg-info/entry_points.txt', entry), surface, facts)[0]?.reason ?? '', /pytest11/);
});

test('start-up hooks are refused wherever they are', () => {
  assert.deepEqual(rules(add('sitecustomize.py')), ['sitecustomize.py startup-hook']);
  assert.deepEqual(rules(add('calc/usercustomize.py')), ['calc/usercustomize.py startup-hook']);
});

test('every configuration file the installed pytest reads is refused, in any folder, and conftest.py anywhere', () => {
  assert.deepEqual(rules(add('tests/pytest.ini', '[pytest]\naddopts = -p evil')), ['tests/pytest.ini runner-config']);
  assert.deepEqual(rules(add('.pytest.ini', '[pytest]')), ['.pytest.ini runner-config']);
  assert.deepEqual(rules(add('pyproject.toml', '[tool.pytest.ini_options]')), ['pyproject.toml runner-config']);
  assert.deepEqual(rules(edit('tox.ini')), ['tox.ini runner-config']);
  assert.deepEqual(rules(edit('setup.cfg')), ['setup.cfg runner-config']);
  assert.deepEqual(rules(add('calc/deep/er/conftest.py')), ['calc/deep/er/conftest.py runner-config']);
  assert.match(graderFindingsOfPatch(edit('tox.ini'), surface, facts)[0]?.reason ?? '', /pytest 8\.3\.3, installed in the task's environment/);
  // The names come from the environment's pytest: one that reads pytest.toml protects it; one that does not, does not.
  const nine: GraderFacts = {
    environment: { ...environment, pytest: { version: '9.0.0', config_names: ['pytest.toml', '.pytest.toml', 'pytest.ini'] } },
    baseFiles: base,
  };
  assert.deepEqual(rules(add('pytest.toml'), surface, nine), ['pytest.toml runner-config']);
  assert.deepEqual(rules(add('pytest.toml')), []);
});

test("the task's own test files are refused by edit, rename away, chmod, link and delete, whatever the id style", () => {
  assert.deepEqual(rules(edit('tests/test_calc_unittest.py')), ['tests/test_calc_unittest.py task-tests'], 'a unittest-style id');
  assert.deepEqual(
    rules('diff --git a/tests/test_calc_unittest.py b/tests/old.py\nsimilarity index 100%\nrename from tests/test_calc_unittest.py\nrename to tests/old.py\n'),
    ['tests/test_calc_unittest.py task-tests'],
  );
  assert.deepEqual(rules('diff --git a/tests/test_calc.py b/tests/test_calc.py\nold mode 100644\nnew mode 100755\n'), ['tests/test_calc.py task-tests']);
  const link =
    'diff --git a/tests/test_calc.py b/tests/test_calc.py\ndeleted file mode 100644\n--- a/tests/test_calc.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\ndiff --git a/tests/test_calc.py b/tests/test_calc.py\nnew file mode 120000\n--- /dev/null\n+++ b/tests/test_calc.py\n@@ -0,0 +1 @@\n+../calc/core.py\n';
  assert.deepEqual(rules(link), ['tests/test_calc.py task-tests']);
  assert.deepEqual(
    rules(
      'diff --git a/tests/test_calc_unittest.py b/tests/test_calc_unittest.py\ndeleted file mode 100644\n--- a/tests/test_calc_unittest.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n',
    ),
    ['tests/test_calc_unittest.py task-tests'],
  );
  // A rename onto a test file replaces it.
  assert.deepEqual(rules('diff --git a/calc/fake.py b/tests/test_calc.py\nsimilarity index 90%\nrename from calc/fake.py\nrename to tests/test_calc.py\n'), [
    'tests/test_calc.py task-tests',
  ]);
});

test('test ids of every style name their files; the test command and test patch name theirs', () => {
  assert.deepEqual(filesOfTestId('tests/test_x.py::TestA::test_b[a::b]'), ['tests/test_x.py']);
  assert.ok(filesOfTestId('test_add (tests.test_calc_unittest.CalcTest)').includes('tests/test_calc_unittest.py'));
  assert.ok(filesOfTestId('test_add (tests.test_calc_unittest.CalcTest.test_add)').includes('tests/test_calc_unittest.py'));
  assert.ok(
    filesOfTestId('test_ordering (admin_views.tests.AdminViewTests)').includes('tests/admin_views/tests.py'),
    'Django keeps its test apps under tests/',
  );
  assert.ok(filesOfTestId('tests.test_calc.CalcTest.test_add').includes('tests/test_calc.py'));
  assert.deepEqual(filesOfTestId('test_issue_1234'), [], 'a sympy id is a bare name');
  const django = './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 admin_views.tests';
  assert.deepEqual(filesOfTestCommand(django).sort(), ['tests/runtests.py', 'tests/test_sqlite.py']);
  const sympy =
    "git checkout abc sympy/core/tests/test_basic.py\ngit apply -v - <<'EOF_1'\ndiff --git a/sympy/core/tests/test_expr.py b/sympy/core/tests/test_expr.py\n--- a/sympy/core/tests/test_expr.py\n+++ b/sympy/core/tests/test_expr.py\n@@ -1 +1 @@\n-x = 'calc/core.py'\n+y\nEOF_1\nbin/test -C --verbose sympy/core/tests/test_basic.py";
  assert.deepEqual(
    filesOfTestCommand(sympy).sort(),
    ['bin/test', 'sympy/core/tests/test_basic.py', 'sympy/core/tests/test_expr.py'],
    "the test patch's code is not read as words",
  );
  const sympyTask = taskEntrySchema.parse({
    task_id: 's',
    sandbox: { workdir: '/testbed', local_repo: '.', test_command: sympy },
    FAIL_TO_PASS: ['test_issue_1234'],
  });
  assert.deepEqual(rules(edit('sympy/core/tests/test_expr.py'), graderTaskSurface(sympyTask)), ['sympy/core/tests/test_expr.py task-tests']);
  assert.deepEqual(rules(edit('bin/test'), graderTaskSurface(sympyTask)), ['bin/test task-tests']);
  const withPatch = graderTaskSurface(task, edit('tests/test_new.py'));
  assert.deepEqual(rules(edit('tests/test_new.py'), withPatch), ['tests/test_new.py task-tests']);
});

test('legitimate source-only patches pass', () => {
  const patch = [
    edit('calc/core.py'),
    add('calc/parsing.py'),
    edit('tests/helpers.py'),
    edit('README.md'),
    edit('setup.py'),
    'diff --git a/calc/old.py b/calc/new.py\nsimilarity index 100%\nrename from calc/old.py\nrename to calc/new.py\n',
    'diff --git a/calc/cli.py b/calc/cli.py\nold mode 100644\nnew mode 100755\n',
  ].join('');
  assert.deepEqual(rules(patch), []);
});
