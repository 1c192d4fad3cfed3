/**
 * What a run driven by a trainer-side process keeps while it lasts (`gp train`'s attempt,
 * `gp eval --ray`): `status.json` with its episode counts, and the trainer's output shown and
 * appended to `run.log`. Status writes are queued in order, so a "running" written when an episode
 * ends can never land after the run's end.
 */
import { fstatSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import type { RunStatus } from '../protocol/runs.js';
import { writeStatus, type RunLayout } from '../runs/index.js';
import { LineAppender } from '../util/appendLines.js';
import { isoTimestamp } from '../util/time.js';

export interface EpisodeCounts {
  total: number;
  finished: number;
  resolved: number;
  errored: number;
}

export class RunRecord {
  readonly counts: EpisodeCounts;
  private readonly startedAt = isoTimestamp(new Date());
  private writing: Promise<void> = Promise.resolve();
  /** `run.log` is shared with the output of a detached launch, so a torn line is ended, not dropped. */
  private readonly runLog: LineAppender;
  private logging: Promise<void> = Promise.resolve();

  constructor(
    private readonly layout: RunLayout,
    private readonly command: string,
    total: number,
  ) {
    this.counts = { total, finished: 0, resolved: 0, errored: 0 };
    this.runLog = new LineAppender(layout.runLog, 'terminate');
  }

  /** Writes `status.json` with the counts as they are now, after every earlier write. */
  status(state: RunStatus['state'], reason?: string): Promise<void> {
    const snapshot: RunStatus = {
      state,
      command: this.command,
      pid: process.pid,
      host: hostname(),
      started_at: this.startedAt,
      ...(state === 'running' ? {} : { ended_at: isoTimestamp(new Date()) }),
      ...(reason === undefined ? {} : { exit_reason: reason }),
      episodes: { ...this.counts },
    };
    const next = this.writing.catch(() => undefined).then(() => writeStatus(this.layout.status, snapshot));
    this.writing = next;
    return next;
  }

  /** A handler for the trainer's output lines: shown through `log` and appended to `run.log`. */
  outputLines(log: (line: string) => void, also: () => void = () => undefined): (line: string) => void {
    // Started detached from the editor, this process's own output already is `run.log`: appending the line again would show it twice.
    const outputIsLog = stdoutIs(this.layout.runLog);
    return (line) => {
      also();
      log(line);
      if (outputIsLog) return;
      // Queued, so lines keep their order; a line that cannot be written (a full disk) is only lost from the file.
      this.logging = this.logging.then(() => this.runLog.append(`${line}\n`)).catch(() => undefined);
    };
  }
}

/** Whether this process's standard output is the file at `path` (the same device and inode). */
function stdoutIs(path: string): boolean {
  try {
    const out = fstatSync(1);
    const file = statSync(path);
    return out.dev === file.dev && out.ino === file.ino;
  } catch {
    return false;
  }
}
