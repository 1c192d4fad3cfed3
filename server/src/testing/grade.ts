/**
 * SWE-bench grading, ported from swebench 5.0.2's `get_eval_tests_report` and
 * `get_resolution_status` (`swebench/harness/grading.py`; the rules are the table of
 * docs/upstream-contracts.md#swe-bench-grading). A FAIL_TO_PASS test succeeds when the log says
 * PASSED or XFAIL and fails when it is missing, FAILED, ERROR or SKIPPED; a PASS_TO_PASS test is
 * maintained when it passed or was skipped. A test whose status is none of these (a word the
 * harness does not know) lands in neither list, as in the harness; strictness.ts says what we do
 * about that. Resolution is full when both rates are 1 (an empty list counts as 1).
 *
 * Like SWE-bench, FAIL_TO_FAIL and PASS_TO_FAIL are graded only when the caller supplies those
 * lists; otherwise they stay empty.
 */
import type { InstanceReport, ResolutionStatus, SwebenchReport, TestOutcomes, TestsStatus } from '../protocol/testReport.js';
import type { StatusMap } from './logText.js';
import { testFailed, testMaintained, testPassed } from './lookup.js';

/** The gold lists of one instance, already decoded (see `decodeTestList`). */
export interface GoldTests {
  readonly FAIL_TO_PASS: readonly string[];
  readonly PASS_TO_PASS: readonly string[];
  readonly FAIL_TO_FAIL?: readonly string[];
  readonly PASS_TO_FAIL?: readonly string[];
}

type Succeeds = (tests: StatusMap, id: string) => boolean;

function outcomes(tests: StatusMap, ids: readonly string[], succeeds: Succeeds): TestOutcomes {
  const result: TestOutcomes = { success: [], failure: [] };
  for (const id of ids) {
    if (succeeds(tests, id)) result.success.push(id);
    else if (testFailed(tests, id)) result.failure.push(id);
  }
  return result;
}

/** Splits every gold list into the tests that succeeded and those that failed. */
export function gradeTests(tests: StatusMap, gold: GoldTests): TestsStatus {
  return {
    FAIL_TO_PASS: outcomes(tests, gold.FAIL_TO_PASS, testPassed),
    PASS_TO_PASS: outcomes(tests, gold.PASS_TO_PASS, testMaintained),
    FAIL_TO_FAIL: outcomes(tests, gold.FAIL_TO_FAIL ?? [], testPassed),
    PASS_TO_FAIL: outcomes(tests, gold.PASS_TO_FAIL ?? [], testPassed),
  };
}

function rate(list: TestOutcomes): number {
  const total = list.success.length + list.failure.length;
  return total === 0 ? 1 : list.success.length / total;
}

/** SWE-bench's resolution level: full when both rates are 1, partial when only some F2P pass. */
export function resolutionStatus(status: TestsStatus): ResolutionStatus {
  const f2p = rate(status.FAIL_TO_PASS);
  const p2p = rate(status.PASS_TO_PASS);
  if (f2p === 1 && p2p === 1) return 'RESOLVED_FULL';
  if (f2p > 0 && f2p < 1 && p2p === 1) return 'RESOLVED_PARTIAL';
  return 'RESOLVED_NO';
}

/** Everything known about one evaluated instance. */
export interface InstanceOutcome {
  /** The submitted patch; null when the model produced none (SWE-bench's `None`). */
  readonly patch: string | null;
  /** Whether the patch applied and the test log is usable; false leaves `tests_status` out. */
  readonly patchApplied: boolean;
  /** The parsed test log; ignored when the patch did not apply. */
  readonly tests: StatusMap;
  readonly gold: GoldTests;
}

/** One instance's entry of `report.json`, with the same fields SWE-bench's `get_eval_report` fills. */
export function gradeInstance(outcome: InstanceOutcome): InstanceReport {
  const base = { patch_is_None: outcome.patch === null, patch_exists: outcome.patch !== null, patch_successfully_applied: false, resolved: false };
  if (outcome.patch === null || !outcome.patchApplied) return base;
  const testsStatus = gradeTests(outcome.tests, outcome.gold);
  return { ...base, patch_successfully_applied: true, resolved: resolutionStatus(testsStatus) === 'RESOLVED_FULL', tests_status: testsStatus };
}

/** The whole `report.json` for one instance: `{ "<instance_id>": report }`. */
export function swebenchReport(instanceId: string, outcome: InstanceOutcome): SwebenchReport {
  return { [instanceId]: gradeInstance(outcome) };
}
