import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureText, swebenchLiteFixture } from '../support/fixtures.js';
import { swebenchReportSchema, type TestStatus } from '../../server/src/protocol/index.js';
import {
  decodeExpectedOutput,
  gradeR2e,
  lookupStatus,
  testFailed,
  parsePytestLog,
  resolutionStatus,
  swebenchReport,
  gradeTests,
  type GoldTests,
} from '../../server/src/testing/index.js';
import { decodeTestList } from '../../server/src/tasks/index.js';

interface Instance {
  readonly instance_id: string;
  readonly gold: GoldTests;
}

function loadInstances(): Map<string, Instance> {
  const result = new Map<string, Instance>();
  for (const line of fixtureText(swebenchLiteFixture).split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { instance_id: string; FAIL_TO_PASS: unknown; PASS_TO_PASS: unknown };
    const f2p = decodeTestList(row.FAIL_TO_PASS);
    const p2p = decodeTestList(row.PASS_TO_PASS);
    if (!f2p.ok || !p2p.ok) throw new Error(`${row.instance_id}: gold lists do not decode`);
    result.set(row.instance_id, { instance_id: row.instance_id, gold: { FAIL_TO_PASS: f2p.tests, PASS_TO_PASS: p2p.tests } });
  }
  return result;
}

const instances = loadInstances();

function instance(id: string): Instance {
  const found = instances.get(id);
  if (found === undefined) throw new Error(`${id} is not in swebench_lite_test.jsonl`);
  return found;
}

/** A -rA log in which every listed test has the given status, except the overrides. */
function pytestLog(ids: readonly string[], overrides: Record<string, TestStatus | 'missing'> = {}): string {
  const lines = ids.flatMap((id) => {
    const status = overrides[id] ?? 'PASSED';
    return status === 'missing' ? [] : [`${status} ${id}${status === 'FAILED' ? ' - AssertionError' : ''}`];
  });
  return ['=== short test summary info ===', ...lines, '=== 11 passed in 0.50s ==='].join('\n');
}

function report(id: string, log: string) {
  const { gold } = instance(id);
  const built = swebenchReport(id, { patch: 'diff --git a/x b/x', patchApplied: true, tests: parsePytestLog(log).tests, gold });
  // Every report we write must satisfy the protocol schema that readers use.
  assert.deepEqual(swebenchReportSchema.parse(built), built);
  const entry = built[id];
  assert.ok(entry?.tests_status, 'the report has tests_status');
  return { entry, status: entry.tests_status, gold };
}

const pylint = 'pylint-dev__pylint-5859';

test('resolves an instance whose real FAIL_TO_PASS and PASS_TO_PASS tests all pass', () => {
  const { gold } = instance(pylint);
  const { entry, status } = report(pylint, pytestLog([...gold.FAIL_TO_PASS, ...gold.PASS_TO_PASS]));
  assert.equal(entry.resolved, true);
  assert.deepEqual(status.FAIL_TO_PASS, { success: [...gold.FAIL_TO_PASS], failure: [] });
  assert.deepEqual(status.PASS_TO_PASS, { success: [...gold.PASS_TO_PASS], failure: [] });
  assert.equal(entry.patch_successfully_applied, true);
});

test('does not resolve when a FAIL_TO_PASS test is missing from the log, and lists it as a failure', () => {
  const { gold } = instance(pylint);
  const [f2p] = gold.FAIL_TO_PASS;
  assert.ok(f2p !== undefined);
  const { entry, status } = report(pylint, pytestLog([...gold.FAIL_TO_PASS, ...gold.PASS_TO_PASS], { [f2p]: 'missing' }));
  assert.equal(entry.resolved, false);
  assert.deepEqual(status.FAIL_TO_PASS, { success: [], failure: [f2p] });
});

test('does not resolve when a PASS_TO_PASS test regresses, listing it under PASS_TO_PASS.failure as SWE-bench does', () => {
  const { gold } = instance(pylint);
  const broken = gold.PASS_TO_PASS[3];
  assert.ok(broken !== undefined);
  const { entry, status } = report(pylint, pytestLog([...gold.FAIL_TO_PASS, ...gold.PASS_TO_PASS], { [broken]: 'FAILED' }));
  assert.equal(entry.resolved, false);
  assert.deepEqual(status.PASS_TO_PASS.failure, [broken]);
  assert.deepEqual(status.PASS_TO_FAIL, { success: [], failure: [] });
  assert.equal(resolutionStatus(status), 'RESOLVED_NO');
});

test('counts a skipped FAIL_TO_PASS test as a failure but a skipped PASS_TO_PASS test as maintained', () => {
  const { gold } = instance(pylint);
  const [f2p] = gold.FAIL_TO_PASS;
  const [p2p] = gold.PASS_TO_PASS;
  assert.ok(f2p !== undefined && p2p !== undefined);
  const tests = new Map<string, TestStatus>([
    [f2p, 'SKIPPED'],
    [p2p, 'SKIPPED'],
  ]);
  const status = gradeTests(tests, { FAIL_TO_PASS: [f2p], PASS_TO_PASS: [p2p] });
  assert.deepEqual(status.FAIL_TO_PASS, { success: [], failure: [f2p] });
  assert.deepEqual(status.PASS_TO_PASS, { success: [p2p], failure: [] });
});

test('grades FAIL_TO_FAIL and PASS_TO_FAIL only when those lists are given', () => {
  const tests = new Map<string, TestStatus>([
    ['t.py::a', 'FAILED'],
    ['t.py::b', 'PASSED'],
  ]);
  const status = gradeTests(tests, { FAIL_TO_PASS: [], PASS_TO_PASS: [], FAIL_TO_FAIL: ['t.py::a'], PASS_TO_FAIL: ['t.py::b'] });
  assert.deepEqual(status.FAIL_TO_FAIL, { success: [], failure: ['t.py::a'] });
  assert.deepEqual(status.PASS_TO_FAIL, { success: ['t.py::b'], failure: [] });
  assert.equal(resolutionStatus(status), 'RESOLVED_FULL');
});

test('reports partial resolution when only some FAIL_TO_PASS tests pass and no PASS_TO_PASS test regresses', () => {
  const tests = new Map<string, TestStatus>([
    ['a', 'PASSED'],
    ['b', 'ERROR'],
    ['c', 'XFAIL'],
  ]);
  assert.equal(resolutionStatus(gradeTests(tests, { FAIL_TO_PASS: ['a', 'b'], PASS_TO_PASS: ['c'] })), 'RESOLVED_PARTIAL');
});

test('leaves tests_status out when there is no patch or it did not apply, as SWE-bench does', () => {
  const gold = { FAIL_TO_PASS: ['a'], PASS_TO_PASS: [] };
  assert.deepEqual(swebenchReport('x', { patch: null, patchApplied: false, tests: new Map(), gold }), {
    x: { patch_is_None: true, patch_exists: false, patch_successfully_applied: false, resolved: false },
  });
  assert.deepEqual(swebenchReport('x', { patch: '', patchApplied: false, tests: new Map(), gold }), {
    x: { patch_is_None: false, patch_exists: true, patch_successfully_applied: false, resolved: false },
  });
});

test('grades a Django instance from its real lists with test names as the runner prints them', () => {
  const { gold } = instance('django__django-16046');
  const tests = new Map<string, TestStatus>([...gold.FAIL_TO_PASS, ...gold.PASS_TO_PASS].map((id) => [id, 'PASSED']));
  assert.equal(resolutionStatus(gradeTests(tests, gold)), 'RESOLVED_FULL');
  const [f2p] = gold.FAIL_TO_PASS;
  assert.ok(f2p !== undefined);
  assert.equal(resolutionStatus(gradeTests(new Map([...tests, [f2p, 'FAILED']]), gold)), 'RESOLVED_NO');
});

test('a gold id SWE-bench stored cut short takes the status of the log ids it begins, only when they agree on passing', () => {
  const cut = 'testing/python/fixtures.py::TestRequestScopeAccess::test_setup[session--fspath';
  assert.ok(instance('pytest-dev__pytest-5221').gold.PASS_TO_PASS.includes(cut));
  const passed = new Map<string, TestStatus>([[`${cut} module cls function]`, 'PASSED']]);
  assert.equal(lookupStatus(passed, cut), 'PASSED');
  // The harness's prefix is any prefix, not one that ends at a space.
  assert.equal(lookupStatus(passed, 'testing/python/fixtures.py::TestRequestScopeAccess::test_setup[sess'), 'PASSED');
  const mixed = new Map<string, TestStatus>([...passed, [`${cut} other]`, 'FAILED']]);
  assert.equal(lookupStatus(mixed, cut), undefined);
  assert.equal(testFailed(mixed, cut), true);
  // A well-formed id is looked up as it is.
  assert.equal(lookupStatus(passed, 'testing/python/fixtures.py::TestRequestScopeAccess::test_setup[session]'), undefined);
});

test('does not match the older and newer Django spellings of a test name to each other, as the harness does not', () => {
  const tests = new Map<string, TestStatus>([
    ['test_x (app.tests.T.test_x)', 'PASSED'],
    ['test_y (app.tests.T)', 'FAILED'],
  ]);
  assert.equal(lookupStatus(tests, 'test_x (app.tests.T)'), undefined);
  assert.equal(lookupStatus(tests, 'test_x (app.tests.T.test_x)'), 'PASSED');
  assert.equal(testFailed(tests, 'test_y (app.tests.T.test_y)'), true);
});

test('accepts gold lists as arrays or JSON-encoded strings and rejects anything else with a message', () => {
  assert.deepEqual(decodeTestList('["a", "b"]'), { ok: true, tests: ['a', 'b'] });
  assert.deepEqual(decodeTestList(['a']), { ok: true, tests: ['a'] });
  assert.deepEqual(decodeTestList(undefined), { ok: true, tests: [] });
  const bad = decodeTestList('[a', 'FAIL_TO_PASS');
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? '' : bad.message, /^FAIL_TO_PASS is a string but not valid JSON/);
  assert.equal(decodeTestList('[1]').ok, false);
  assert.equal(decodeTestList({ a: 1 }).ok, false);
});

const r2eLog = [
  '=== short test summary info ===',
  'PASSED r2e_tests/test_1.py::TestSeries::test_add',
  'PASSED r2e_tests/test_1.py::test_format[a b]',
  'SKIPPED [1] r2e_tests/test_1.py:40: slow',
  'FAILED r2e_tests/test_1.py::test_div - ZeroDivisionError',
  '=== 1 failed, 2 passed, 1 skipped in 0.2s ===',
].join('\n');

test('gives an R2E reward of 1 when the parsed map equals the expected-output map', () => {
  const expected = decodeExpectedOutput('{"TestSeries.test_add": "PASSED", "test_format[a b]": "PASSED", "test_div - ZeroDivisionError": "FAILED"}');
  assert.ok(expected.ok);
  const grade = gradeR2e(parsePytestLog(r2eLog), expected.expected);
  assert.deepEqual(grade, { reward: 1, missing: [], unexpected: [], mismatched: [], noSummary: false });
});

test('gives an R2E reward of 0 and names the mismatch when a status differs', () => {
  const expected = decodeExpectedOutput({ 'TestSeries.test_add': 'PASSED', 'test_format[a b]': 'PASSED', test_div: 'PASSED' });
  assert.ok(expected.ok);
  const grade = gradeR2e(parsePytestLog(r2eLog), expected.expected);
  assert.equal(grade.reward, 0);
  assert.deepEqual(grade.mismatched, [{ test: 'test_div', expected: 'PASSED', actual: 'FAILED' }]);
});

test('gives an R2E reward of 0 when the log has no summary, as R2E parses nothing then', () => {
  const expected = decodeExpectedOutput({ 'TestSeries.test_add': 'PASSED' });
  assert.ok(expected.ok);
  const grade = gradeR2e(parsePytestLog('r2e_tests/test_1.py::TestSeries::test_add PASSED [100%]'), expected.expected);
  assert.deepEqual(grade, { reward: 0, missing: ['TestSeries.test_add'], unexpected: [], mismatched: [], noSummary: true });
});

test('rejects an expected-output map that is not an object of status strings', () => {
  assert.equal(decodeExpectedOutput('not json').ok, false);
  assert.equal(decodeExpectedOutput('["PASSED"]').ok, false);
  assert.equal(decodeExpectedOutput({ a: 1 }).ok, false);
});
