/**
 * The harness's marker handling (`get_logs_eval`, server/src/testing/swebenchLog.ts) and our
 * strictness rules on top of its grading (swebenchGrade.ts): each rule takes a pass away, never
 * gives one, and the grade names it (docs/upstream-contracts.md#where-we-are-stricter).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestGrade } from '../../server/src/protocol/testReport.js';
import { gradeSwebench, harnessView, logsEval, testExitCode, type GoldTests } from '../../server/src/testing/index.js';

const start = '>>>>> Start Test Output';
const end = '>>>>> End Test Output';
const found = (log: string) => {
  const result = logsEval(log, 'parse_log_pytest');
  return result.found ? Object.fromEntries(result.tests) : result.reason;
};

test('the slice runs from the first start marker to a second start marker or the first end marker', () => {
  assert.deepEqual(found(`${start}\nPASSED a.py::t1\n${start}\nPASSED a.py::t2\n${end}\n`), { 'a.py::t1': 'PASSED' });
  assert.deepEqual(found(`PASSED a.py::out\n${start}\nPASSED a.py::in\n${end}\nPASSED a.py::after\n`), { 'a.py::in': 'PASSED' });
});

test('a slice that parses to nothing (set -x noise, or an end marker before the start) falls back to the whole log', () => {
  assert.deepEqual(found(`+ : '${start}'\n+ : '${end}'\nPASSED a.py::t\n`), { 'a.py::t': 'PASSED' });
  assert.deepEqual(found(`${end}\nPASSED a.py::t\n${start}\n`), { 'a.py::t': 'PASSED' });
});

test('a log lacking a marker, holding a failure marker, or with nothing parsed and no sign of a run is not graded', () => {
  assert.match(String(found(`PASSED a.py::t\n${end}\n`)), /lacks/);
  assert.match(String(found(`${start}\nPASSED a.py::t\n`)), /lacks/);
  assert.match(String(found(`${start}\nPASSED a.py::t\n${end}\n>>>>> Tests Timed Out\n`)), /Timed Out/);
  assert.match(String(found(`${start}\ncollected 0 items\n${end}\n`)), /nothing in it shows that the tests ran/);
  assert.deepEqual(found(`${start}\n3 passing\n${end}\n`), {}, 'a count of passing tests is a sign the suite ran');
});

test('the harness reads the first exit-status line anywhere, and refuses a non-zero one over a log with no failure', () => {
  assert.equal(testExitCode('>>>>> Test Exit Code:0\n>>>>> Test Exit Code: 1'), 0);
  assert.equal(testExitCode('none'), undefined);
  assert.match(String(found(`${start}\nPASSED a.py::t\n${end}\n>>>>> Test Exit Code: 1\n`)), /exited with 1/);
  assert.deepEqual(found(`${start}\nPASSED a.py::t\nFAILED a.py::u\n${end}\n>>>>> Test Exit Code: 1\n`), { 'a.py::t': 'PASSED', 'a.py::u': 'FAILED' });
});

const gold: GoldTests = { FAIL_TO_PASS: ['a.py::t'], PASS_TO_PASS: ['a.py::u'] };
const evalLog = (body: string, exit: number) => `+ : '${start}'\n${body}\n+ : '${end}'\n>>>>> Test Exit Code: ${exit}\n`;
const grade = (log: string, exitCode: number | null = 0, evalScript = true): TestGrade =>
  gradeSwebench({ view: harnessView(log, exitCode, 'parse_log_pytest', evalScript), gold, patch: 'diff' });
const summary = (g: TestGrade) =>
  g.kind === 'swebench' ? { resolution: g.resolution, harness: g.harness, strictness: g.strictness } : g.kind === 'invalid' ? { rule: g.rule } : g.kind;

test('a log both grade alike names no rule', () => {
  assert.deepEqual(summary(grade(evalLog('PASSED a.py::t\nPASSED a.py::u', 0))), { resolution: 'RESOLVED_FULL', harness: undefined, strictness: undefined });
  const refused = grade(`PASSED a.py::t\n`);
  assert.equal(refused.kind, 'invalid');
  assert.equal(refused.kind === 'invalid' && refused.rule, undefined, 'the harness would not grade a script log without markers either');
});

test('an exit-status line the tests printed does not hide the status eval.sh recorded (run-exit-status)', () => {
  assert.deepEqual(summary(grade(evalLog('PASSED a.py::t\nPASSED a.py::u\n>>>>> Test Exit Code: 0', 1))), { rule: 'run-exit-status' });
  // A test command of our own: its own exit status plays the recorded one's part.
  assert.deepEqual(summary(grade('PASSED a.py::t\nPASSED a.py::u\n', 1, false)), { rule: 'run-exit-status' });
});

test("pytest exiting 2 to 5, a time limit, and a log without the task's tests are not gradable, each by its rule", () => {
  assert.deepEqual(summary(grade(evalLog('PASSED a.py::t\nFAILED a.py::u', 2))), { rule: 'pytest-no-outcome' });
  assert.deepEqual(summary(grade(evalLog('PASSED a.py::t\nPASSED a.py::u', 0), null)), { rule: 'time-limit' });
  assert.deepEqual(summary(grade(evalLog('PASSED a.py::other', 0))), { rule: 'task-tests-absent' });
});

test('a status word the harness does not know is a failure, and the grade says the harness would have resolved it (unknown-status)', () => {
  const g = grade(evalLog('PASSED: a.py::t\nPASSED a.py::u', 0));
  assert.deepEqual(summary(g), { resolution: 'RESOLVED_NO', harness: 'RESOLVED_FULL', strictness: ['unknown-status'] });
  assert.deepEqual(g.kind === 'swebench' ? g.report.tests_status?.FAIL_TO_PASS : undefined, { success: [], failure: ['a.py::t'] });
});

test("a pass that pytest's JUnit report does not confirm is a failure (junit-report)", () => {
  const log = evalLog('PASSED a.py::t\nPASSED a.py::u', 0);
  const g = gradeSwebench({
    view: harnessView(log, 0, 'parse_log_pytest', true),
    gold,
    patch: 'diff',
    witnessed: new Map([
      ['a.py::t', 'FAILED'],
      ['a.py::u', 'PASSED'],
    ]),
  });
  assert.deepEqual(summary(g), { resolution: 'RESOLVED_NO', harness: 'RESOLVED_FULL', strictness: ['junit-report'] });
});
