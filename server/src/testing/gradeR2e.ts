/**
 * R2E-Gym grading (`_calculate_reward_r2e` with `parse_log_pytest` from
 * `r2egym/repo_analysis/execution_log_parser.py`, docs/upstream-contracts.md#r2e-gym-reward). R2E keys a test by
 * its node id without the file path, the remaining `::` parts joined with `.`
 * (`tests/test_x.py::TestA::test_b` → `TestA.test_b`), keeps only PASSED, FAILED and ERROR, and
 * parses nothing when the log has no "short test summary info". The reward is 1 exactly when the
 * parsed map and the expected map have the same size and every parsed test has its expected
 * status; a module-level collection error has the empty key, which counts towards the size but is
 * never compared, as in R2E.
 */
import type { R2eGrade, TestStatus } from '../protocol/testReport.js';
import { cleanLine, type ParsedTestLog } from './logText.js';

const r2eStatuses: ReadonlySet<TestStatus> = new Set(['PASSED', 'FAILED', 'ERROR']);

/** R2E's key for a pytest node id: no file path, `::` joined as `.`, cut at ` - `, no colour. */
export function r2eKey(nodeId: string): string {
  return cleanLine(nodeId.split('::').slice(1).join('.')).split(' - ')[0] ?? '';
}

/** The map R2E's own parser would have built from the same log. */
export function toR2eStatuses(log: ParsedTestLog): Map<string, TestStatus> {
  const result = new Map<string, TestStatus>();
  if (!log.complete) return result;
  for (const [id, status] of log.tests) if (r2eStatuses.has(status)) result.set(r2eKey(id), status);
  return result;
}

export type ExpectedOutputResult =
  | { readonly ok: true; readonly expected: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly code: 'testing/expected-output'; readonly message: string };

/**
 * Decodes a task's `expected_output_json` (an object, or a JSON string of one) into test → status,
 * with keys cleaned as R2E cleans them: colour removed and cut at ` - `.
 */
export function decodeExpectedOutput(value: unknown): ExpectedOutputResult {
  const fail = (message: string): ExpectedOutputResult => ({ ok: false, code: 'testing/expected-output', message });
  let decoded: unknown = value;
  if (typeof value === 'string') {
    try {
      decoded = JSON.parse(value);
    } catch {
      return fail('expected_output_json is a string but not valid JSON; R2E-Gym writes it as {"test id": "PASSED", …}.');
    }
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) {
    return fail('expected_output_json must be an object mapping test ids to statuses such as "PASSED".');
  }
  const expected = new Map<string, string>();
  for (const [key, status] of Object.entries(decoded)) {
    if (typeof status !== 'string') return fail(`expected_output_json["${key}"] must be a status string such as "PASSED".`);
    expected.set(cleanLine(key).split(' - ')[0] ?? '', status);
  }
  return { ok: true, expected };
}

/** Compares a parsed pytest log with the expected map and says why the reward is 0 when it is. */
export function gradeR2e(log: ParsedTestLog, expected: ReadonlyMap<string, string>): R2eGrade {
  const parsed = toR2eStatuses(log);
  const missing = [...expected.keys()].filter((key) => !parsed.has(key));
  const unexpected = [...parsed.keys()].filter((key) => !expected.has(key));
  const mismatched: R2eGrade['mismatched'] = [];
  for (const [test, actual] of parsed) {
    const want = expected.get(test);
    if (test !== '' && want !== undefined && want !== actual) mismatched.push({ test, expected: want, actual });
  }
  const comparedMiss = unexpected.some((key) => key !== '');
  const reward = parsed.size === expected.size && !comparedMiss && mismatched.length === 0 ? 1 : 0;
  return { reward, missing, unexpected, mismatched, noSummary: !log.complete };
}
