/**
 * Each task's certification for the Tasks view: the latest verdict that a `gp dataset verify` run
 * under the run roots gave the task, per dataset file the run verified, or the `certification` a
 * certified dataset's row carries, whichever is later.
 *
 * A run folder is a verification when it has `verdicts.jsonl`; the file it verified is in its
 * `verification.json` (written at its end) or, while it runs, in its first `run-start` event. Each
 * `verdicts.jsonl` is followed by a `JsonLinesTail`, so a refresh reads only the verdicts appended
 * since the last one (as `taskOutcomes.ts` reads events); a line still being written waits for the
 * next refresh. A verdict of the machine (`infrastructure`) gives way to any verdict of the task.
 */
import { existsSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { runEventSchema } from '../protocol/runs.js';
import type { TaskCertification } from '../protocol/tasksView.js';
import { taskVerdictSchema, verificationSummarySchema, type Certification, type TaskVerdict } from '../protocol/verify.js';
import { errorMessage } from '../util/errors.js';
import { listRunsUnder } from './discover.js';
import { JsonLinesTail } from './eventTail.js';
import { runLayout } from './layout.js';
import type { OutcomesRefresh } from './taskOutcomes.js';

/** A task's latest verdict in the verifications of one dataset file. */
export interface LatestVerdict {
  readonly verdict: TaskVerdict;
  /** The run folder it comes from. */
  readonly run: string;
  /** That verification is still running. */
  readonly running: boolean;
}

interface FollowedVerification {
  readonly tail: JsonLinesTail<TaskVerdict>;
  /** The dataset file it verified (absolute); undefined until it is known. */
  dataset: string | undefined;
  /** Whether the dataset was looked for and cannot be known (a verification by an older gp that ended). */
  datasetUnknown: boolean;
  running: boolean;
  readonly verdicts: Map<string, TaskVerdict>;
}

/** The first line of a file, at most this long: a `run-start` event is far shorter. */
const headBytes = 64 * 1024;

/** Whether `a` should replace `b` as a task's verdict: a verdict of the task beats one of the machine, then the later one wins. */
function better(a: LatestVerdict, b: LatestVerdict): boolean {
  const aMachine = a.verdict.status === 'infrastructure';
  const bMachine = b.verdict.status === 'infrastructure';
  if (aMachine !== bMachine) return bMachine;
  const at = a.verdict.started_at.localeCompare(b.verdict.started_at);
  return at > 0 || (at === 0 && a.run > b.run);
}

export class TaskCertifications {
  private readonly runs = new Map<string, FollowedVerification>();
  /** Dataset file → task id → latest verdict. */
  private merged = new Map<string, Map<string, LatestVerdict>>();

  /** Reads what is new in the verifications under `roots`; runs no longer there are forgotten. */
  async refresh(roots: readonly string[]): Promise<OutcomesRefresh> {
    const problems: string[] = [];
    const seen = new Set<string>();
    let changed = false;
    for (const { dir, status, stale } of await listRunsUnder(roots, problems)) {
      // A run without verdicts is no verification, or one whose first task has not ended: nothing to show yet.
      if (!existsSync(runLayout(dir).verdicts)) continue;
      seen.add(dir);
      const read = await this.readRun(dir, status?.state === 'running' && !stale, problems);
      changed ||= read;
    }
    for (const dir of [...this.runs.keys()]) {
      if (seen.has(dir)) continue;
      this.runs.delete(dir);
      changed = true;
    }
    if (changed) this.merge();
    return { changed, problems };
  }

  /** The task's latest verdict among the verifications of `dataset` (an absolute path). */
  latest(dataset: string, taskId: string): LatestVerdict | undefined {
    return this.merged.get(resolve(dataset))?.get(taskId);
  }

  /** Reads one verification's new verdicts; true when they, its dataset or its running state changed. */
  private async readRun(dir: string, running: boolean, problems: string[]): Promise<boolean> {
    let run = this.runs.get(dir);
    let changed = false;
    if (run === undefined) {
      run = { tail: new JsonLinesTail(runLayout(dir).verdicts, taskVerdictSchema), dataset: undefined, datasetUnknown: false, running, verdicts: new Map() };
      this.runs.set(dir, run);
      changed = true;
    }
    if (run.running !== running) {
      run.running = running;
      changed = true;
    }
    if (run.dataset === undefined && !run.datasetUnknown) {
      run.dataset = await datasetOf(dir);
      // A finished verification that names no dataset never will; a running one may write its summary yet.
      run.datasetUnknown = run.dataset === undefined && !running;
      changed ||= run.dataset !== undefined;
    }
    let read;
    try {
      read = await run.tail.read();
    } catch (error) {
      problems.push(`${dir}: ${errorMessage(error)}`);
      return changed;
    }
    problems.push(...read.problems.map((p) => `${dir}/${p}`));
    if (read.restarted) {
      changed ||= run.verdicts.size > 0;
      run.verdicts.clear();
    }
    for (const verdict of read.records) {
      run.verdicts.set(verdict.task_id, verdict);
      changed = true;
    }
    return changed;
  }

  private merge(): void {
    const merged = new Map<string, Map<string, LatestVerdict>>();
    for (const [dir, run] of this.runs) {
      if (run.dataset === undefined) continue;
      let tasks = merged.get(run.dataset);
      if (tasks === undefined) merged.set(run.dataset, (tasks = new Map()));
      for (const [taskId, verdict] of run.verdicts) {
        const candidate = { verdict, run: dir, running: run.running };
        const known = tasks.get(taskId);
        if (known === undefined || better(candidate, known)) tasks.set(taskId, candidate);
      }
    }
    this.merged = merged;
  }
}

/** The dataset a verification run folder verified: its summary's, else its first event's; undefined when neither says. */
async function datasetOf(dir: string): Promise<string | undefined> {
  const layout = runLayout(dir);
  try {
    const summary = verificationSummarySchema.safeParse(JSON.parse(await readFile(layout.verification, 'utf8')));
    if (summary.success) return resolve(summary.data.dataset);
  } catch {
    // No summary yet (the verification runs) or not readable: the first event says it too.
  }
  const first = await firstLine(layout.events);
  if (first === undefined) return undefined;
  try {
    const event = runEventSchema.safeParse(JSON.parse(first));
    return event.success && event.data.kind === 'run-start' && event.data.dataset !== undefined ? resolve(event.data.dataset) : undefined;
  } catch {
    return undefined;
  }
}

async function firstLine(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(headBytes);
    const { bytesRead } = await handle.read(buffer, 0, headBytes, 0);
    const end = buffer.subarray(0, bytesRead).indexOf(10);
    return end < 0 ? undefined : buffer.subarray(0, end).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** A verdict as the view shows it. */
export function certificationOfVerdict(latest: LatestVerdict): TaskCertification {
  const { verdict } = latest;
  return {
    status: verdict.status,
    source: 'verification',
    reason: verdict.reason ?? null,
    flaky: verdict.flaky,
    failing: verdict.failing,
    passingWithoutFix: verdict.passing_without_fix,
    repeats: verdict.repeats,
    run: latest.run,
    at: verdict.started_at,
    running: latest.running,
  };
}

/** A certified dataset row's `certification` as the view shows it; its run folder is as the row wrote it. */
export function certificationOfRow(certification: Certification): TaskCertification {
  return {
    status: certification.status,
    source: 'row',
    reason: null,
    flaky: certification.removed_flaky,
    failing: [],
    passingWithoutFix: [],
    repeats: certification.repeats,
    run: certification.run,
    at: certification.verified_at,
    running: false,
  };
}

/** The later of a task's latest verdict and its row's certification; null when it has neither. */
export function taskCertification(latest: LatestVerdict | undefined, row: Certification | null): TaskCertification | null {
  const fromRun = latest === undefined ? null : certificationOfVerdict(latest);
  const fromRow = row === null ? null : certificationOfRow(row);
  if (fromRun === null || fromRow === null) return fromRun ?? fromRow;
  return fromRow.at > fromRun.at ? fromRow : fromRun;
}
