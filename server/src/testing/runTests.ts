/**
 * Runs a task's tests in its sandbox, parses the output test by test and grades it. It returns the
 * record and the output and writes nothing: the caller records the run where it keeps its files
 * (`recordTestRun` in runs/testRuns.ts for a run directory).
 */
import type { RunnerWitness, TestGrade, TestParserName, TestRunRecord, TestStatus } from '../protocol/testReport.js';
import { testStatuses } from '../protocol/testReport.js';
import { runsOnHost } from '../protocol/sandboxBackends.js';
import { visibleLine } from '../protocol/terminalText.js';
import type { Sandbox } from '../sandbox/index.js';
import type { TaskEntry } from '../tasks/index.js';
import { decodeExpectedOutput, gradeR2e } from './gradeR2e.js';
import type { ParsedTestLog, StatusMap } from './logText.js';
import { parsePytestLog } from './parsePytest.js';
import { parseUnittestLog } from './parseUnittest.js';
import { harnessParserFor, logFormatOf, parseLogAs } from './repoLogFormats.js';
import { harnessParserOf } from './harnessParsers.js';
import { gradeSwebench, harnessView, type HarnessView } from './swebenchGrade.js';
import { looksLikeSympyRunner, parseSympyLog } from './parseSympy.js';
import { extractTestOutput, startMarker, type TestOutputResult } from './swebenchLog.js';
import { withoutCondaActivation } from './condaLines.js';
import { decodeTestList } from '../tasks/index.js';
import { isoTimestamp } from '../util/time.js';
import { readJunitWitness, junitRequest, type JunitWitness } from './junitWitness.js';
import { inlineMarker, inlineReportBytes, takeInlineReport, withInlineReport } from './junitInline.js';
import { runHarborVerifier } from './harborVerifier.js';
import { placeWitnessKey, runsRunnerDirectly, withWitness, witnessRequest } from './runnerWitness.js';
import { takeWitnessRecords, witnessVerdict } from './witnessRecords.js';

/** Test logs can be long (a whole Django suite); they keep more than a normal command's output. */
const testLogBytes = 16 * 1024 * 1024;

/** pytest with `-rA`, so every test's outcome is in the summary (ARCHITECTURE.md §4.7). */
export const defaultTestCommand = 'python -m pytest -rA';

export interface RunTestsOptions {
  /** Overrides the task's `sandbox.test_command`. */
  command?: string;
  /** The config's `sandbox.test_timeout` (launch/sandboxOptions.ts declares nothing of its own). */
  timeoutMs: number;
  /**
   * The patch being evaluated (SWE-bench's `model_patch`); null when the model produced none.
   * When absent, the sandbox's diff against its base commit is used.
   */
  patch?: string | null;
}

export interface TestRun {
  record: TestRunRecord;
  parsed: ParsedTestLog;
  /** stdout and stderr of the test command, as recorded in the log file. */
  output: string;
}

/**
 * Parses a test output for people to read: with the family of the parser SWE-bench uses for the
 * task's repository when the task names one the harness knows (testing/repoLogFormats.ts), else by
 * what the output looks like (sympy's runner, pytest's rules, or unittest's "Ran N tests").
 */
export function parseTestOutput(output: string, repo?: string): { parser: TestParserName; parsed: ParsedTestLog } {
  const format = logFormatOf(repo);
  if (format !== undefined) return { parser: format === 'django' ? 'unittest' : format, parsed: parseLogAs(format, output) };
  if (looksLikeSympyRunner(output)) return { parser: 'sympy', parsed: parseSympyLog(output) };
  const pytest = parsePytestLog(output);
  if (pytest.tests.size > 0 || /^=+ (test session starts|short test summary info) =+$/m.test(output)) return { parser: 'pytest', parsed: pytest };
  const unittest = parseUnittestLog(output);
  if (unittest.tests.size > 0 || /^Ran \d+ tests? in /m.test(output)) return { parser: 'unittest', parsed: unittest };
  return { parser: 'pytest', parsed: pytest };
}

/** The part of a test command's output that holds the tests, or why an eval script's log has none. */
function testSection(output: string): TestOutputResult {
  return output.includes(startMarker) ? extractTestOutput(output) : { ok: true, output, exitCode: undefined };
}

/**
 * The harness's view of a run of a task: its parser for the task's repository, or, for a
 * repository its table does not list, the one of the family our reading of the output found.
 */
export function harnessViewOf(task: TaskEntry, output: string, exitCode: number | null, command = task.sandbox.test_command ?? ''): HarnessView {
  const section = testSection(output);
  const parser = harnessParserOf(task.repo) ?? harnessParserFor(parseTestOutput(section.ok ? section.output : output).parser);
  // A command that prints the start marker is an evaluation script, whose log the harness reads only with its markers.
  return harnessView(output, exitCode, parser, command.includes(startMarker));
}

function hasGoldLists(task: TaskEntry): boolean {
  return task.FAIL_TO_PASS !== undefined || task.PASS_TO_PASS !== undefined;
}

/** A test command's output, its exit status (null at the time limit) and, for pytest, the statuses its JUnit report left standing. */
export interface GradeInput {
  readonly output: string;
  readonly exitCode: number | null;
  readonly witnessed?: StatusMap;
  /** The test command that ran, when it is not the task's own. */
  readonly command?: string;
  /** The harness's view of this same run (`harnessViewOf`), when the caller has it already. */
  readonly view?: HarnessView;
}

/**
 * The output's last line, for a run that cannot be graded: what the command said as it stopped is
 * usually why (an eval script's stderr comes after its end marker: `.tox/py39/bin/python: No module
 * named pytest`). Control characters are escaped and the line is cut, since it is the task's text.
 */
export function lastWords(output: string): string {
  const line = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('>>>>>'))
    .pop();
  if (line === undefined) return '';
  const safe = visibleLine(line);
  return `; the output ends: "${safe.length > 200 ? `${safe.slice(0, 200)}…` : safe}"`;
}

/**
 * Grades a run by the rules the task carries. A task with gold lists is graded as SWE-bench's
 * harness grades it, with our strictness rules on top (swebenchGrade.ts); otherwise by R2E-Gym's
 * expected map, or by the log alone.
 */
export function gradeTask(task: TaskEntry, run: GradeInput, patch: string | null): TestGrade {
  if (hasGoldLists(task)) {
    const f2p = decodeTestList(task.FAIL_TO_PASS ?? [], 'FAIL_TO_PASS');
    const p2p = decodeTestList(task.PASS_TO_PASS ?? [], 'PASS_TO_PASS');
    if (!f2p.ok) return { kind: 'invalid', reason: f2p.message };
    if (!p2p.ok) return { kind: 'invalid', reason: p2p.message };
    const gold = { FAIL_TO_PASS: f2p.tests, PASS_TO_PASS: p2p.tests };
    const grade = gradeSwebench({
      view: run.view ?? harnessViewOf(task, run.output, run.exitCode, run.command),
      gold,
      patch,
      ...(run.witnessed === undefined ? {} : { witnessed: run.witnessed }),
    });
    return grade.kind === 'invalid' ? { ...grade, reason: `${grade.reason}${lastWords(run.output)}` } : grade;
  }
  const section = testSection(run.output);
  if (!section.ok) return { kind: 'invalid', reason: section.message };
  const { parsed } = parseTestOutput(section.output, task.repo);
  const exitCode = section.exitCode ?? run.exitCode;
  if (task.expected_output_json !== undefined) {
    const expected = decodeExpectedOutput(task.expected_output_json);
    if (!expected.ok) return { kind: 'invalid', reason: expected.message };
    return { kind: 'r2e', grade: gradeR2e(parsed, expected.expected) };
  }
  const bad = [...parsed.tests.values()].filter((s) => s === 'FAILED' || s === 'ERROR').length;
  if (parsed.tests.size === 0) return { kind: 'log', passed: false, reason: 'no test results were found in the output' };
  if (bad > 0) return { kind: 'log', passed: false, reason: `${bad} test(s) failed or errored` };
  if (exitCode !== 0) return { kind: 'log', passed: false, reason: `the test command exited with ${exitCode ?? 'a timeout'}` };
  return { kind: 'log', passed: true, reason: `all ${parsed.tests.size} tests passed` };
}

/** Whether a grade counts as a fix. */
export function gradePassed(grade: TestGrade): boolean {
  if (grade.kind === 'swebench') return grade.report.resolved;
  if (grade.kind === 'r2e') return grade.grade.reward === 1;
  if (grade.kind === 'log') return grade.passed;
  if (grade.kind === 'verifier') return grade.resolved;
  return false;
}

function counts(tests: ReadonlyMap<string, TestStatus>): Record<TestStatus, number> {
  const out = Object.fromEntries(testStatuses.map((s) => [s, 0])) as Record<TestStatus, number>;
  for (const status of tests.values()) out[status] += 1;
  return out;
}

export async function runTaskTests(sandbox: Sandbox, task: TaskEntry, options: RunTestsOptions): Promise<TestRun> {
  // A Harbor task is graded by the reward its verifier writes, not by a test log.
  if (task.verifier !== undefined) return runHarborVerifier(sandbox, task, { timeoutMs: options.timeoutMs });
  const given = options.command ?? task.sandbox.test_command ?? defaultTestCommand;
  // Conda exists only in SWE-bench's images; on the local backend the task's own environment stands in.
  const conda = runsOnHost(sandbox.backend) ? withoutCondaActivation(given) : { command: given, removed: 0 };
  const command = conda.command;
  const noEnvironment =
    conda.removed > 0 && task.sandbox.python_env === undefined
      ? "the test command activates SWE-bench's conda environment, which the local backend does not have, and the task names no python_env: its tests would run with the host's Python and packages. Give the task a python_env (then gp env build) or run it on the docker backend."
      : undefined;
  const startedAt = isoTimestamp();
  // No bytecode is written: Python trusts a .pyc whose recorded source mtime (whole seconds) and
  // size match, so after two same-sized edits within one second (a repair's candidates, a reset)
  // the tests would run the earlier version's code.
  // Django's and sympy's own runners never write the report, so their runs do not pay for reading one.
  const format = logFormatOf(task.repo);
  const junit = format === 'django' || format === 'sympy' ? undefined : junitRequest(command);
  // The runner witness watches pytest's or unittest's own code from inside the runner (runnerWitness.ts).
  const witnessAsk = witnessRequest(sandbox, command, task.repo, format);
  const witness = witnessAsk.kind === 'asked' ? witnessAsk.request : undefined;
  if (witness !== undefined) await placeWitnessKey(sandbox, witness);
  const pytestOptions = [witness?.pytestOptions, junit?.env['PYTEST_ADDOPTS']].filter((o) => o !== undefined).join(' ');
  const watched = witness === undefined ? command : withWitness(command, witness, sandbox.privateScripts === true);
  // The report is printed by the test command's own script, after the tests (junitInline.ts).
  const marker = junit === undefined ? undefined : inlineMarker();
  const ran = await sandbox.exec(
    junit === undefined || marker === undefined ? watched : withInlineReport(watched, junit, marker, runsOnHost(sandbox.backend)),
    {
      timeoutMs: options.timeoutMs,
      maxOutputBytes: testLogBytes + (junit === undefined ? 0 : inlineReportBytes),
      env: { PYTHONDONTWRITEBYTECODE: '1', ...witness?.env, ...(pytestOptions === '' ? {} : { PYTEST_ADDOPTS: pytestOptions }) },
    },
  );
  // The witness's records come out before anything reads the log.
  const taken = witness === undefined ? undefined : takeWitnessRecords(ran, witness);
  const unwatched = taken?.result ?? ran;
  const split = marker === undefined ? { result: unwatched } : takeInlineReport(unwatched, marker, testLogBytes);
  const result = split.result;
  const watch: RunnerWitness =
    witnessAsk.kind === 'skipped'
      ? witnessAsk.record
      : witnessVerdict(taken?.records ?? [], taken?.forged ?? 0, { runsRunnerDirectly: runsRunnerDirectly(command), timedOut: result.timedOut });
  const output =
    result.stderr.length > 0 ? `${result.stdout}${result.stdout.endsWith('\n') || result.stdout === '' ? '' : '\n'}${result.stderr}` : result.stdout;
  // A SWE-bench eval script brackets its tests with markers; people read what is between them.
  const section = testSection(output);
  const { parser, parsed } = parseTestOutput(section.ok ? section.output : output, task.repo);
  const exitCode = result.timedOut ? null : result.exitCode;
  const view = harnessViewOf(task, output, exitCode, given);
  // pytest's own report, read back and removed whether or not this parser uses it; it checks what grading reads.
  const junitCheck: JunitWitness = await readJunitWitness(
    sandbox,
    junit,
    { output, command, parser, repo: task.repo, tests: view.eval.found ? view.eval.tests : new Map() },
    split.report,
  );
  // Without an explicit patch, the change under test is whatever differs from the base commit.
  const patch = options.patch === undefined ? await sandbox.diff() : options.patch;
  const graded = gradeTask(task, { output, exitCode, command: given, view, ...(junitCheck.tests === undefined ? {} : { witnessed: junitCheck.tests }) }, patch);
  const grade: TestGrade =
    noEnvironment !== undefined
      ? { kind: 'invalid', reason: noEnvironment }
      : // A tampered runner or a missing report counts only once the log itself is gradable, so the log's own reason comes first.
        graded.kind !== 'invalid' && watch.state === 'tampered'
        ? { kind: 'invalid', reason: `runner tampered: ${watch.reason ?? 'the witness saw the runner change'}`, rule: 'runner-tampered' }
        : graded.kind !== 'invalid' && junitCheck.notGradable !== undefined && hasGoldLists(task)
          ? { kind: 'invalid', reason: junitCheck.notGradable, rule: 'junit-report' }
          : graded;
  const record: TestRunRecord = {
    kind: 'test_run',
    task: task.task_id,
    backend: sandbox.backend,
    ...(sandbox.choice?.fallback === undefined ? {} : { backendFallback: sandbox.choice.fallback }),
    command,
    startedAt,
    durationMs: Math.round(result.durationMs),
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    truncated: result.truncated,
    parser,
    ...(hasGoldLists(task) ? { harnessParser: view.parser } : {}),
    complete: parsed.complete,
    counts: counts(parsed.tests),
    tests: Object.fromEntries(parsed.tests),
    ...(junitCheck.record === undefined ? {} : { crossCheck: junitCheck.record }),
    witness: watch,
    grade,
  };
  return { record, parsed, output };
}
