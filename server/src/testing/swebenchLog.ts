/**
 * The part of a SWE-bench evaluation log that holds test output (`get_logs_eval`; see
 * docs/upstream-contracts.md#swe-bench-grading). `eval.sh` brackets the test command with `>>>>> Start Test Output` and
 * `>>>>> End Test Output`; the harness writes other `>>>>>` markers when something went wrong
 * before or around the tests, and such a log must not be graded.
 */

const failureMarkers = ['>>>>> Patch Apply Failed', '>>>>> Reset Failed', '>>>>> Tests Errored', '>>>>> Tests Timed Out'] as const;
const startMarker = '>>>>> Start Test Output';
const endMarker = '>>>>> End Test Output';

export type TestOutputResult =
  | { readonly ok: true; readonly output: string; readonly exitCode: number | undefined }
  | { readonly ok: false; readonly code: 'testing/log-invalid'; readonly message: string };

/** Returns the test output of an evaluation log, or why the log cannot be graded. */
export function extractTestOutput(log: string): TestOutputResult {
  const marker = failureMarkers.find((m) => log.includes(m));
  if (marker !== undefined) return { ok: false, code: 'testing/log-invalid', message: `The log says "${marker}", so its tests were not run to completion.` };
  const start = log.indexOf(startMarker);
  const end = log.indexOf(endMarker, start === -1 ? 0 : start);
  if (start === -1 || end === -1) {
    return { ok: false, code: 'testing/log-invalid', message: `The log lacks the "${startMarker}" / "${endMarker}" markers that eval.sh writes around the tests.` };
  }
  const between = log.slice(start + startMarker.length, end);
  const exit = />>>>> Test Exit Code:\s*(-?\d+)/.exec(log.slice(end));
  // SWE-bench falls back to the whole log when nothing was printed between the markers.
  return { ok: true, output: between.trim() === '' ? log : between, exitCode: exit?.[1] === undefined ? undefined : Number(exit[1]) };
}
