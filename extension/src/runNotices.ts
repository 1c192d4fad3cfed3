/**
 * The notice when a run ends (issue 27): its outcome in one sentence, as an information, warning or
 * error message by how it ended, with the buttons that apply (`notices.ts`'s `runEndNotice`). Each
 * run button runs the Runs view's own command on the run, so Open Report, Show Metrics, Show Log
 * and Re-launch do here exactly what they do from the view. A launch whose process died before its
 * run reported (issue 37) also offers Go to Error, which opens the file and line its first error names.
 */
import * as vscode from 'vscode';
import { viewCommands } from './contributions.js';
import { goToFinding } from './launchFlow.js';
import type { LiveRuns, RunEnd } from './liveRuns.js';
import { runEndNotice, type RunNoticeAction } from './notices.js';

const commandOf: Record<Exclude<RunNoticeAction, 'Show Problems' | 'Go to Error'>, string> = {
  'Open Report': viewCommands.runOpenReport.id,
  'Show Metrics': viewCommands.runShowMetrics.id,
  'Show Log': viewCommands.runShowLog.id,
  'Re-launch': viewCommands.runRelaunch.id,
};

export function registerRunNotices(live: LiveRuns, log: (line: string) => void): vscode.Disposable {
  return live.onDidEnd((end) => void showRunEnd(end, log));
}

async function showRunEnd({ run, error }: RunEnd, log: (line: string) => void): Promise<void> {
  const notice = runEndNotice(run, Date.now(), error);
  // The output channel records each notice and when it was shown, which the end-to-end tests and the bench read.
  log(`Run notice (${notice.severity}): ${notice.text}`);
  const show =
    notice.severity === 'error'
      ? vscode.window.showErrorMessage
      : notice.severity === 'warning'
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const choice = await show(notice.text, ...notice.actions);
  if (choice === undefined) return;
  if (choice === 'Show Problems') {
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    return;
  }
  if (choice === 'Go to Error') {
    await goToFinding(error ?? undefined);
    return;
  }
  // The Runs view's commands take its run node: the folder is the run's identity.
  await vscode.commands.executeCommand(commandOf[choice], { kind: 'run', dir: run.dir });
}
