/**
 * Whether a test run can be graded at all (docs/upstream-contracts.md#swe-bench-grading). A run whose
 * tests never ran, or whose log contradicts the test command's own exit status, says nothing about
 * the patch: grading it would turn a broken environment into a zero, or a `conftest.py` that
 * prints `PASSED` lines into a one. Such a run is not gradable, and says why.
 */
import type { TestStatus } from '../protocol/testReport.js';
import { lookupStatus } from './lookup.js';

/** pytest's exit codes for runs in which the tests did not run to an outcome. */
const pytestNoOutcome: Readonly<Record<number, string>> = {
  2: 'pytest was interrupted',
  3: 'pytest hit an internal error',
  4: 'pytest could not start the run (a usage error, or a conftest.py that failed to import)',
  5: 'pytest collected no tests',
};

export interface GradabilityInput {
  /** The statuses grading reads (SWE-bench's view of the log). */
  readonly tests: ReadonlyMap<string, TestStatus>;
  /** The test command's exit status; null when it was killed at its time limit. */
  readonly exitCode: number | null;
  readonly parser: string;
  /** The task's own tests (FAIL_TO_PASS and PASS_TO_PASS). */
  readonly taskTests: readonly string[];
}

/** Why the run cannot be graded, or undefined when it can. */
export function notGradable(input: GradabilityInput): string | undefined {
  if (input.exitCode === null) return 'the tests did not finish within the time limit (sandbox.test_timeout)';
  const noOutcome = input.parser === 'pytest' ? pytestNoOutcome[input.exitCode] : undefined;
  if (noOutcome !== undefined) return `${noOutcome} (exit code ${input.exitCode}): the tests never ran`;
  const failing = [...input.tests.values()].some((s) => s === 'FAILED' || s === 'ERROR');
  if (input.exitCode !== 0 && input.tests.size > 0 && !failing) {
    return `the test command exited with ${input.exitCode} but its log reports no failing test, so the log does not describe the run (output printed by the code under test, such as a conftest.py?)`;
  }
  if (input.taskTests.length > 0 && input.taskTests.every((id) => lookupStatus(input.tests, id) === undefined)) {
    return `none of the task's ${input.taskTests.length} tests appears in the log: the run did not reach them`;
  }
  return undefined;
}
