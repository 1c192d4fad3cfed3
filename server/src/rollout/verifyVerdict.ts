/**
 * A task's verdict from the test runs of its verification (protocol/verify.ts names the
 * statuses). Pure: the runs' grades in, the verdict's fields out.
 *
 * It follows SWE-bench's validation (docs/upstream-contracts.md#swe-bench-validation): a
 * FAIL_TO_PASS test must fail before the fix and pass after it, a PASS_TO_PASS test must pass both
 * times, and a test whose outcome changes between identical runs is flaky and left out of the lists
 * (it says nothing about the patch, and would make the reward a coin toss).
 */
import type { StrictnessRule, TestGrade, TestStatus } from '../protocol/testReport.js';
import type { VerdictStatus } from '../protocol/verify.js';
import { lookupStatus } from '../testing/index.js';

export interface GradedRun {
  readonly patch: 'empty' | 'gold';
  readonly repeat: number;
  readonly grade: TestGrade;
  /** Each test the log reported, with its status (the run record's `tests`). */
  readonly tests?: Readonly<Record<string, TestStatus>>;
}

export interface VerdictFields {
  readonly status: VerdictStatus;
  readonly reason?: string;
  readonly flaky: string[];
  readonly failing: string[];
  readonly passing_without_fix: string[];
  readonly errored_before_running?: string[];
  readonly strictness?: StrictnessRule[];
}

/** The strictness rules a grade names: where it differs from the harness's and why (protocol/testReport.ts). */
export function gradeStrictness(grade: TestGrade): StrictnessRule[] {
  if (grade.kind === 'invalid') return grade.rule === undefined ? [] : [grade.rule];
  if (grade.kind === 'swebench') return grade.strictness ?? [];
  return [];
}

/**
 * Failing tests that never reached their body in some gold run: ERROR in the log, or absent from a
 * log that reported other tests (their module did not import, so nothing of it was collected).
 */
function erroredBeforeRunning(runs: readonly GradedRun[], failing: readonly string[]): string[] {
  const gold = runs.filter((r) => r.patch === 'gold' && r.tests !== undefined);
  return failing.filter((test) =>
    gold.some((r) => {
      const status = lookupStatus(new Map(Object.entries(r.tests ?? {})), test);
      return status === 'ERROR' || (status === undefined && Object.keys(r.tests ?? {}).length > 0);
    }),
  );
}

/** Each task test's outcomes over the runs of one patch: true passed, false did not. */
function outcomes(runs: readonly GradedRun[], patch: 'empty' | 'gold'): Map<string, boolean[]> {
  const out = new Map<string, boolean[]>();
  for (const run of runs) {
    if (run.patch !== patch || run.grade.kind !== 'swebench') continue;
    const status = run.grade.report.tests_status;
    if (status === undefined) continue;
    for (const list of [status.FAIL_TO_PASS, status.PASS_TO_PASS]) {
      for (const test of list.success) out.set(test, [...(out.get(test) ?? []), true]);
      for (const test of list.failure) out.set(test, [...(out.get(test) ?? []), false]);
    }
  }
  return out;
}

function changing(map: ReadonlyMap<string, boolean[]>): string[] {
  return [...map].filter(([, seen]) => seen.some((x) => x) && seen.some((x) => !x)).map(([test]) => test);
}

const sorted = (tests: Iterable<string>): string[] => [...new Set(tests)].sort();

/**
 * The verdict of a task whose runs all happened (the gold patch applied every time). `fail` and
 * `pass` are the task's FAIL_TO_PASS and PASS_TO_PASS lists.
 */
export function verdictOf(runs: readonly GradedRun[], fail: readonly string[], pass: readonly string[]): VerdictFields {
  const verdict = verdictOfRuns(runs, fail, pass);
  // A verdict the harness might not give names the rules that made its runs differ from the harness's grades.
  const strictness = [...new Set(runs.flatMap((r) => gradeStrictness(r.grade)))].sort();
  return strictness.length === 0 ? verdict : { ...verdict, strictness };
}

function verdictOfRuns(runs: readonly GradedRun[], fail: readonly string[], pass: readonly string[]): VerdictFields {
  const none = { flaky: [], failing: [], passing_without_fix: [] };
  const invalid = runs.find((r) => r.grade.kind === 'invalid');
  if (invalid !== undefined && invalid.grade.kind === 'invalid') {
    return {
      ...none,
      status: 'not-gradable',
      reason: `the run with ${invalid.patch === 'gold' ? 'the gold patch' : 'no patch'} (repeat ${invalid.repeat}) is not gradable: ${invalid.grade.reason}`,
    };
  }
  const other = runs.find((r) => r.grade.kind !== 'swebench');
  if (other !== undefined)
    return { ...none, status: 'not-gradable', reason: `the task is graded as ${other.grade.kind}, not by FAIL_TO_PASS and PASS_TO_PASS lists` };
  const gold = outcomes(runs, 'gold');
  const empty = outcomes(runs, 'empty');
  const flakySet = new Set([...changing(gold), ...changing(empty)]);
  const flaky = sorted(flakySet);
  const kept = (tests: readonly string[]) => tests.filter((t) => !flakySet.has(t));
  const failing = sorted([...gold].filter(([test, seen]) => !flakySet.has(test) && seen.some((x) => !x)).map(([test]) => test));
  const passingWithoutFix = sorted(kept(fail).filter((t) => (empty.get(t) ?? []).length > 0 && (empty.get(t) ?? []).every((x) => x)));
  const base = { flaky, failing, passing_without_fix: passingWithoutFix };
  if (failing.length > 0) {
    const errored = erroredBeforeRunning(runs, failing);
    const erroredCount = errored.filter((test) =>
      runs.some((r) => r.patch === 'gold' && r.tests !== undefined && lookupStatus(new Map(Object.entries(r.tests)), test) === 'ERROR'),
    ).length;
    const absent = errored.length - erroredCount;
    const parts = [
      ...(erroredCount === 0 ? [] : [`${erroredCount} errored in collection or setup (ERROR)`]),
      // pytest's -rA summary names a skipped test by file and line only, so a skip shows as absent too.
      ...(absent === 0 ? [] : [`${absent} ${absent === 1 ? 'is' : 'are'} not in the log by name (not collected, or skipped)`]),
    ];
    const phase = errored.length === 0 ? '' : `; of them, ${parts.join(' and ')}: their bodies never ran, which points at the environment rather than the fix`;
    return {
      ...base,
      status: 'gold-fails',
      reason: `${failing.length} test(s) do not pass with the gold patch: ${failing.slice(0, 3).join(', ')}${failing.length > 3 ? ', …' : ''}${phase}`,
      ...(errored.length === 0 ? {} : { errored_before_running: errored }),
    };
  }
  const keptFail = kept(fail);
  if (keptFail.length === 0) return { ...base, status: 'flaky', reason: `every FAIL_TO_PASS test is flaky, so nothing is left to grade the fix by` };
  // With no patch the task must not resolve: some kept FAIL_TO_PASS test must fail every time.
  const emptyResolves = keptFail.every((t) => (empty.get(t) ?? []).some((x) => x)) && kept(pass).every((t) => !(empty.get(t) ?? []).some((x) => !x));
  if (emptyResolves) return { ...base, status: 'empty-passes', reason: 'the task resolves with no patch at all: its FAIL_TO_PASS tests already pass' };
  if (flaky.length > 0)
    return {
      ...base,
      status: 'flaky',
      reason: `${flaky.length} test(s) changed outcome between identical runs and are left out of grading: ${flaky.slice(0, 3).join(', ')}${flaky.length > 3 ? ', …' : ''}`,
    };
  return { ...base, status: 'certified' };
}

/** Whether a verdict's task goes into the certified dataset (with its flaky tests left out). */
export function certifiable(status: VerdictStatus, fail: readonly string[], flaky: readonly string[]): boolean {
  return status === 'certified' || (status === 'flaky' && fail.some((t) => !flaky.includes(t)));
}
