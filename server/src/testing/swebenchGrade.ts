/**
 * Grades a run of a task that has SWE-bench lists: the harness's verdict on the log (its parser
 * for the repository, `get_logs_eval`, `get_eval_tests_report`; swebenchLog.ts, grade.ts), then
 * our strictness rules on top (docs/upstream-contracts.md#where-we-are-stricter). Each rule can
 * only take a pass away (a test graded failed, a run not gradable), never give one, and the grade
 * names every rule that made it differ from the harness's.
 */
import type { StrictnessRule, TestGrade, TestsStatus } from '../protocol/testReport.js';
import { gradeInstance, gradeTests, resolutionStatus, type GoldTests } from './grade.js';
import type { HarnessParserName } from './harnessParsers.js';
import type { StatusMap } from './logText.js';
import { resolveCase } from './lookup.js';
import { endMarker, logsEval, recordedExitCode, startMarker, universalNewlines, type LogsEval } from './swebenchLog.js';

/** The harness's view of one run's output. */
export interface HarnessView {
  readonly parser: HarnessParserName;
  readonly eval: LogsEval;
  /**
   * The exit status the tests really had, for our rules: the one `eval.sh` recorded after the last
   * end marker, or the test command's own when the output has no markers; null when the run hit
   * its time limit, undefined when nothing recorded it.
   */
  readonly runExitCode: number | null | undefined;
}

/**
 * The harness's view of a test command's output. `evalScript` says whether the command is an
 * evaluation script that writes the markers (its output must have them, as the harness requires);
 * the output of a test command of our own has none and is read as the harness would read it
 * between them.
 */
export function harnessView(output: string, exitCode: number | null, parser: HarnessParserName, evalScript: boolean): HarnessView {
  const content = universalNewlines(output);
  if (!evalScript && !content.includes(startMarker) && !content.includes(endMarker)) {
    return { parser, eval: logsEval(`${startMarker}\n${content}\n${endMarker}\n`, parser), runExitCode: exitCode };
  }
  return { parser, eval: logsEval(content, parser), runExitCode: exitCode === null ? null : recordedExitCode(content) };
}

/** pytest's exit statuses for runs whose tests did not reach an outcome. */
const pytestNoOutcome: Readonly<Record<number, string>> = {
  2: 'pytest was interrupted',
  3: 'pytest hit an internal error',
  4: 'pytest could not start the run (a usage error, or a conftest.py that failed to import)',
  5: 'pytest collected no tests',
};
const pytestParsers: ReadonlySet<HarnessParserName> = new Set([
  'parse_log_pytest',
  'parse_log_pytest_options',
  'parse_log_matplotlib',
  'parse_log_pytest_v2',
  'parse_log_seaborn',
  'parse_log_astroid',
  'parse_log_flask',
  'parse_log_marshmallow',
  'parse_log_pvlib',
  'parse_log_pyvista',
  'parse_log_sqlfluff',
  'parse_log_xarray',
  'parse_log_pydicom',
  'parse_log_requests',
  'parse_log_pylint',
  'parse_log_astropy',
  'parse_log_scikit',
  'parse_log_sphinx',
]);

/** The first rule by which a log the harness grades is not gradable for us, with why. */
function notGradable(view: HarnessView, tests: StatusMap, taskTests: readonly string[]): { rule: StrictnessRule; reason: string } | undefined {
  const exit = view.runExitCode;
  if (exit === null) return { rule: 'time-limit', reason: 'the tests did not finish within the time limit (sandbox.test_timeout)' };
  const noOutcome = exit === undefined || !pytestParsers.has(view.parser) ? undefined : pytestNoOutcome[exit];
  if (exit !== undefined && noOutcome !== undefined) return { rule: 'pytest-no-outcome', reason: `${noOutcome} (exit code ${exit}): the tests never ran` };
  const failing = [...tests.values()].some((s) => s === 'FAILED' || s === 'ERROR');
  if (exit !== undefined && exit !== 0 && tests.size > 0 && !failing) {
    return {
      rule: 'run-exit-status',
      reason: `the test command exited with ${exit} but its log reports no failing test, so the log does not describe the run (output printed by the code under test, such as a conftest.py?)`,
    };
  }
  if (taskTests.length > 0 && taskTests.every((id) => resolveCase(tests, id) === undefined)) {
    return { rule: 'task-tests-absent', reason: `none of the task's ${taskTests.length} tests appears in the log: the run did not reach them` };
  }
  return undefined;
}

/** Gold tests the harness leaves out of both lists (a status word it does not know), moved to the failures. */
function unknownAsFailed(status: TestsStatus, gold: GoldTests): { status: TestsStatus; moved: boolean } {
  let moved = false;
  const fix = (list: TestsStatus['FAIL_TO_PASS'], ids: readonly string[]) => {
    const left = ids.filter((id) => !list.success.includes(id) && !list.failure.includes(id));
    if (left.length > 0) moved = true;
    return { success: list.success, failure: [...list.failure, ...left] };
  };
  return {
    status: { ...status, FAIL_TO_PASS: fix(status.FAIL_TO_PASS, gold.FAIL_TO_PASS), PASS_TO_PASS: fix(status.PASS_TO_PASS, gold.PASS_TO_PASS) },
    moved,
  };
}

const sameOutcomes = (a: TestsStatus, b: TestsStatus): boolean => JSON.stringify(a) === JSON.stringify(b);

export interface SwebenchGradeInput {
  readonly view: HarnessView;
  readonly gold: GoldTests;
  readonly patch: string | null;
  /** The statuses after pytest's JUnit report checked them (junitWitness.ts); absent when it did not. */
  readonly witnessed?: StatusMap;
}

export function gradeSwebench(input: SwebenchGradeInput): TestGrade {
  const { view, gold } = input;
  if (!view.eval.found) {
    // The harness would not grade it either, so no rule of ours decides; ours may still say more precisely why.
    const why = notGradable(view, new Map(), []);
    const also = why === undefined || why.rule === 'run-exit-status' ? '' : `${why.reason}; `;
    return { kind: 'invalid', reason: `${also}the harness would not grade this log: ${view.eval.reason}` };
  }
  const harnessTests = view.eval.tests;
  const unusable = notGradable(view, harnessTests, [...gold.FAIL_TO_PASS, ...gold.PASS_TO_PASS]);
  if (unusable !== undefined) return { kind: 'invalid', ...unusable };
  const harness = gradeTests(harnessTests, gold);
  const strictness: StrictnessRule[] = [];
  const witnessed = input.witnessed === undefined ? harness : gradeTests(input.witnessed, gold);
  if (!sameOutcomes(witnessed, harness)) strictness.push('junit-report');
  const completed = unknownAsFailed(witnessed, gold);
  if (completed.moved) strictness.push('unknown-status');
  const resolution = resolutionStatus(completed.status);
  const base = gradeInstance({ patch: input.patch, patchApplied: true, tests: harnessTests, gold });
  // With no patch at all the harness leaves the tests out of the report, as gradeInstance does.
  const report = input.patch === null ? base : { ...base, resolved: resolution === 'RESOLVED_FULL', tests_status: completed.status };
  return { kind: 'swebench', resolution, report, ...(strictness.length === 0 ? {} : { harness: resolutionStatus(harness), strictness }) };
}
