/**
 * SWE-bench grading (`swebench/harness/grading.py`, the 5.0.2 rules in the table of
 * docs/upstream-contracts.md#swe-bench-grading). A test passes when the log reports it PASSED or XFAIL. For
 * FAIL_TO_PASS everything else is a failure: missing from the log, FAILED, ERROR, SKIPPED or
 * XPASS. For PASS_TO_PASS a SKIPPED test counts as maintained, because the fix did not break it;
 * which tests the log reports is the parser's business (parsePytest.ts keeps the harness's view).
 * The instance is resolved when both lists pass in full; an empty list counts as passed.
 *
 * The report has SWE-bench's shape. Like SWE-bench, FAIL_TO_FAIL and PASS_TO_FAIL are graded only
 * when the caller supplies those lists; otherwise they stay empty, and a PASS_TO_PASS test that
 * now fails is listed under PASS_TO_PASS.failure.
 */
import type { InstanceReport, ResolutionStatus, SwebenchReport, TestOutcomes, TestStatus, TestsStatus } from '../protocol/testReport.js';
import { lookupStatus } from './lookup.js';

/** The gold lists of one instance, already decoded (see `decodeTestList`). */
export interface GoldTests {
  readonly FAIL_TO_PASS: readonly string[];
  readonly PASS_TO_PASS: readonly string[];
  readonly FAIL_TO_FAIL?: readonly string[];
  readonly PASS_TO_FAIL?: readonly string[];
}

type Rule = 'must-pass' | 'may-skip';

function passes(status: TestStatus | undefined, rule: Rule): boolean {
  if (status === 'PASSED' || status === 'XFAIL') return true;
  return rule === 'may-skip' && status === 'SKIPPED';
}

function outcomes(tests: ReadonlyMap<string, TestStatus>, ids: readonly string[], rule: Rule): TestOutcomes {
  const result: TestOutcomes = { success: [], failure: [] };
  for (const id of ids) (passes(lookupStatus(tests, id), rule) ? result.success : result.failure).push(id);
  return result;
}

/** Splits every gold list into the tests that succeeded and those that failed. */
export function gradeTests(tests: ReadonlyMap<string, TestStatus>, gold: GoldTests): TestsStatus {
  return {
    FAIL_TO_PASS: outcomes(tests, gold.FAIL_TO_PASS, 'must-pass'),
    PASS_TO_PASS: outcomes(tests, gold.PASS_TO_PASS, 'may-skip'),
    FAIL_TO_FAIL: outcomes(tests, gold.FAIL_TO_FAIL ?? [], 'must-pass'),
    PASS_TO_FAIL: outcomes(tests, gold.PASS_TO_FAIL ?? [], 'must-pass'),
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
  readonly tests: ReadonlyMap<string, TestStatus>;
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
