/**
 * What every log parser returns, and the text clean-up they share. Test logs come from terminals:
 * colour codes and carriage returns would otherwise end up inside test ids.
 */
import type { TestStatus } from '../protocol/testReport.js';

/**
 * Test id → status as the harness's parsers return them: the status is the word the log printed
 * (normally one of `harnessStatuses`, harnessPytest.ts), and the map's order, the order in which
 * ids were first seen, decides which of several prefix matches a truncated id takes (lookup.ts).
 */
export type StatusMap = ReadonlyMap<string, string>;

/** A log the harness's own parser raises on: the harness then reports the instance as an error. */
export class HarnessParserCrash extends Error {}

/** The per-test result of one log. */
export interface ParsedTestLog {
  /** Test id → status; when a log reports a test twice, the later report wins. */
  readonly tests: ReadonlyMap<string, TestStatus>;
  /**
   * Whether the run's closing summary was found (pytest's "short test summary info", unittest's
   * "Ran N tests"). When it is false the run crashed or timed out and the map holds only the
   * tests reported before that.
   */
  readonly complete: boolean;
}

// Colour and cursor sequences (CSI); pytest with --color=yes and Django both emit them.
// eslint-disable-next-line no-control-regex -- Matching control characters is the point here.
const ansiPattern = /\u001b\[[0-9;?]*[A-Za-z]/g;
// Other control characters except tab; SWE-bench's pytest_v2 parser drops them as well.
// eslint-disable-next-line no-control-regex -- Matching control characters is the point here.
const controlPattern = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Removes terminal escapes and control characters from one line. */
export function cleanLine(line: string): string {
  return line.replace(ansiPattern, '').replace(controlPattern, '');
}

/**
 * Splits a log into clean lines. A carriage return inside a line means the terminal overwrote
 * what came before it, so only the text after the last one is kept.
 */
export function logLines(log: string): string[] {
  return log.split('\n').map((raw) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const overwritten = line.lastIndexOf('\r');
    return cleanLine(overwritten === -1 ? line : line.slice(overwritten + 1));
  });
}
