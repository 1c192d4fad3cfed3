/**
 * Parses the output of sympy's own test runner (`bin/test -C --verbose`, what SWE-bench runs for
 * sympy) for people to read: one line per test, `test_name ok`, `test_name F` or `test_name E`,
 * and the runner's other marks (`f` expected to fail, `s` skipped, `X`, `w`), and for each failure
 * a rule `____ sympy/core/tests/test_basic.py:test_name ____`, which also marks the test as failed
 * under the id `sympy/core/tests/test_basic.py:test_name`. Grading reads the harness's own parser,
 * which ignores the other marks (harnessSympy.ts).
 */
import type { TestStatus } from '../protocol/testReport.js';
import { logLines, type ParsedTestLog } from './logText.js';

const failureRule = /^_+ (.*\.py):(\S*) _+$/;
const resultLine = /^(test_\S*)\s+(ok|F|E|f|s|w|X|x)\s*$/;
const finished = /^=+ tests finished: .* =+$/;

const statusOf: Record<string, TestStatus | undefined> = {
  ok: 'PASSED',
  F: 'FAILED',
  E: 'ERROR',
  f: 'XFAIL',
  s: 'SKIPPED',
  w: 'SKIPPED',
  X: 'XPASS',
  x: 'XFAIL',
};

export function parseSympyLog(log: string): ParsedTestLog {
  const tests = new Map<string, TestStatus>();
  let complete = false;
  for (const raw of logLines(log)) {
    const line = raw.trim();
    const rule = failureRule.exec(line);
    if (rule !== null) {
      tests.set(`${rule[1] ?? ''}:${rule[2] ?? ''}`, 'FAILED');
      continue;
    }
    const result = resultLine.exec(line);
    const status = result === null ? undefined : statusOf[result[2] ?? ''];
    if (result !== null && status !== undefined) tests.set(result[1] ?? '', status);
    if (finished.test(line)) complete = true;
  }
  return { tests, complete };
}

/** Whether an output looks like sympy's runner rather than pytest's or unittest's. */
export function looksLikeSympyRunner(output: string): boolean {
  return /^=+ test process starts =+$/m.test(output) && /^executable:\s/m.test(output);
}
