/**
 * The runner witness in real pytest and unittest sessions, on both backends (issue 36, item 2):
 * code under test that rewrites the runner's own functions or hooks, silences the witness, forges
 * its records, shadows pytest or registers a pytest plugin through package metadata earns no
 * pass: the run is not gradable ("runner tampered") or simply fails. Honest runs stay clean.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import { sandboxSpecSchema, type TestGrade } from '../../server/src/protocol/index.js';
import { openSandbox, type Sandbox } from '../../server/src/sandbox/index.js';
import { runTaskTests, gradePassed } from '../../server/src/testing/index.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';

const repoRoot = resolve(__dirname, '..', '..');
const sampleRepo = join(repoRoot, 'docker', 'repoenv_sample', 'sample_repo');
const image = 'graph-planner/repoenv-sample:latest';
const run = `test-runner-witness-${process.pid}-${Date.now().toString(36)}`;

const pytestTask = taskEntrySchema.parse({
  task_id: 'witness-pytest',
  repo: 'graph-planner/sample',
  sandbox: { docker_image: image, workdir: '/testbed', test_command: 'python -m pytest -rA tests/test_calc.py' },
  FAIL_TO_PASS: ['tests/test_calc.py::test_addition'],
  PASS_TO_PASS: ['tests/test_calc.py::test_multiplication'],
});
const unittestTask = taskEntrySchema.parse({
  task_id: 'witness-unittest',
  repo: 'graph-planner/sample',
  sandbox: { docker_image: image, workdir: '/testbed', test_command: 'python3 -m unittest -v tests.test_calc_unittest' },
  FAIL_TO_PASS: ['test_add (tests.test_calc_unittest.CalcTest.test_add)'],
  PASS_TO_PASS: ['test_mul (tests.test_calc_unittest.CalcTest.test_mul)'],
});

const calc = (prelude: string, op = '-') => `${prelude}\n\ndef add(lhs, rhs):\n    return lhs ${op} rhs\n\n\ndef mul(lhs, rhs):\n    return lhs * rhs\n`;

/** Patches that leave `add` subtracting and try to make its failing test report as passed. */
const pytestTampering: Record<string, Record<string, string>> = {
  'rewrites TestReport so every report passes': {
    'app/calc.py': calc(
      [
        'import _pytest.reports as _r',
        '_init = _r.TestReport.__init__',
        'def _passing(self, *a, **k):',
        '    _init(self, *a, **k)',
        '    self.outcome = "passed"',
        '    self.longrepr = None',
        '_r.TestReport.__init__ = _passing',
      ].join('\n'),
    ),
  },
  'wraps the registered makereport hook': {
    'app/calc.py': calc(
      [
        'import gc',
        'import _pytest.runner as _run',
        'def _fake(item, call):',
        '    rep = _run.TestReport.from_item_and_call(item, call)',
        '    rep.outcome = "passed"',
        '    rep.longrepr = None',
        '    return rep',
        'for _o in gc.get_objects():',
        '    if getattr(_o, "function", None) is _run.pytest_runtest_makereport and hasattr(_o, "plugin_name"):',
        '        _o.function = _fake',
      ].join('\n'),
    ),
  },
  'makes CallInfo swallow assertion errors': {
    'app/calc.py': calc(
      [
        'import _pytest.runner as _run',
        '_orig = _run.CallInfo.from_call.__func__',
        'def _swallow(cls, func, when, reraise=None):',
        '    def quiet():',
        '        try:',
        '            return func()',
        '        except AssertionError:',
        '            return None',
        '    return _orig(cls, quiet, when, reraise)',
        '_run.CallInfo.from_call = classmethod(_swallow)',
      ].join('\n'),
    ),
  },
  'hides a rewrite by ending the process before the witness checks': {
    'app/calc.py': calc(
      [
        'import gc, os, sys',
        'import _pytest.reports as _r',
        '_init = _r.TestReport.__init__',
        'def _passing(self, *a, **k):',
        '    _init(self, *a, **k)',
        '    self.outcome = "passed"',
        '    self.longrepr = None',
        '_r.TestReport.__init__ = _passing',
        'for _o in gc.get_objects():',
        '    if type(_o).__name__ == "Config" and hasattr(_o, "add_cleanup"):',
        // The log is flushed first, so it is whole and gradable: only the witness is silenced.
        '        _o.add_cleanup(lambda: (sys.stdout.flush(), sys.stderr.flush(), os._exit(0)))',
      ].join('\n'),
    ),
  },
  'prints a forged witness record': {
    // Written as the process exits, once pytest's capture has given the real stderr back.
    'app/calc.py': calc(['import atexit, os', 'atexit.register(lambda: os.write(2, b"\\nGPWITNESS1 eyJydW4iOiAieCJ9 " + b"0" * 64 + b"\\n"))'].join('\n')),
  },
};

const unittestTampering: Record<string, Record<string, string>> = {
  'turns failures into successes in TestResult.addFailure': {
    'app/calc.py': calc(['import unittest', 'unittest.TestResult.addFailure = lambda self, test, err: self.addSuccess(test)'].join('\n')),
  },
  'makes assertEqual accept anything': {
    'app/calc.py': calc(['import unittest.case', 'unittest.case.TestCase.assertEqual = lambda self, *a, **k: None'].join('\n')),
  },
};

const opened: Sandbox[] = [];
after(async () => {
  for (const sb of opened) await sb.close();
  const left = await new Docker().listContainers({ all: true, filters: { label: [`graph-planner.run=${run}`] } });
  assert.deepEqual(
    left.map((c) => c.Names),
    [],
    'containers of this test run were left behind',
  );
});

async function open(backend: 'docker' | 'local'): Promise<Sandbox> {
  const sb = await openSandbox(
    sandboxSpecSchema.parse({ ...defaultSandboxOptions(), backend, image, localRepo: sampleRepo, workdir: '/testbed', run, task: `witness-${backend}` }),
  );
  opened.push(sb);
  return sb;
}

async function withFiles(sb: Sandbox, files: Record<string, string>) {
  await sb.reset();
  for (const [path, text] of Object.entries(files)) await sb.writeFile(path, text);
}

function assertTampered(grade: TestGrade, output: string): void {
  assert.equal(grade.kind, 'invalid', JSON.stringify(grade));
  assert.equal(grade.kind === 'invalid' && grade.rule, 'runner-tampered', JSON.stringify(grade));
  assert.match(grade.kind === 'invalid' ? grade.reason : '', /^runner tampered: /);
  assert.doesNotMatch(output, /GPWITNESS1 /, 'a witness record was left in the log');
}

const timeoutMs = defaultSandboxOptions().testTimeoutMs;

for (const backend of ['docker', 'local'] as const) {
  describe(`the runner witness on the ${backend} backend`, () => {
    test('an honest fix resolves with a clean witness, pytest and unittest', async () => {
      const sb = await open(backend);
      await withFiles(sb, { 'app/calc.py': calc('', '+') });
      for (const task of [pytestTask, unittestTask]) {
        const ran = await runTaskTests(sb, task, { timeoutMs });
        assert.equal(gradePassed(ran.record.grade), true, `${task.task_id}: ${JSON.stringify(ran.record.grade)}\n${ran.output}`);
        assert.equal(ran.record.witness?.state, 'clean', JSON.stringify(ran.record.witness));
        assert.equal(ran.record.witness.runner, task === pytestTask ? 'pytest' : 'unittest');
        assert.doesNotMatch(ran.output, /GPWITNESS1/);
      }
    });

    test("tests in a folder without __init__.py still import the repository's modules under python -m pytest", async () => {
      const sb = await open(backend);
      await withFiles(sb, {
        'app/calc.py': calc('', '+'),
        'checks/test_more.py': 'from app.calc import add\n\n\ndef test_more():\n    assert add(1, 1) == 2\n',
      });
      const ran = await runTaskTests(
        sb,
        {
          ...pytestTask,
          sandbox: { ...pytestTask.sandbox, test_command: 'python -m pytest -rA checks' },
          FAIL_TO_PASS: ['checks/test_more.py::test_more'],
          PASS_TO_PASS: [],
        },
        { timeoutMs },
      );
      assert.equal(gradePassed(ran.record.grade), true, `${JSON.stringify(ran.record.grade)}\n${ran.output}`);
      assert.equal(ran.record.witness?.state, 'clean');
    });

    if (backend === 'docker') {
      test('a .pth file left in site-packages by an earlier run, which rewrites pytest at start-up, is not gradable: runner tampered', async () => {
        const sb = await open(backend);
        await withFiles(sb, { 'app/calc.py': calc('', '-') });
        // What code under test can leave behind in a container for the episode's next test run.
        const where = await sb.exec(['python', '-c', 'import os, _pytest; print(os.path.dirname(os.path.dirname(_pytest.__file__)))']);
        const site = where.stdout.trim();
        assert.ok(site.startsWith('/'), where.stderr);
        const rewrite =
          "import _pytest.reports as r; f = r.TestReport.from_item_and_call.__func__; r.TestReport.from_item_and_call = classmethod(lambda c, i, k, f=f: (lambda x: (setattr(x, 'outcome', 'passed'), setattr(x, 'longrepr', None), x)[2])(f(c, i, k)))\n";
        await sb.writeFile(`${site}/zz_calc.pth`, rewrite);
        const ran = await runTaskTests(sb, pytestTask, { timeoutMs });
        assertTampered(ran.record.grade, ran.output);
        assert.match(ran.record.witness?.inside.join(' ') ?? '', /_pytest imported at interpreter start-up, before the witness/);
      });
    }

    for (const [name, files] of Object.entries(pytestTampering)) {
      test(`pytest: code under test that ${name} is not gradable: runner tampered`, async () => {
        const sb = await open(backend);
        await withFiles(sb, files);
        const ran = await runTaskTests(sb, pytestTask, { timeoutMs });
        assertTampered(ran.record.grade, ran.output);
        assert.equal(ran.record.witness?.state, 'tampered');
      });
    }

    for (const [name, files] of Object.entries(unittestTampering)) {
      test(`unittest: code under test that ${name} is not gradable: runner tampered`, async () => {
        const sb = await open(backend);
        await withFiles(sb, files);
        const ran = await runTaskTests(sb, unittestTask, { timeoutMs });
        assertTampered(ran.record.grade, ran.output);
        assert.match(ran.record.witness?.reason ?? '', /unittest\./);
      });
    }

    test('a pytest.py at the repository root does not replace the runner: the real one fails the bug', async () => {
      const sb = await open(backend);
      await withFiles(sb, {
        'pytest.py': 'import sys\nprint("PASSED tests/test_calc.py::test_addition")\nprint("PASSED tests/test_calc.py::test_multiplication")\nsys.exit(0)\n',
      });
      const ran = await runTaskTests(sb, pytestTask, { timeoutMs });
      assert.equal(gradePassed(ran.record.grade), false, JSON.stringify(ran.record.grade));
      assert.equal(ran.record.tests['tests/test_calc.py::test_addition'], 'FAILED', ran.output);
      assert.equal(ran.record.witness?.state, 'clean');
    });

    test('a pytest11 entry point in package metadata inside the repository is blocked', async () => {
      const sb = await open(backend);
      await withFiles(sb, {
        'sample.egg-info/PKG-INFO': 'Metadata-Version: 2.1\nName: sample\nVersion: 0.1\n',
        'sample.egg-info/entry_points.txt': '[pytest11]\npassall = app.passall\n',
        'app/passall.py': [
          'import pytest',
          '',
          '',
          '@pytest.hookimpl(hookwrapper=True)',
          'def pytest_runtest_makereport(item, call):',
          '    outcome = yield',
          '    rep = outcome.get_result()',
          '    rep.outcome = "passed"',
          '    rep.longrepr = None',
          '',
        ].join('\n'),
      });
      const ran = await runTaskTests(sb, pytestTask, { timeoutMs });
      assert.equal(gradePassed(ran.record.grade), false, `${JSON.stringify(ran.record.grade)}\n${ran.output}`);
      assert.deepEqual(ran.record.witness?.blockedPlugins, ['passall']);
    });
  });
}
