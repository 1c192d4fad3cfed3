/**
 * The notice when a run ends (issue 27): its outcome in one sentence, as an information, warning or
 * error message by how it ended, with the buttons that apply (`notices.ts`'s `runEndNotice`). Each
 * button runs the Runs view's own command on the run, so Open Report, Show Log and Re-launch do
 * here exactly what they do from the view.
 */
import * as vscode from 'vscode';
import { viewCommands } from './contributions.js';
import type { LiveRuns } from './liveRuns.js';
import { runEndNotice, type RunNoticeAction } from './notices.js';
import type { RunSummary } from './serverMessages.js';

const commandOf: Record<Exclude<RunNoticeAction, 'Show Problems'>, string> = {
  'Open Report': viewCommands.runOpenReport.id,
  'Show Log': viewCommands.runShowLog.id,
  'Re-launch': viewCommands.runRelaunch.id,
};

export function registerRunNotices(live: LiveRuns): vscode.Disposable {
  return live.onDidEnd((run) => void showRunEnd(run));
}

async function showRunEnd(run: RunSummary): Promise<void> {
  const notice = runEndNotice(run);
  const show = notice.severity === 'error' ? vscode.window.showErrorMessage : notice.severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const choice = await show(notice.text, ...notice.actions);
  if (choice === undefined) return;
  if (choice === 'Show Problems') {
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    return;
  }
  // The Runs view's commands take its run node: the folder is the run's identity.
  await vscode.commands.executeCommand(commandOf[choice], { kind: 'run', dir: run.dir });
}
