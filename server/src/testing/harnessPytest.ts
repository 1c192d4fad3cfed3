/**
 * The harness's pytest-family log parsers, ported line for line from swebench 5.0.2
 * (`swebench/harness/log_parsers/python.py`; the rules are summarised in
 * docs/upstream-contracts.md#swe-bench-grading): `parse_log_pytest`, `parse_log_pytest_options`,
 * `parse_log_matplotlib`, `parse_log_pytest_v2` and `parse_log_seaborn`. Statuses are kept as the
 * words the log printed, because the harness keeps them so and grades a word it does not know as
 * neither a pass nor a failure (grade.ts).
 */
import { beforeFirst, pySplit } from './pyText.js';
import type { StatusMap } from './logText.js';

/** `TestStatus` of swebench 5.0.2, in its declaration order. */
export const harnessStatuses = ['FAILED', 'PASSED', 'SKIPPED', 'ERROR', 'XFAIL'] as const;

const startsWithStatus = (line: string): boolean => harnessStatuses.some((s) => line.startsWith(s));
const endsWithStatus = (line: string): boolean => harnessStatuses.some((s) => line.endsWith(s));

/** `SKIPPED [N] path:line: reason` is pytest's summary of run-time skips and names no test (`_is_skip_summary`). */
function isSkipSummary(status: string, name: string): boolean {
  return status === 'SKIPPED' && /^\[\p{Nd}+\]$/u.test(name);
}

/** The status-first lines every parser of the family reads; `rename` is the parser's own id clean-up. */
function statusFirst(log: string, rewrite: (line: string) => string, rename: (id: string) => string): Map<string, string> {
  const map = new Map<string, string>();
  for (const raw of log.split('\n')) {
    let line = rewrite(raw);
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const words = pySplit(line);
    const [status, id] = words;
    if (status === undefined || id === undefined || isSkipSummary(status, id)) continue;
    map.set(rename(id), status);
  }
  return map;
}

const same = (text: string): string => text;

export function parseLogPytest(log: string): StatusMap {
  return statusFirst(log, same, same);
}

/** `test_x[/tmp/abc/data.dcm]` → `test_x[/data.dcm]`, and whatever follows the last `]` dropped, as the harness writes it. */
export function optionId(id: string): string {
  const match = /([^\n]*?)\[([^\n]*)\]/.exec(id);
  if (match === null) return id;
  const [, main = ''] = match;
  let option = match[2] ?? '';
  if (option.startsWith('/') && !option.startsWith('//') && !option.includes('*')) option = `/${option.split('/').at(-1) ?? ''}`;
  return `${main}[${option}]`;
}

export function parseLogPytestOptions(log: string): StatusMap {
  return statusFirst(log, same, optionId);
}

/** matplotlib's ids name mouse buttons by their values. */
export function matplotlibLine(line: string): string {
  return line.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3');
}

export function parseLogMatplotlib(log: string): StatusMap {
  return statusFirst(log, matplotlibLine, same);
}

// Colour codes lose their `[32m` part here and their escape character with the other controls.
const colourCode = /\[\p{Nd}+m/gu;
// eslint-disable-next-line no-control-regex -- The harness drops the characters 1 to 31, so do we.
const controls = /[\x01-\x1f]/g;

/**
 * astropy, scikit-learn and sphinx: the id is the rest of the line (it may hold spaces), and a
 * line that ends with a status word (pytest's verbose form without a percentage) counts too.
 */
export function parseLogPytestV2(log: string): StatusMap {
  const map = new Map<string, string>();
  for (const raw of log.split('\n')) {
    let line = raw.replace(colourCode, '').replace(controls, '');
    if (startsWithStatus(line)) {
      if (line.startsWith('FAILED')) line = beforeFirst(line, ' - ');
      const words = pySplit(line);
      const [status, id] = words;
      if (status !== undefined && id !== undefined && !isSkipSummary(status, id)) map.set(words.slice(1).join(' '), status);
    } else if (endsWithStatus(line)) {
      const words = pySplit(line);
      const status = words.at(-1);
      if (words.length >= 2 && status !== undefined) map.set(words.slice(0, -1).join(' '), status);
    }
  }
  return map;
}

/** seaborn: failures from the summary, passes from the summary or from verbose lines. */
export function parseLogSeaborn(log: string): StatusMap {
  const map = new Map<string, string>();
  for (const line of log.split('\n')) {
    const [first, second] = pySplit(line);
    if (first === undefined || second === undefined) continue;
    if (line.startsWith('FAILED')) map.set(second, 'FAILED');
    else if (line.includes(' PASSED ')) {
      if (second === 'PASSED') map.set(first, 'PASSED');
    } else if (line.startsWith('PASSED')) map.set(second, 'PASSED');
  }
  return map;
}
