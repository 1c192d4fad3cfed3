/**
 * The harness's parser of sympy's own test runner, ported from swebench 5.0.2's `parse_log_sympy`
 * (docs/upstream-contracts.md#swe-bench-grading): a failure's rule `___ path.py:test ___` marks
 * `path.py:test` as failed, and a line `test_x ok`, `test_x F` or `test_x E` gives the bare name's
 * status. The runner's other marks (`f` expected to fail, `s` skipped, `X`, `w`) are not read, so
 * such a test is missing, as the harness has it.
 */
import { pySplit, pyStrip } from './pyText.js';
import type { StatusMap } from './logText.js';

// `(_*) (.*)\.py:(.*) (_*)` found anywhere in the log; Python's `.` stops only at `\n`.
const failureRule = /(_*) ([^\n]*)\.py:([^\n]*) (_*)/g;

export function parseLogSympy(log: string): StatusMap {
  const map = new Map<string, string>();
  for (const match of log.matchAll(failureRule)) map.set(`${match[2] ?? ''}.py:${match[3] ?? ''}`, 'FAILED');
  for (const raw of log.split('\n')) {
    const line = pyStrip(raw);
    if (!line.startsWith('test_')) continue;
    const name = pySplit(line)[0] ?? '';
    if (line.endsWith(' E')) map.set(name, 'ERROR');
    if (line.endsWith(' F')) map.set(name, 'FAILED');
    if (line.endsWith(' ok')) map.set(name, 'PASSED');
  }
  return map;
}
