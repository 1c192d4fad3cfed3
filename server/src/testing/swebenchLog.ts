/**
 * How the harness turns an evaluation log into a status map: swebench 5.0.2's `get_logs_eval`
 * (`swebench/harness/grading.py`; docs/upstream-contracts.md#swe-bench-grading), ported exactly.
 * `eval.sh` brackets the test command with `>>>>> Start Test Output` and `>>>>> End Test Output`
 * and records the command's exit status after the end marker; the harness writes other `>>>>>`
 * markers when something went wrong before or around the tests.
 */
import { pyInt, pyWhitespace } from './pyText.js';
import { harnessParsers, type HarnessParserName } from './harnessParsers.js';
import { HarnessParserCrash, type StatusMap } from './logText.js';

export const startMarker = '>>>>> Start Test Output';
export const endMarker = '>>>>> End Test Output';
const failureMarkers = ['>>>>> Patch Apply Failed', '>>>>> Reset Failed', '>>>>> Tests Errored', '>>>>> Tests Timed Out'] as const;

const ws = `[${pyWhitespace}]`;
// `SUITE_RAN` (re.M): signs that a runner executed at least one test, for logs that parse to nothing.
const suiteRan = new RegExp(
  [
    'Executed [1-9]\\p{Nd}* of \\p{Nd}+',
    'TOTAL: [1-9]\\p{Nd}* (?:SUCCESS|FAILED)',
    '[1-9]\\p{Nd}* passing',
    `Tests:${ws}+[1-9]\\p{Nd}*`,
    'Test Suites:' + `${ws}+(?:\\p{Nd}+ [\\p{L}\\p{N}_]+, )*[1-9]\\p{Nd}* total`,
    '(?:^|(?<=\\n))# tests [1-9]\\p{Nd}*',
    '[1-9]\\p{Nd}* specs?, \\p{Nd}+ failures?',
    "': ok(?=\\n|$)",
  ].join('|'),
  'u',
);

const exitCodeLine = new RegExp(`>>>>> Test Exit Code:${ws}*(-?\\p{Nd}+)`, 'u');

/** `parse_test_exit_code`: the first exit-status line anywhere in the text, as the harness reads it. */
export function testExitCode(text: string): number | undefined {
  const match = exitCodeLine.exec(text);
  return match?.[1] === undefined ? undefined : pyInt(match[1]);
}

/** The harness reads its log in Python's text mode, which turns `\r\n` and a lone `\r` into `\n`. */
export function universalNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** `crashed` when the harness's parser raises on the log, which the harness reports as an error of the instance. */
export type LogsEval = { readonly found: true; readonly tests: StatusMap } | { readonly found: false; readonly reason: string; readonly crashed?: true };

function parse(parser: HarnessParserName, text: string): StatusMap {
  return harnessParsers[parser](text);
}

/** `get_logs_eval` on a log's text (already read with universal newlines): its status map, or why the harness would not grade it. */
export function logsEval(content: string, parser: HarnessParserName): LogsEval {
  const marker = failureMarkers.find((m) => content.includes(m));
  if (marker !== undefined) return { found: false, reason: `the log says "${marker}", so its tests were not run to completion` };
  if (!content.includes(startMarker) || !content.includes(endMarker))
    return { found: false, reason: `the log lacks the "${startMarker}" or the "${endMarker}" marker that eval.sh writes around the tests` };
  // `content.split(START)[1].split(END)[0]`: up to a second start marker, then up to the first end marker.
  const sliced = (content.split(startMarker)[1] ?? '').split(endMarker)[0] ?? '';
  let tests: StatusMap;
  try {
    tests = parse(parser, sliced);
    // Results printed outside the markers (stdout and stderr interleaved) are read from the whole log.
    if (tests.size === 0) tests = parse(parser, content);
  } catch (error) {
    if (error instanceof HarnessParserCrash)
      return {
        found: false,
        reason: `the harness's ${parser} fails on this log (${error.message}), so the harness reports the instance as an error`,
        crashed: true,
      };
    throw error;
  }
  if (tests.size === 0 && !suiteRan.test(content))
    return { found: false, reason: 'no test result was found in the log and nothing in it shows that the tests ran' };
  const exitCode = testExitCode(content);
  const failing = [...tests.values()].some((s) => s === 'FAILED' || s === 'ERROR');
  if (exitCode !== undefined && exitCode !== 0 && tests.size > 0 && !failing) {
    return {
      found: false,
      reason: `the tests exited with ${exitCode} but the log reports no failing test, so the log does not describe the run (output printed by the code under test?)`,
    };
  }
  return { found: true, tests };
}

export type TestOutputResult =
  | { readonly ok: true; readonly output: string; readonly exitCode: number | undefined }
  | { readonly ok: false; readonly code: 'testing/log-invalid'; readonly message: string };

/**
 * The test section of an evaluation log for the readable parsers and for tasks graded without
 * lists: the text the harness slices out (the whole log when that is empty), and the exit status
 * `eval.sh` recorded after the last end marker, which the tests themselves cannot print (they run
 * before it); or why the log has no usable test section.
 */
export function extractTestOutput(log: string): TestOutputResult {
  const marker = failureMarkers.find((m) => log.includes(m));
  if (marker !== undefined) return { ok: false, code: 'testing/log-invalid', message: `The log says "${marker}", so its tests were not run to completion.` };
  if (!log.includes(startMarker) || !log.includes(endMarker)) {
    return {
      ok: false,
      code: 'testing/log-invalid',
      message: `The log lacks the "${startMarker}" / "${endMarker}" markers that eval.sh writes around the tests.`,
    };
  }
  const between = (log.split(startMarker)[1] ?? '').split(endMarker)[0] ?? '';
  return { ok: true, output: between.trim() === '' ? log : between, exitCode: recordedExitCode(log) };
}

/** The exit status `eval.sh` recorded after the last end marker; undefined when it recorded none. */
export function recordedExitCode(log: string): number | undefined {
  const end = log.lastIndexOf(endMarker);
  return end === -1 ? undefined : testExitCode(log.slice(end));
}
