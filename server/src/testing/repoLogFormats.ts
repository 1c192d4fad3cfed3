/**
 * Which of our readable log parsers a repository's test output needs: the family of the parser
 * the harness uses for it (harnessParsers.ts holds the harness's table, once), and the id
 * clean-ups those parsers make. The readable parsers (parsePytest.ts, parseUnittest.ts,
 * parseSympy.ts) read everything a person wants to see; grading reads the harness's own parser.
 */
import type { TestParserName } from '../protocol/testReport.js';
import { harnessParserOf, repoHarnessParsers, type HarnessParserName } from './harnessParsers.js';
import { matplotlibLine, optionId } from './harnessPytest.js';
import type { ParsedTestLog } from './logText.js';
import type { TestStatus } from '../protocol/testReport.js';
import { parsePytestLog } from './parsePytest.js';
import { parseSympyLog } from './parseSympy.js';
import { parseUnittestLog } from './parseUnittest.js';

/**
 * - `pytest`: `-rA` summaries and verbose lines;
 * - `pytest-options`: the same, with a parameter that is an absolute path cut to its last part
 *   (`test_x[/tmp/abc/data.dcm]` → `test_x[/data.dcm]`), so ids do not depend on the machine;
 * - `matplotlib`: the same, with `MouseButton.LEFT`/`RIGHT` written as 1 and 3, as the harness does;
 * - `django`: Django's runner (unittest's verbose lines);
 * - `sympy`: sympy's own runner.
 */
export type LogFormat = 'pytest' | 'pytest-options' | 'matplotlib' | 'django' | 'sympy';

function formatOfParser(parser: HarnessParserName): LogFormat {
  if (parser === 'parse_log_django') return 'django';
  if (parser === 'parse_log_sympy') return 'sympy';
  if (parser === 'parse_log_matplotlib') return 'matplotlib';
  if (parser === 'parse_log_pytest_options' || parser === 'parse_log_pydicom' || parser === 'parse_log_requests' || parser === 'parse_log_pylint')
    return 'pytest-options';
  return 'pytest';
}

export const repoLogFormats: Readonly<Record<string, LogFormat>> = Object.fromEntries(
  Object.entries(repoHarnessParsers).map(([repo, parser]) => [repo, formatOfParser(parser)]),
);

export function logFormatOf(repo: string | undefined): LogFormat | undefined {
  const parser = harnessParserOf(repo);
  return parser === undefined ? undefined : formatOfParser(parser);
}

/** The harness's parser for a log read by one of our parsers, when the task's repository is not in the harness's table. */
export function harnessParserFor(parser: TestParserName): HarnessParserName {
  if (parser === 'unittest') return 'parse_log_django';
  if (parser === 'sympy') return 'parse_log_sympy';
  if (parser === 'pytest-options') return 'parse_log_pytest_options';
  if (parser === 'matplotlib') return 'parse_log_matplotlib';
  return 'parse_log_pytest';
}

/** `test_x[/tmp/abc/data.dcm]` → `test_x[/data.dcm]`: the harness's clean-up of `parse_log_pytest_options`. */
export const normaliseOptionId = optionId;

function mapIds(parsed: ParsedTestLog, rename: (id: string) => string): ParsedTestLog {
  return { complete: parsed.complete, tests: new Map<string, TestStatus>([...parsed.tests].map(([id, status]) => [rename(id), status])) };
}

/** The id clean-up a format's parser makes, for ids read from elsewhere (a JUnit report's names). */
export function idRenamer(format: LogFormat | undefined): (id: string) => string {
  if (format === 'pytest-options') return normaliseOptionId;
  if (format === 'matplotlib') return matplotlibLine;
  return (id) => id;
}

export function parseLogAs(format: LogFormat, output: string): ParsedTestLog {
  switch (format) {
    case 'pytest':
      return parsePytestLog(output);
    case 'pytest-options':
      return mapIds(parsePytestLog(output), normaliseOptionId);
    case 'matplotlib':
      return parsePytestLog(matplotlibLine(output));
    case 'django':
      return parseUnittestLog(output);
    case 'sympy':
      return parseSympyLog(output);
  }
}
