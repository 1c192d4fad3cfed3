/**
 * The runs that are live now (issue 27): those running under the workspace's run roots, and the
 * launches started from this window that have not said yet whether they run. The status bar item,
 * the Runs view's badge, the launch progress and the notice when a run ends all read this one
 * account. While anything is live it asks the server to watch the runs (`runs/watch` by
 * `liveRuns`), whether or not the Runs view is visible; when nothing is, it stops asking, so an
 * idle window reads nothing. A launch from this window is also followed by its process: the
 * server says when it exits (`launch/exited`, issue 37), so a run that dies before it reports, or
 * ends before its folder's change is seen, still ends its progress and gets its notice, once.
 */
import * as vscode from 'vscode';
import type { ExtensionState } from './extensionState.js';
import { errorMessage } from './errors.js';
import {
  launchExited,
  runsChanged,
  runsList,
  runsWatch,
  type LaunchExited,
  type LogError,
  type RunsChanged,
  type RunSummary,
  sendRequest,
} from './serverMessages.js';

/** A launch this window is waiting for: the run folder it was started in. */
export interface ExpectedRun {
  readonly dir: string;
}

/** A run that ended, with the first error of its launch's output when its process was followed from here. */
export interface RunEnd {
  readonly run: RunSummary;
  readonly error: LogError | null;
}

/** How a wait for a launch ended: its run said it runs, it ended first (failed at once, or finished quickly), or nothing came. */
export type StartOutcome =
  { readonly kind: 'running'; readonly run: RunSummary } | { readonly kind: 'ended'; readonly run: RunSummary } | { readonly kind: 'timeout' };

interface Waiter {
  readonly expected: ExpectedRun;
  readonly resolve: (outcome: StartOutcome) => void;
  readonly timer: NodeJS.Timeout;
}

/** How long a launch that ended before it ran waits for its process's exit (sent within milliseconds of the folder's change). */
const exitGraceMs = 1000;

export class LiveRuns implements vscode.Disposable {
  /** The running runs, by folder. */
  private readonly running = new Map<string, RunSummary>();
  private readonly waiters = new Set<Waiter>();
  private watching = false;
  private readonly changed = new vscode.EventEmitter<readonly RunSummary[]>();
  private readonly ended = new vscode.EventEmitter<RunEnd>();
  /** The ends already announced, as `dir` and `endedAt`, so the exit and the folder's change give one notice. */
  private readonly announced = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Fires with the running runs whenever they change. */
  readonly onDidChange = this.changed.event;
  /** Fires once when a run this window saw running, or launched, has ended. */
  readonly onDidEnd = this.ended.event;

  constructor(private readonly extensionState: ExtensionState) {
    this.disposables.push(
      this.changed,
      this.ended,
      extensionState.onServerNotification(runsChanged, (change) => this.apply(change)),
      extensionState.onServerNotification(launchExited, (exit) => this.exited(exit)),
      extensionState.onDidChangeServer(() => void this.refresh()),
    );
  }

  /** The running runs, newest first. */
  get runs(): readonly RunSummary[] {
    return [...this.running.values()].sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
  }

  /** Reads every run once (at start and when a server becomes ready) to learn which are running. */
  async refresh(): Promise<void> {
    const client = await this.extensionState.currentClient();
    if (client === undefined) return;
    try {
      const result = await sendRequest(client, runsList, {});
      this.running.clear();
      for (const run of result.runs) {
        if (run.state === 'running') this.running.set(run.dir, run);
      }
      this.changed.fire(this.runs);
      await this.updateWatch();
    } catch (error) {
      this.extensionState.log.error(`Reading the running runs failed: ${errorMessage(error)}`);
    }
  }

  /**
   * Waits for a launch to show itself: its run running, or ended, or `timeoutMs` without either.
   * The runs are watched meanwhile.
   */
  whenStarted(expected: ExpectedRun, timeoutMs: number): Promise<StartOutcome> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        expected,
        resolve: (outcome) => {
          clearTimeout(waiter.timer);
          this.waiters.delete(waiter);
          resolve(outcome);
          void this.updateWatch();
        },
        timer: setTimeout(() => waiter.resolve({ kind: 'timeout' }), timeoutMs),
      };
      this.waiters.add(waiter);
      // A run that started before the watch began is already in the list: look once.
      const known = this.running.get(expected.dir);
      if (known !== undefined) waiter.resolve({ kind: 'running', run: known });
      else void this.updateWatch();
    });
  }

  dispose(): void {
    for (const waiter of [...this.waiters]) waiter.resolve({ kind: 'timeout' });
    for (const d of this.disposables) d.dispose();
  }

  /** A launch's process exited: its run, as the server read it then, has ended (a running one is someone else's). */
  private exited(exit: LaunchExited): void {
    const run = exit.run;
    this.extensionState.log.info(
      `Launch in ${exit.runDir} exited ${exit.signal ?? `with status ${exit.code ?? '?'}`} (${exit.reported ? 'its run reported its end' : 'before its run reported'}), ${Date.now() - exit.exitedAt} ms ago`,
    );
    if (run === null || run.state === 'running' || run.state === 'unknown') return;
    this.apply({ changed: [run], removed: [], episodes: [], sentAt: exit.sentAt }, { dir: run.dir, error: exit.error });
  }

  private apply(change: RunsChanged, exit?: { readonly dir: string; readonly error: LogError | null }): void {
    let moved = false;
    for (const run of change.changed) {
      const waiter = [...this.waiters].find((w) => w.expected.dir === run.dir);
      const wasRunning = this.running.has(run.dir);
      if (run.state === 'running') {
        if (!wasRunning) moved = true;
        this.running.set(run.dir, run);
        waiter?.resolve({ kind: 'running', run });
        continue;
      }
      // Unknown is a folder still being written (no status yet); it has not ended.
      if (run.state === 'unknown') continue;
      if (wasRunning) {
        this.running.delete(run.dir);
        moved = true;
      }
      // A run seen running, one this window waits for (it ended before it was seen running: a launch
      // that failed at once, or a short run), or one whose process this window started.
      if (exit?.dir === run.dir) this.announce({ run, error: exit.error });
      else if (waiter !== undefined && !wasRunning) {
        // The folder's change can arrive just before the exit that carries the first error's place:
        // the exit is given a moment to announce it, and this announces only if it did not come.
        setTimeout(() => this.announce({ run, error: null }), exitGraceMs);
      } else if (wasRunning || waiter !== undefined) this.announce({ run, error: null });
      waiter?.resolve({ kind: 'ended', run });
    }
    for (const dir of change.removed) moved = this.running.delete(dir) || moved;
    if (moved) {
      this.changed.fire(this.runs);
      void this.updateWatch();
    }
  }

  private announce(end: RunEnd): void {
    const key = `${end.run.dir}\0${end.run.endedAt ?? ''}`;
    if (this.announced.has(key)) return;
    this.announced.add(key);
    this.ended.fire(end);
  }

  private async updateWatch(): Promise<void> {
    const wanted = this.running.size > 0 || this.waiters.size > 0;
    const client = await this.extensionState.currentClient();
    if (wanted === this.watching || client === undefined) return;
    this.watching = wanted;
    try {
      await sendRequest(client, runsWatch, { watching: wanted, by: 'liveRuns' });
    } catch (error) {
      this.watching = !wanted;
      this.extensionState.log.error(`Watching the live runs failed: ${errorMessage(error)}`);
    }
  }
}
