/**
 * Asking pytest for its JUnit report and reading it back (junitReport.ts says why). The report goes
 * to a fresh random path in the sandbox's `/tmp`, outside the repository, passed through
 * `PYTEST_ADDOPTS` so it reaches pytest however the test command starts it (an eval script, a
 * wrapper). The test command's own script prints and removes it after the tests (junitInline.ts);
 * when that script did not get there, it is read and removed here, in one command after the run.
 */
import { randomBytes } from 'node:crypto';
import type { TestCrossCheck, TestParserName } from '../protocol/testReport.js';
import type { StatusMap } from './logText.js';
import type { Sandbox } from '../sandbox/index.js';
import type { InlineReport } from './junitInline.js';
import { crossCheck, parseJunitReport } from './junitReport.js';
import { idRenamer, logFormatOf } from './repoLogFormats.js';

export interface JunitRequest {
  readonly path: string;
  readonly env: Readonly<Record<string, string>>;
}

export interface JunitWitness {
  /** What the cross-check found, for the test-run record; absent when the parser is not pytest's. */
  readonly record?: TestCrossCheck;
  /** The statuses to grade on after the cross-check; absent when there was none. */
  readonly tests?: StatusMap;
  /** Why the run cannot be graded because of the report (missing or damaged). */
  readonly notGradable?: string;
}

/** Mismatches kept in a record; the count is always whole. */
const keptMismatches = 50;

const pytestParsers: ReadonlySet<TestParserName> = new Set(['pytest', 'pytest-options', 'matplotlib']);

/** A command that chooses its own report, or its own PYTEST_ADDOPTS, is left as it is. */
export function junitRequest(command: string): JunitRequest | undefined {
  if (/--junit-?xml\b|\bPYTEST_ADDOPTS\b|no:junitxml/.test(command)) return undefined;
  const path = `/tmp/gp-junit-${randomBytes(12).toString('hex')}.xml`;
  return { path, env: { PYTEST_ADDOPTS: `--junitxml=${path}` } };
}

/** pytest started by the command itself (not through tox, which passes only some variables on). */
export function runsPytestDirectly(command: string): boolean {
  return /(^|[\s;&|(])(python[\d.]*\s+-m\s+)?pytest(\s|$)/.test(command) && !/(^|[\s;&|(])tox(\s|$)/.test(command);
}

interface RunFacts {
  readonly output: string;
  readonly command: string;
  readonly parser: TestParserName;
  readonly repo: string | undefined;
  /** The statuses grading would read without the report. */
  readonly tests: StatusMap;
}

/** `inline` is the report as the test command's own script printed it (junitInline.ts); without it the report is read here. */
export async function readJunitWitness(sandbox: Sandbox, request: JunitRequest | undefined, facts: RunFacts, inline?: InlineReport): Promise<JunitWitness> {
  const usesReport = pytestParsers.has(facts.parser);
  if (request === undefined) {
    return usesReport
      ? {
          record: {
            report: 'junit',
            state: 'not-used',
            mismatches: [],
            mismatchCount: 0,
            reason: 'the test command chooses its own JUnit report or PYTEST_ADDOPTS',
          },
        }
      : {};
  }
  // The path is an argument, never part of the script's text.
  const read =
    inline === undefined
      ? await sandbox.exec(['sh', '-c', 'cat -- "$1"; status=$?; rm -f -- "$1"; exit $status', 'sh', request.path], {
          timeoutMs: 60_000,
          maxOutputBytes: 64 * 1024 * 1024,
        })
      : { exitCode: inline.exitCode, stdout: inline.text, truncated: false };
  if (!usesReport) return {};
  if (read.exitCode !== 0 || read.stdout === '') {
    const announced = facts.output.includes(`generated xml file: ${request.path}`);
    if (announced || runsPytestDirectly(facts.command)) {
      const reason = `pytest's JUnit report was ${announced ? 'announced in the log but is gone' : 'not written'} though the test command runs pytest itself: something in the run removed the report or pytest's junitxml plugin, so the log cannot be checked`;
      return { record: { report: 'junit', state: 'missing', mismatches: [], mismatchCount: 0, reason }, notGradable: reason };
    }
    return {
      record: {
        report: 'junit',
        state: 'not-written',
        mismatches: [],
        mismatchCount: 0,
        reason: 'pytest wrote no report: the test command does not pass PYTEST_ADDOPTS on to it (tox?), so the log was graded alone',
      },
    };
  }
  if (read.truncated) {
    const reason = "pytest's JUnit report is larger than 64 MiB and could not be read whole";
    return { record: { report: 'junit', state: 'unreadable', mismatches: [], mismatchCount: 0, reason }, notGradable: reason };
  }
  let report;
  try {
    report = parseJunitReport(read.stdout, idRenamer(logFormatOf(facts.repo)));
  } catch (error) {
    const reason = `pytest's JUnit report cannot be read (${error instanceof Error ? error.message : String(error)}): something in the run damaged it`;
    return { record: { report: 'junit', state: 'unreadable', mismatches: [], mismatchCount: 0, reason }, notGradable: reason };
  }
  const checked = crossCheck(facts.tests, report);
  return {
    tests: checked.tests,
    record: {
      report: 'junit',
      state: checked.mismatches.length === 0 ? 'agreed' : 'disagreed',
      mismatches: checked.mismatches.slice(0, keptMismatches),
      mismatchCount: checked.mismatches.length,
    },
  };
}
