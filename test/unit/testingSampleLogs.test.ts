import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gradeTests, parsePytestLog, parseUnittestLog, resolutionStatus, type ParsedTestLog } from '../../server/src/testing/index.js';

// These logs were captured from graph-planner/repoenv-sample (see test/integration/images.test.ts,
// which checks that the image still produces the same statuses).
function fixture(name: string): string {
  return readFileSync(join(__dirname, '..', 'fixtures', 'logs', name), 'utf8');
}

function entries(log: ParsedTestLog): Record<string, string> {
  return Object.fromEntries(log.tests);
}

test('reads the sample image pytest -rA log: test_addition failed, test_multiplication passed', () => {
  const parsed = parsePytestLog(fixture('sample_pytest_rA.txt'));
  assert.equal(parsed.complete, true);
  assert.deepEqual(entries(parsed), {
    'tests/test_calc.py::test_addition': 'FAILED',
    'tests/test_calc.py::test_multiplication': 'PASSED',
  });
});

test('reads the sample image unittest -v log under the names Python 3.11 prints', () => {
  const parsed = parseUnittestLog(fixture('sample_unittest_v.txt'));
  assert.equal(parsed.complete, true);
  assert.deepEqual(entries(parsed), {
    'test_add (tests.test_calc_unittest.CalcTest.test_add)': 'FAILED',
    'test_mul (tests.test_calc_unittest.CalcTest.test_mul)': 'PASSED',
  });
});

test('grades the sample task in its initial failing state as not resolved, with its pass-to-pass test intact', () => {
  const status = gradeTests(parsePytestLog(fixture('sample_pytest_rA.txt')).tests, {
    FAIL_TO_PASS: ['tests/test_calc.py::test_addition'],
    PASS_TO_PASS: ['tests/test_calc.py::test_multiplication'],
  });
  assert.deepEqual(status.FAIL_TO_PASS, { success: [], failure: ['tests/test_calc.py::test_addition'] });
  assert.deepEqual(status.PASS_TO_PASS, { success: ['tests/test_calc.py::test_multiplication'], failure: [] });
  assert.equal(resolutionStatus(status), 'RESOLVED_NO');
});
