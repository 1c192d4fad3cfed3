/**
 * The latest outcome of each task id in any run under some run roots, for the Tasks view: the last
 * `episode-end` event of the task across the runs' `events.jsonl` files. Each file is followed by an
 * `EventTail`, so a refresh reads only the bytes appended since the last one; a line still being
 * written waits for the next refresh. An interrupted episode is not an outcome (the run did not
 * finish it), and a run whose events cannot be read is skipped with a problem.
 */
import type { TaskOutcome } from '../protocol/tasksView.js';
import type { RunEvent } from '../protocol/runs.js';
import { errorMessage } from '../util/errors.js';
import { listRunsUnder } from './discover.js';
import { EventTail } from './eventTail.js';
import { runLayout } from './layout.js';

export interface LatestOutcome {
  readonly outcome: Exclude<TaskOutcome, 'never'>;
  /** The run folder the outcome comes from. */
  readonly run: string;
  /** When the episode ended (the event's timestamp, ISO 8601). */
  readonly ts: string;
}

export interface OutcomesRefresh {
  /** Whether any task's latest outcome may have changed. */
  readonly changed: boolean;
  /** One line per run root or run that could not be read, or event line that is not valid. */
  readonly problems: readonly string[];
}

type EpisodeEnd = Extract<RunEvent, { kind: 'episode-end' }>;

function outcomeOf(end: EpisodeEnd): LatestOutcome['outcome'] {
  if (end.resolved) return 'resolved';
  return end.termination_reason === 'error' ? 'error' : 'unresolved';
}

/** Whether `a` ended after `b`; equal times go to the run folder that sorts last, so the answer never depends on reading order. */
function later(a: LatestOutcome, b: LatestOutcome): boolean {
  return a.ts > b.ts || (a.ts === b.ts && a.run > b.run);
}

interface FollowedRun {
  readonly tail: EventTail;
  /** The latest outcome of each task in this run. */
  readonly ends: Map<string, LatestOutcome>;
}

export class TaskOutcomes {
  private readonly runs = new Map<string, FollowedRun>();
  private merged = new Map<string, LatestOutcome>();

  /** Reads what is new in the runs under `roots`; runs no longer there are forgotten. */
  async refresh(roots: readonly string[]): Promise<OutcomesRefresh> {
    const problems: string[] = [];
    const seen = new Set<string>();
    let changed = false;
    for (const { dir } of await listRunsUnder(roots, problems)) {
      seen.add(dir);
      const read = await this.readRun(dir, problems);
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

  /** The task's latest outcome in any run read so far; undefined when it never ran. */
  latest(taskId: string): LatestOutcome | undefined {
    return this.merged.get(taskId);
  }

  /** Reads one run's new events; true when they changed its outcomes. */
  private async readRun(dir: string, problems: string[]): Promise<boolean> {
    let run = this.runs.get(dir);
    if (run === undefined) {
      run = { tail: new EventTail(runLayout(dir).events), ends: new Map() };
      this.runs.set(dir, run);
    }
    let read;
    try {
      read = await run.tail.read();
    } catch (error) {
      // Not a readable file (a folder in its place, no permission): the run is skipped as it is.
      problems.push(`${dir}: ${errorMessage(error)}`);
      return false;
    }
    problems.push(...read.problems.map((p) => `${dir}/${p}`));
    let changed = read.restarted && run.ends.size > 0;
    if (read.restarted) run.ends.clear();
    for (const event of read.events) {
      // An interrupted episode and one the infrastructure failed are no outcome of their task.
      if (event.kind !== 'episode-end' || event.termination_reason === 'interrupted' || event.infrastructure !== undefined) continue;
      run.ends.set(event.task_id, { outcome: outcomeOf(event), run: dir, ts: event.ts });
      changed = true;
    }
    return changed;
  }

  private merge(): void {
    const merged = new Map<string, LatestOutcome>();
    for (const { ends } of this.runs.values()) {
      for (const [taskId, outcome] of ends) {
        const known = merged.get(taskId);
        if (known === undefined || later(outcome, known)) merged.set(taskId, outcome);
      }
    }
    this.merged = merged;
  }
}
