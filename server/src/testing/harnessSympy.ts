/**
 * The harness's parser of sympy's own test runner, ported from swebench 5.0.2's `parse_log_sympy`
 * (docs/upstream-contracts.md#swe-bench-grading): a failure's rule `___ path.py:test ___` marks
 * `path.py:test` as failed, and a line `test_x ok`, `test_x F` or `test_x E` gives the bare name's
 * status. The runner's other marks (`f` expected to fail, `s` skipped, `X`, `w`) are not read, so
 * such a test is missing, as the harness has it.
 */
import { pySplit, pyStrip } from './pyText.js';
import type { StatusMap } from './logText.js';

/**
 * What `re.findall(r"(_*) (.*)\.py:(.*) (_*)", log)` finds on one line, without its backtracking,
 * which takes time quadratic in a line's length (a long line of spaces in a test's output would
 * stall grading). No part of the pattern crosses a newline, so each line holds at most one match:
 * it starts at the line's first space (`(_*)` may be empty); the greedy `(.*)` runs to the last
 * `.py:` that a space still follows, and the second `(.*)` to the line's last space.
 */
function failureRule(line: string): string | undefined {
  const first = line.indexOf(' ');
  const last = line.lastIndexOf(' ');
  if (first === -1 || last < 4) return undefined;
  const py = line.lastIndexOf('.py:', last - 4);
  if (py < first + 1) return undefined;
  return `${line.slice(first + 1, py)}.py:${line.slice(py + 4, last)}`;
}

export function parseLogSympy(log: string): StatusMap {
  const map = new Map<string, string>();
  for (const line of log.split('\n')) {
    const failed = failureRule(line);
    if (failed !== undefined) map.set(failed, 'FAILED');
  }
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
