/**
 * The runs that are live now (issue 27): those running under the workspace's run roots, and the
 * launches started from this window that have not said yet whether they run. The status bar item,
 * the Runs view's badge, the launch progress and the notice when a run ends all read this one
 * account. While anything is live it asks the server to watch the runs (`runs/watch` by
 * `liveRuns`), whether or not the Runs view is visible; when nothing is, it stops asking, so an
 * idle window reads nothing.
 */
import * as vscode from 'vscode';
import type { Ctx } from './ctx.js';
import { errorMessage } from './errors.js';
import { runsChanged, runsList, runsWatch, type RunsChanged, type RunSummary } from './serverMessages.js';

/** A launch this window is waiting for: a run folder it knows, or the next new run of a kind (`gp train` in a terminal picks its own folder). */
export type ExpectedRun = { readonly kind: 'dir'; readonly dir: string } | { readonly kind: 'new'; readonly command: string };

/** How a wait for a launch ended: its run said it runs, it ended first (failed at once, or finished quickly), or nothing came. */
export type StartOutcome = { readonly kind: 'running'; readonly run: RunSummary } | { readonly kind: 'ended'; readonly run: RunSummary } | { readonly kind: 'timeout' };

interface Waiter {
  readonly expected: ExpectedRun;
  readonly resolve: (outcome: StartOutcome) => void;
  readonly timer: NodeJS.Timeout;
}

export class LiveRuns implements vscode.Disposable {
  /** The running runs, by folder. */
  private readonly running = new Map<string, RunSummary>();
  /** Every run folder the server has reported, so a new one can be told from a known one. */
  private readonly known = new Set<string>();
  private readonly waiters = new Set<Waiter>();
  private watching = false;
  private readonly changed = new vscode.EventEmitter<readonly RunSummary[]>();
  private readonly ended = new vscode.EventEmitter<RunSummary>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Fires with the running runs whenever they change. */
  readonly onDidChange = this.changed.event;
  /** Fires once when a run this window saw running, or launched, has ended. */
  readonly onDidEnd = this.ended.event;

  constructor(private readonly ctx: Ctx) {
    this.disposables.push(
      this.changed,
      this.ended,
      ctx.onServerNotification(runsChanged, (change) => this.apply(change)),
      ctx.onDidChangeServer(() => void this.refresh()),
    );
  }

  /** The running runs, newest first. */
  get runs(): readonly RunSummary[] {
    return [...this.running.values()].sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
  }

  /** Reads every run once (at start and when a server becomes ready) to learn which are running. */
  async refresh(): Promise<void> {
    const client = this.ctx.client;
    if (client === undefined) return;
    try {
      const result = await client.sendRequest(runsList, {});
      this.running.clear();
      for (const run of result.runs) {
        this.known.add(run.dir);
        if (run.state === 'running') this.running.set(run.dir, run);
      }
      this.changed.fire(this.runs);
      await this.updateWatch();
    } catch (error) {
      this.ctx.log.error(`Reading the running runs failed: ${errorMessage(error)}`);
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
      const known = expected.kind === 'dir' ? this.running.get(expected.dir) : undefined;
      if (known !== undefined) waiter.resolve({ kind: 'running', run: known });
      else void this.updateWatch();
    });
  }

  dispose(): void {
    for (const waiter of [...this.waiters]) waiter.resolve({ kind: 'timeout' });
    for (const d of this.disposables) d.dispose();
  }

  private apply(change: RunsChanged): void {
    let moved = false;
    for (const run of change.changed) {
      const isNew = !this.known.has(run.dir);
      this.known.add(run.dir);
      const waiter = [...this.waiters].find((w) => matches(w.expected, run, isNew));
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
        this.ended.fire(run);
      } else if (waiter !== undefined) {
        // It ended before it was ever seen running: a launch that failed at once, or a short run.
        this.ended.fire(run);
      }
      waiter?.resolve({ kind: 'ended', run });
    }
    for (const dir of change.removed) moved = this.running.delete(dir) || moved;
    if (moved) {
      this.changed.fire(this.runs);
      void this.updateWatch();
    }
  }

  private async updateWatch(): Promise<void> {
    const wanted = this.running.size > 0 || this.waiters.size > 0;
    const client = this.ctx.client;
    if (wanted === this.watching || client === undefined) return;
    this.watching = wanted;
    try {
      await client.sendRequest(runsWatch, { watching: wanted, by: 'liveRuns' });
    } catch (error) {
      this.watching = !wanted;
      this.ctx.log.error(`Watching the live runs failed: ${errorMessage(error)}`);
    }
  }
}

function matches(expected: ExpectedRun, run: RunSummary, isNew: boolean): boolean {
  return expected.kind === 'dir' ? expected.dir === run.dir : isNew && run.kind === expected.command;
}
