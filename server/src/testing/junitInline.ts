/**
 * Reading pytest's JUnit report in the same sandbox command as the tests: the script runs the test
 * command, then prints the report between two markers on stdout and removes it. A separate
 * command would cost a round trip per test run, and a repair runs the tests once per candidate.
 *
 * The time the script spends printing the report is measured inside the sandbox and taken off
 * the run's duration, so `durationMs` stays the test command's own time. When the markers are
 * missing (the command ended the shell itself with `exit`, or the run was killed at its time
 * limit) the report is read by a command of its own, as before (`readJunitWitness`).
 */
import { randomBytes } from 'node:crypto';
import type { ExecResult } from '../protocol/sandbox.js';
import { shellQuote } from '../sandbox/index.js';
import type { JunitRequest } from './junitWitness.js';

/** The report as the test command's script printed it. */
export interface InlineReport {
  /** `cat`'s exit status: 0 when the report was there. */
  readonly exitCode: number;
  readonly text: string;
}

/** Room the report gets in the command's output beyond the log's own limit (as a separate read had). */
export const inlineReportBytes = 64 * 1024 * 1024;

/** A marker no test output holds by chance; the report's path (which pytest prints) is not in it. */
export function inlineMarker(): string {
  return `GPJUNIT${randomBytes(9).toString('hex')}`;
}

/**
 * The test command followed by the report's printing. The command keeps its own lines inside a
 * group, so a trailing comment or a here-document in it ends where it would have.
 *
 * The report is read with bash's own `$(< file)`, which bash 5.2 does without starting a process:
 * `cat` and `rm` each cost about a millisecond to start in a container, as much as the rest of a
 * submit's own work. A container's `/tmp` goes with the container at the episode's end, so there
 * the report is left in place (`remove` false); on the local backend, whose `/tmp` is the host's,
 * it is removed.
 */
export function withInlineReport(command: string, request: JunitRequest, marker: string, remove = true): string {
  const path = shellQuote(request.path);
  return [
    '{',
    command,
    '}',
    '__gp_rc=$?',
    '__gp_t0=$EPOCHREALTIME',
    `printf '%s' ${marker}B`,
    `{ __gp_report=$(< ${path}); } 2>/dev/null; __gp_read=$?`,
    `printf '%s' "$__gp_report"`,
    ...(remove ? [`rm -f -- ${path}`] : []),
    `printf '%sE %s %s %s' ${marker} "$__gp_read" "$__gp_t0" "$EPOCHREALTIME"`,
    'exit $__gp_rc',
  ].join('\n');
}

/** Seconds since the epoch as bash prints `$EPOCHREALTIME` (a comma in some locales); NaN when empty. */
function seconds(text: string | undefined): number {
  return text === undefined || text === '' ? Number.NaN : Number(text.replace(',', '.'));
}

/** The log cut to `limit` bytes with the sandbox's own marker, as a run without the report would have kept it. */
function cutLog(text: string, totalBytes: number, limit: number): { text: string; cut: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (totalBytes <= limit && bytes.length <= limit) return { text, cut: false };
  return {
    text: `${bytes.subarray(0, limit).toString('utf8')}\n[graph-planner: output truncated, ${totalBytes - limit} more bytes dropped (limit ${limit} bytes per stream)]\n`,
    cut: true,
  };
}

/** The command's own result: its stdout (without the report) and its stderr, each cut at the log's limit. */
function ownResult(result: ExecResult, stdout: string, stdoutBytes: number, logLimit: number, durationMs: number): ExecResult {
  const out = cutLog(stdout, stdoutBytes, logLimit);
  const err = cutLog(result.stderr, result.stderrBytes, logLimit);
  return { ...result, stdout: out.text, stderr: err.text, durationMs, truncated: out.cut || err.cut, stdoutBytes };
}

/**
 * Splits the script's output into the test command's own result and the report. `logLimit` is
 * the limit the test log has on its own: a longer log is cut there, with the sandbox's marker.
 */
export function takeInlineReport(result: ExecResult, marker: string, logLimit: number): { result: ExecResult; report?: InlineReport } {
  const end = new RegExp(`${marker}E (\\d+) ([0-9.,]*) ([0-9.,]*)$`).exec(result.stdout);
  const begin = result.stdout.lastIndexOf(`${marker}B`, end === null ? undefined : end.index);
  if (end === null || begin < 0) {
    // No report printed: the command left the shell itself, or the run was cut (its limit, or an
    // output past both limits). What the command printed is its log, and a report left behind is
    // read on its own; a half-printed one is not the log's.
    const own = begin < 0 ? result.stdout : result.stdout.slice(0, begin);
    return { result: ownResult(result, own, begin < 0 ? result.stdoutBytes : Buffer.byteLength(own), logLimit, result.durationMs) };
  }
  const own = result.stdout.slice(0, begin);
  const printMs = (seconds(end[3]) - seconds(end[2])) * 1000;
  const durationMs = Number.isFinite(printMs) && printMs > 0 ? Math.max(0, result.durationMs - printMs) : result.durationMs;
  return {
    result: ownResult(result, own, Buffer.byteLength(own), logLimit, durationMs),
    report: { exitCode: Number(end[1]), text: result.stdout.slice(begin + marker.length + 1, end.index) },
  };
}
