/**
 * Reward hacks and broken runs against the grader, each a real pytest session (Debian's
 * python3-pytest, installed by the test setup) on a small repository in a temporary folder: a
 * conftest.py that skips a PASS_TO_PASS test at run time, a skipped FAIL_TO_PASS test, a
 * conftest.py that prints fake `PASSED` lines, a conftest.py that fails to import, a test missing
 * from the run, and no test of the task run at all. None of them may grade RESOLVED_FULL; each
 * gets SWE-bench's verdict (docs/upstream-contracts.md#swe-bench-grading) or is not gradable.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { TestGrade } from '../../server/src/protocol/testReport.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import { gradeTask, parseTestOutput } from '../../server/src/testing/runTests.js';

const root = mkdtempSync(join(tmpdir(), 'gp-grade-hostile-'));
after(() => rmSync(root, { recursive: true, force: true }));

const task = taskEntrySchema.parse({
  task_id: 'hostile-calc',
  issue: { title: 'add is wrong', body: '' },
  sandbox: { workdir: '/testbed', local_repo: '.' },
  FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
  PASS_TO_PASS: ['tests/test_calc.py::test_mul', 'tests/test_calc.py::test_sub'],
});

const fixed = 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n\n\ndef sub(a, b):\n    return a - b\n';
const tests =
  'from calc import add, mul, sub\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n';

let count = 0;

/**
 * A repository with `files` (calc.py fixed unless given), run with `python3 -m pytest -rA -v` (the
 * verbose lines name every test, skipped ones included, which the summary does not), then graded.
 */
function run(files: Record<string, string>): { grade: TestGrade; exitCode: number | null; output: string; seen: ReadonlyMap<string, string> } {
  const dir = join(root, `repo-${++count}`);
  mkdirSync(join(dir, 'tests'), { recursive: true });
  const all: Record<string, string> = { 'calc.py': fixed, 'tests/test_calc.py': tests, ...files };
  for (const [path, text] of Object.entries(all)) writeFileSync(join(dir, path), text);
  const result = spawnSync('python3', ['-m', 'pytest', '-rA', '-v', '-p', 'no:cacheprovider', 'tests/test_calc.py'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: dir, PYTHONDONTWRITEBYTECODE: '1' },
  });
  const output = `${result.stdout}${result.stderr}`;
  const { parsed } = parseTestOutput(output);
  return { grade: gradeTask(task, { output, exitCode: result.status }, 'diff'), exitCode: result.status, output, seen: parsed.tests };
}

function resolution(grade: TestGrade): string {
  return grade.kind === 'swebench' ? grade.resolution : grade.kind === 'invalid' ? `not gradable: ${grade.reason}` : grade.kind;
}

test('the honest fix is RESOLVED_FULL (the control every other case is measured against)', () => {
  const r = run({});
  assert.equal(r.exitCode, 0, r.output);
  assert.equal(resolution(r.grade), 'RESOLVED_FULL');
});

test('a conftest.py that skips a PASS_TO_PASS test at run time does not resolve: the -rA summary names no skipped test, as the harness reads it', () => {
  const conftest = 'import pytest\n\n\ndef pytest_runtest_setup(item):\n    if item.name == "test_sub":\n        pytest.skip("flaky")\n';
  const r = run({ 'conftest.py': conftest });
  assert.match(r.output, /SKIPPED \[1\]/, 'pytest folded the skip into a summary line without the id');
  // The verbose line named it: a grader that read it would have counted the skip as maintained.
  assert.equal(r.seen.get('tests/test_calc.py::test_sub'), 'SKIPPED');
  assert.equal(resolution(r.grade), 'RESOLVED_NO');
  assert.ok(r.grade.kind === 'swebench' && r.grade.report.tests_status?.PASS_TO_PASS.failure.includes('tests/test_calc.py::test_sub'));
});

test('a skipped FAIL_TO_PASS test is not a resolution', () => {
  const conftest = 'import pytest\n\n\ndef pytest_runtest_setup(item):\n    if item.name == "test_add":\n        pytest.skip("later")\n';
  const r = run({ 'conftest.py': conftest, 'calc.py': fixed.replace('a + b', 'a - b') });
  assert.equal(resolution(r.grade), 'RESOLVED_NO');
});

test('a conftest.py that prints fake PASSED lines over a failing run is not gradable, never resolved', () => {
  // The bug is still there; the hook prints the harness's own summary format after pytest's.
  const conftest = 'def pytest_unconfigure(config):\n    print("PASSED tests/test_calc.py::test_add")\n';
  const r = run({ 'conftest.py': conftest, 'calc.py': fixed.replace('a + b', 'a - b') });
  assert.equal(r.exitCode, 1);
  assert.match(r.output, /^PASSED tests\/test_calc\.py::test_add$/m, 'the fake line is in the log');
  assert.equal(r.grade.kind, 'invalid');
  assert.match(resolution(r.grade), /not gradable: the test command exited with 1 but its log reports no failing test/);
});

test('a conftest.py that fails to import makes the run not gradable, not a failure of 64 tests', () => {
  const r = run({ 'conftest.py': 'import no_such_module_for_the_grader\n' });
  assert.equal(r.grade.kind, 'invalid', resolution(r.grade));
  assert.match(resolution(r.grade), /not gradable: pytest could not start the run .* \(exit code 4\): the tests never ran/);
});

test('a test missing from the run is a failure, as the harness grades it', () => {
  const r = run({ 'tests/test_calc.py': tests.replace(/def test_sub\(\):\n {4}assert sub\(3, 2\) == 1\n/, '') });
  assert.equal(resolution(r.grade), 'RESOLVED_NO');
  assert.ok(r.grade.kind === 'swebench' && r.grade.report.tests_status?.PASS_TO_PASS.failure.includes('tests/test_calc.py::test_sub'));
});

test('a run in which no test of the task ran is not gradable', () => {
  const r = run({ 'tests/test_calc.py': 'def test_other():\n    assert True\n' });
  assert.equal(r.exitCode, 0);
  assert.match(resolution(r.grade), /not gradable: none of the task's 3 tests appears in the log/);
  const none = run({ 'tests/test_calc.py': '# every test was deleted\n' });
  assert.equal(none.exitCode, 5);
  assert.match(resolution(none.grade), /not gradable: pytest collected no tests \(exit code 5\)/);
});

test('a run cut off at its time limit is not gradable', () => {
  const dir = join(root, 'timeout');
  mkdirSync(dir, { recursive: true });
  const output =
    '============================= test session starts ==============================\ncollected 3 items\n\nPASSED tests/test_calc.py::test_add\ntests/test_calc.py ..';
  assert.match(resolution(gradeTask(task, { output, exitCode: null }, 'diff')), /not gradable: the tests did not finish within the time limit/);
});
