/**
 * pytest's JUnit report as the grader's second witness (server/src/testing/junitReport.ts), with
 * real pytest sessions run through `runTaskTests` on the local backend: the report agrees with an
 * honest log test by test (classes, parameters holding `/` and `::`); a conftest.py that prints a
 * fake `PASSED` line and forces exit status 0 (which the log alone grades RESOLVED_FULL) is caught;
 * a conftest.py that removes the report makes the run not gradable; the report never stays behind.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import type { TestRunRecord } from '../../server/src/protocol/testReport.js';
import { openSandbox, sandboxSpecForTask } from '../../server/src/sandbox/index.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import { junitAddress, parseJunitReport, crossCheck } from '../../server/src/testing/junitReport.js';
import { takeInlineReport } from '../../server/src/testing/junitInline.js';
import { gradeTask, runTaskTests } from '../../server/src/testing/runTests.js';
import { git } from '../support/cli.js';

const root = mkdtempSync(join(tmpdir(), 'gp-junit-'));
after(() => rmSync(root, { recursive: true, force: true }));

const fixed = 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n';
const tests = [
  'import pytest',
  'from calc import add, mul',
  '',
  '',
  'def test_add():',
  '    assert add(2, 2) == 4',
  '',
  '',
  'class TestMul:',
  '    @pytest.mark.parametrize("path", ["/tmp/x::y", "a b"])',
  '    def test_mul(self, path):',
  '        assert mul(2, 3) == 6',
  '',
].join('\n');
// `test_mul[a` as SWE-bench's lists spell it: the harness's parser cuts an id at its first space.
const gold = {
  FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
  PASS_TO_PASS: ['tests/test_calc.py::TestMul::test_mul[/tmp/x::y]', 'tests/test_calc.py::TestMul::test_mul[a'],
};

let count = 0;

/** A committed repository with the bug. */
function repository(): string {
  const dir = join(root, `repo-${++count}`);
  mkdirSync(join(dir, 'tests'), { recursive: true });
  writeFileSync(join(dir, 'calc.py'), fixed.replace('a + b', 'a - b'));
  writeFileSync(join(dir, 'tests', 'test_calc.py'), tests);
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'base');
  return dir;
}

async function runIn(
  files: Record<string, string>,
  command = 'python3 -m pytest -rA -p no:cacheprovider tests/test_calc.py',
): Promise<{ record: TestRunRecord; output: string }> {
  const dir = repository();
  const task = taskEntrySchema.parse({
    task_id: `junit-${count}`,
    issue: { title: 'add subtracts', body: '' },
    ...gold,
    sandbox: { workdir: '/testbed', local_repo: dir, backend: 'local', base_commit: git(dir, 'rev-parse', 'HEAD'), test_command: command },
  });
  const sandbox = await openSandbox(sandboxSpecForTask(task, { ...defaultSandboxOptions(), baseDir: root }));
  try {
    // Written in the sandbox's working copy, as a patch would be.
    for (const [path, text] of Object.entries(files)) await sandbox.writeFile(path, text);
    const run = await runTaskTests(sandbox, task, { timeoutMs: 60_000, patch: 'diff' });
    return { record: run.record, output: run.output };
  } finally {
    await sandbox.close();
  }
}

function leftReports(): string[] {
  return readdirSync(tmpdir()).filter((name) => /^gp-junit-[0-9a-f]{24}\.xml$/.test(name));
}

test('a node id becomes the class name and name pytest writes, parameters untouched', () => {
  assert.deepEqual(junitAddress('tests/test_calc.py::TestMul::test_mul[/tmp/x::y]'), { classname: 'tests.test_calc.TestMul', name: 'test_mul[/tmp/x::y]' });
  assert.deepEqual(junitAddress('pkg/sub/test_a.py::test_b'), { classname: 'pkg.sub.test_a', name: 'test_b' });
});

test('an honest fix: the report agrees with the log test by test and the run is RESOLVED_FULL', async () => {
  const before = leftReports();
  const { record, output } = await runIn({ 'calc.py': fixed });
  assert.equal(record.exitCode, 0, output);
  assert.equal(record.crossCheck?.state, 'agreed', JSON.stringify(record.crossCheck));
  assert.equal(record.harnessParser, 'parse_log_pytest', 'the record names the harness parser that graded it');
  assert.equal(record.grade.kind === 'swebench' ? record.grade.resolution : record.grade.kind, 'RESOLVED_FULL');
  assert.deepEqual(leftReports(), before, 'the report was removed after it was read');
  assert.doesNotMatch(output, /GPJUNIT|<testsuite/, 'the report, printed after the tests by the same command, is not in the log');
  assert.match(output, /passed in [\d.]+s =+\n$/);
});

test('a test command that ends the shell itself still has its report read, by a command of its own', async () => {
  const before = leftReports();
  const { record, output } = await runIn({ 'calc.py': fixed }, 'python3 -m pytest -rA -p no:cacheprovider tests/test_calc.py; exit $?');
  assert.equal(record.crossCheck?.state, 'agreed', JSON.stringify(record.crossCheck));
  assert.equal(record.grade.kind === 'swebench' ? record.grade.resolution : record.grade.kind, 'RESOLVED_FULL');
  assert.deepEqual(leftReports(), before);
  assert.doesNotMatch(output, /GPJUNIT/);
});

test('the printed report is split from the log, its printing time taken off the run, and a long log cut at its own limit', () => {
  const result = { exitCode: 1, stderr: 'warn\n', durationMs: 100, timedOut: false, truncated: false, stderrBytes: 5 };
  const stdout = `${'x'.repeat(20)}MB<xml/>ME 0 1700000000.010000 1700000000.030000`;
  const split = takeInlineReport({ ...result, stdout, stdoutBytes: Buffer.byteLength(stdout) }, 'M', 8);
  assert.deepEqual(split.report, { exitCode: 0, text: '<xml/>' });
  assert.equal(split.result.stdout, 'xxxxxxxx\n[graph-planner: output truncated, 12 more bytes dropped (limit 8 bytes per stream)]\n');
  assert.equal(split.result.truncated, true);
  assert.ok(Math.abs(split.result.durationMs - 80) < 0.01, String(split.result.durationMs));
  const exited = takeInlineReport({ ...result, stdout: 'log\n', stdoutBytes: 4 }, 'M', 8);
  assert.equal(exited.report, undefined);
  assert.equal(exited.result.stdout, 'log\n');
  assert.equal(exited.result.durationMs, 100);
});

test('a conftest.py that prints a fake PASSED line and forces exit 0 is graded on the report: not resolved', async () => {
  const conftest = [
    'def pytest_sessionfinish(session, exitstatus):',
    '    session.exitstatus = 0',
    '',
    '',
    'def pytest_unconfigure(config):',
    '    print("PASSED tests/test_calc.py::test_add")',
    '',
  ].join('\n');
  const { record, output } = await runIn({ 'conftest.py': conftest });
  assert.equal(record.exitCode, 0, 'the conftest forced a clean exit');
  assert.match(output, /^PASSED tests\/test_calc\.py::test_add$/m);
  // The log alone, as the harness reads it, is fooled: the fake line comes last and wins.
  const task = taskEntrySchema.parse({ task_id: 't', issue: { title: 't', body: '' }, ...gold, sandbox: { workdir: '/testbed' } });
  const logOnly = gradeTask(task, { output, exitCode: 0 }, 'diff');
  assert.equal(logOnly.kind === 'swebench' ? logOnly.resolution : logOnly.kind, 'RESOLVED_FULL', 'without the report the hack would pay');
  assert.equal(record.crossCheck?.state, 'disagreed');
  assert.deepEqual(record.crossCheck?.mismatches, [{ test: 'tests/test_calc.py::test_add', log: 'PASSED', report: 'failed' }]);
  assert.equal(record.grade.kind === 'swebench' ? record.grade.resolution : record.grade.kind, 'RESOLVED_NO');
  // The grade says which rule made it differ from the harness's.
  assert.deepEqual(record.grade.kind === 'swebench' ? [record.grade.harness, record.grade.strictness] : [], ['RESOLVED_FULL', ['junit-report']]);
});

test('a conftest.py that removes the report at exit makes the run not gradable', async () => {
  const conftest = [
    'import atexit, glob, os',
    '',
    '',
    'def _scrub():',
    '    for path in glob.glob("/tmp/gp-junit-*.xml"):',
    '        os.remove(path)',
    '',
    '',
    'atexit.register(_scrub)',
    '',
  ].join('\n');
  const { record } = await runIn({ 'calc.py': fixed, 'conftest.py': conftest });
  assert.equal(record.crossCheck?.state, 'missing');
  assert.equal(record.grade.kind, 'invalid');
  assert.match(record.grade.kind === 'invalid' ? record.grade.reason : '', /JUnit report was announced in the log but is gone/);
});

test('a report that is not XML, or lists a passed test as skipped, turns the test to failed', () => {
  assert.throws(() => parseJunitReport('<testsuites><testsuite>'), /not well-formed XML/);
  const xml =
    '<?xml version="1.0"?><testsuites><testsuite name="pytest"><testcase classname="tests.test_calc" name="test_add"><skipped type="pytest.skip" message="x"/></testcase><testcase classname="tests.test_calc" name="test_x"><skipped type="pytest.xfail" message="y"/></testcase></testsuite></testsuites>';
  const report = parseJunitReport(xml);
  const checked = crossCheck(
    new Map([
      ['tests/test_calc.py::test_add', 'PASSED'],
      ['tests/test_calc.py::test_x', 'XFAIL'],
      ['tests/test_calc.py::test_gone', 'PASSED'],
    ]),
    report,
  );
  assert.deepEqual(
    checked.mismatches.map((m) => [m.test, m.report]),
    [
      ['tests/test_calc.py::test_add', 'skipped'],
      ['tests/test_calc.py::test_gone', 'absent'],
    ],
  );
  assert.equal(checked.tests.get('tests/test_calc.py::test_x'), 'XFAIL');
  assert.equal(checked.tests.get('tests/test_calc.py::test_add'), 'FAILED');
  assert.ok(!existsSync(join(root, 'never')));
});
