/**
 * The progress notification while a launch starts (issue 27): from the moment `gp` is started until
 * its run says it runs, or ends first, or two minutes pass (a run that loads a model first may take
 * that long; the status bar and the Runs view follow it after). It replaces the toast that showed
 * the raw command line: the command is in the run's tooltip and its `launch.json`.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { runTitle } from './views/runsText.js';
import type { ExpectedRun, LiveRuns } from './liveRuns.js';

const startTimeoutMs = 120_000;

/**
 * Shows "Starting NAME…" until the launch's run shows itself, under the run's one name (the Runs
 * view's, `runTitle`). Its process is followed too (liveRuns.ts), so a launch that dies first ends
 * this at once with its failed notice.
 */
export function showLaunchProgress(live: LiveRuns, expected: ExpectedRun, kind: string, log: (line: string) => void): void {
  const started = Date.now();
  const name = runTitle({ name: basename(expected.dir), kind }, started);
  void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Starting ${name}…`, cancellable: false }, async (progress) => {
    progress.report({ message: 'waiting for its run to report that it runs' });
    const outcome = await live.whenStarted(expected, startTimeoutMs);
    // The output channel records how each start ended and when, which the end-to-end tests read.
    log(`Launch progress: ${name} ${outcome.kind === 'timeout' ? 'did not report in time' : outcome.kind} after ${Date.now() - started} ms`);
    // An ended run gets its own notice (runNotices.ts); a slow start is still followed by the Runs view.
    if (outcome.kind === 'timeout')
      void vscode.window.showInformationMessage(`${name} has not reported that it runs after ${startTimeoutMs / 1000} s; the Runs view shows it when it does.`);
  });
}
