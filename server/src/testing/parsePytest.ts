/**
 * Parses the output of `pytest -rA` into test id → status, for people to read (the test-run
 * record's `tests`); grading reads the harness's own parser instead (harnessPytest.ts). Like
 * SWE-bench's `parse_log_pytest`, the lines of the "short test summary info" section
 * (`PASSED tests/test_x.py::test_a`, `FAILED … - message`) decide. Unlike it, a parametrised id
 * keeps the spaces inside its brackets. Verbose per-test lines (`tests/test_x.py::test_a
 * PASSED [ 50%]`, written with `-v`) fill in tests the summary does not name: all of them when the
 * run crashed or timed out before its summary, and skipped tests, which the summary folds into
 * `SKIPPED [2] tests/test_x.py:12: reason` lines that carry no test id.
 */
import { testStatuses, type TestStatus } from '../protocol/testReport.js';
import { logLines, type ParsedTestLog } from './logText.js';

const statusAlternation = testStatuses.join('|');
const summaryHeader = /^=+ short test summary info =+$/;
// The section ends at the next `=== … ===` rule, normally "=== 1 failed, 2 passed in 0.12s ===".
const sectionRule = /^=+( .* )?=+$/;
const statusFirst = new RegExp(`^(${statusAlternation}) (.+)$`);
// pytest-xdist writes verbose results as `[gw0] [ 50%] PASSED tests/test_x.py::test_a`.
const xdistPrefix = /^\[gw\d+\] (?:\[\s*\d+%\] )?/;
const statusLast = new RegExp(`^(.+?) (${statusAlternation})(?: \\(.*\\))?(?:\\s+\\[\\s*\\d+%\\])?\\s*$`);
const foldedSkip = /^\[\d+\] /;
const statusLastLoose = new RegExp(`^(\\S+::\\S+) (${statusAlternation})(?:\\s|$)`);

function isStatus(word: string): word is TestStatus {
  return (testStatuses as readonly string[]).includes(word);
}

/**
 * Whether a string looks like a pytest node id (`path::name`, or a bare `path.py` for errors
 * raised while collecting a module), so that ordinary output that happens to start with a status
 * word is not taken for a result.
 */
function looksLikeNodeId(id: string): boolean {
  const path = id.split('::')[0] ?? '';
  return id.includes('::') || /\.py$/.test(path);
}

/**
 * Cuts the node id off the start of a summary line's remainder. The id ends at the first space
 * outside brackets, so `test_a[a b] - AssertionError` gives `test_a[a b]`. When the brackets do
 * not balance (a parameter containing `[`), it falls back to SWE-bench's rule: up to the first
 * space.
 */
export function splitNodeId(rest: string): string {
  let depth = 0;
  for (let i = 0; i < rest.length; i += 1) {
    const ch = rest[i];
    if (ch === '[') depth += 1;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0 && (ch === ' ' || ch === '\t')) return rest.slice(0, i);
  }
  if (depth === 0) return rest;
  return rest.split(/\s/)[0] ?? rest;
}

/** A result stated status first: a summary line, or an xdist verbose line. */
function parseStatusFirst(line: string): { id: string; status: TestStatus } | undefined {
  const match = statusFirst.exec(line);
  if (match === null) return undefined;
  const [, word = '', rest = ''] = match;
  if (!isStatus(word) || foldedSkip.test(rest)) return undefined;
  const id = splitNodeId(rest.trimStart());
  return looksLikeNodeId(id) ? { id, status: word } : undefined;
}

/** A verbose result stated status last: `tests/test_x.py::test_a PASSED [ 50%]`. */
function parseStatusLast(line: string): { id: string; status: TestStatus } | undefined {
  // A status followed by more than a percentage (`… SKIPPED [1] Need 2 or more cores`, from a
  // plugin's reporter) is read as the harness reads it: the id is the first word.
  const match = statusLast.exec(line) ?? statusLastLoose.exec(line);
  if (match === null) return undefined;
  const [, id = '', word = ''] = match;
  if (!isStatus(word) || !id.includes('::')) return undefined;
  return { id, status: word };
}

/** Parses one pytest log (ideally from `pytest -rA`, optionally with `-v`). */
export function parsePytestLog(log: string): ParsedTestLog {
  const summary = new Map<string, TestStatus>();
  const verbose = new Map<string, TestStatus>();
  let inSummary = false;
  let complete = false;
  for (const line of logLines(log)) {
    const stated = parseStatusFirst(line);
    if (summaryHeader.test(line)) {
      inSummary = true;
      complete = true;
      continue;
    }
    if (inSummary && sectionRule.test(line)) {
      inSummary = false;
      continue;
    }
    if (inSummary) {
      if (stated !== undefined) summary.set(stated.id, stated.status);
      continue;
    }
    const xdist = xdistPrefix.exec(line);
    const result = xdist === null ? parseStatusLast(line) : parseStatusFirst(line.slice(xdist[0].length));
    if (result !== undefined) verbose.set(result.id, result.status);
  }
  // The summary is pytest's final word on a test, so it overrides what verbose lines said.
  const tests = new Map<string, TestStatus>(verbose);
  for (const [id, status] of summary) tests.set(id, status);
  return { tests, complete };
}
