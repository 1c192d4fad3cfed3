/**
 * Which entry of a parsed log grades a gold test id, and whether it passed, failed or was
 * maintained: swebench 5.0.2's `_resolve_case`, `test_passed`, `test_failed` and `test_maintained`
 * (`swebench/harness/grading.py`; docs/upstream-contracts.md#swe-bench-grading), ported exactly.
 *
 * An id is looked up as it is. Only an id with more `[` than `]` (a parametrised id that SWE-bench
 * stored cut short, `test_x[log(photon`) falls back to the log's ids that start with it, and only
 * when all of those agree on passing or not; the first of them, in the log's order, then stands
 * for it.
 */
import type { StatusMap } from './logText.js';

const count = (text: string, ch: string): number => text.split(ch).length - 1;

/** PASSED and XFAIL grade the same. */
const passing: ReadonlySet<string> = new Set(['PASSED', 'XFAIL']);

/** The key of `tests` that grades `id`, or undefined when none does. */
export function resolveCase(tests: StatusMap, id: string): string | undefined {
  if (tests.has(id)) return id;
  if (count(id, '[') <= count(id, ']')) return undefined;
  const matches = [...tests.keys()].filter((key) => key.startsWith(id));
  const first = matches[0];
  if (first === undefined) return undefined;
  const agreed = new Set(matches.map((key) => passing.has(tests.get(key) ?? '')));
  return agreed.size === 1 ? first : undefined;
}

/** The status that grades `id`, or undefined when the log does not report it. */
export function lookupStatus(tests: StatusMap, id: string): string | undefined {
  const key = resolveCase(tests, id);
  return key === undefined ? undefined : tests.get(key);
}

export function testPassed(tests: StatusMap, id: string): boolean {
  const status = lookupStatus(tests, id);
  return status !== undefined && passing.has(status);
}

/** PASS_TO_PASS: a skipped test is not a regression. */
export function testMaintained(tests: StatusMap, id: string): boolean {
  return testPassed(tests, id) || lookupStatus(tests, id) === 'SKIPPED';
}

/** Missing, FAILED, ERROR or SKIPPED. A status word the harness does not know is neither passed nor failed. */
export function testFailed(tests: StatusMap, id: string): boolean {
  const status = lookupStatus(tests, id);
  return status === undefined || status === 'FAILED' || status === 'ERROR' || status === 'SKIPPED';
}
