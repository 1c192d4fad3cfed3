/**
 * Recording test runs in a run directory: the raw log under `tests/`, one checked line in
 * `test_runs.jsonl` (append-only), and for SWE-bench-style grades the per-instance
 * `reports/<task>/report.json` in SWE-bench's shape (written atomically). `testing/` only runs and
 * grades; `gp task test`, the environment's submit and the rollout's episodes call these writers.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { testRunRecordSchema, type InstanceReport, type TestRunRecord } from '../protocol/testReport.js';
import { LineAppender } from '../util/appendLines.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { toJsonLine } from './jsonLines.js';
import { runLayout } from './layout.js';

/**
 * One appender per `test_runs.jsonl` for the process: its torn tail is repaired before the first
 * append (a crash of an earlier process), not before each one, which would cost four file system
 * calls per test run, and a repair's candidates run the tests several times a step. A run folder
 * has one owner process (runLock.ts), so no other writer appears after that repair. Kept for the
 * most recent folders only.
 */
const appenders = new Map<string, LineAppender>();
const appendersKept = 64;

function appenderFor(path: string): LineAppender {
  let appender = appenders.get(path);
  if (appender === undefined) {
    appender = new LineAppender(path, 'drop');
    appenders.set(path, appender);
    for (const oldest of appenders.keys()) {
      if (appenders.size <= appendersKept) break;
      appenders.delete(oldest);
    }
  }
  return appender;
}

/** What a test run produced: its record and the output the log file keeps. */
export interface TestRunOutput {
  readonly record: TestRunRecord;
  readonly output: string;
}

/**
 * Writes the log and, for SWE-bench grades, the instance report, then appends the record with
 * their run-relative paths; returns that record. The caller's record is left as it was.
 */
export async function recordTestRun(runDir: string, run: TestRunOutput): Promise<TestRunRecord> {
  const layout = runLayout(runDir);
  // Two runs of one task can start in the same second (a repair's candidates); the tag keeps their logs apart.
  const logPath = layout.testLogRelative(run.record.task, run.record.startedAt, randomBytes(2).toString('hex'));
  // The log and the report are separate files, written at once; the record that names them is
  // appended only after both are there, so a crash before it leaves files that no record names.
  const grade = run.record.grade;
  const logFile = layout.resolve(logPath);
  const writing = Promise.all([
    inFolderOf(logFile, () => writeFile(logFile, run.output)),
    grade.kind === 'swebench' ? writeInstanceReport(runDir, run.record.task, grade.report) : Promise.resolve(undefined),
  ]);
  const reportPath = grade.kind === 'swebench' ? layout.instanceReportRelative(run.record.task) : undefined;
  const record: TestRunRecord = { ...run.record, logPath, ...(reportPath === undefined ? {} : { reportPath }) };
  await writing;
  // One write per line, so concurrent episodes' records do not interleave inside a line; a torn
  // last line (a crash, a full disk) is dropped first, so this record is not glued onto it.
  await appendTestRunRecord(runDir, record);
  return record;
}

/** Appends one checked line to the run's `test_runs.jsonl`: a run's own test runs, or an episode's brought from a sandbox host. */
export async function appendTestRunRecord(runDir: string, record: TestRunRecord): Promise<void> {
  const path = runLayout(runDir).testRuns;
  await appenderFor(path).append(toJsonLine(testRunRecordSchema, record, path));
}

/**
 * Runs `write` of `file`, making the file's folder first only when the write finds it missing: the
 * folder is there for every write but a run's first, and asking for it each time cost a file system
 * call per test run (a submit's step waits for its record).
 */
async function inFolderOf<T>(file: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dirname(file), { recursive: true });
    return write();
  }
}

/**
 * Writes `<run dir>/reports/<id>/report.json` in SWE-bench's shape (`{ "<id>": report }`),
 * atomically, and returns its run-relative path. Also used when a patch did not apply, so that
 * every evaluated instance has a report, as SWE-bench leaves one.
 */
export async function writeInstanceReport(runDir: string, id: string, report: InstanceReport): Promise<string> {
  const layout = runLayout(runDir);
  const relative = layout.instanceReportRelative(id);
  const path = layout.resolve(relative);
  const text = `${JSON.stringify({ [id]: report }, null, 2)}\n`;
  await inFolderOf(path, () => writeFileAtomic(path, text));
  return relative;
}
