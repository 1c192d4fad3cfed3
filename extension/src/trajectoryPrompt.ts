/**
 * The offer to open another tool's trajectory in the viewer (issue 37): a `.json` or `.traj` file
 * shown as text whose first characters look like ATIF, SWE-agent or mini-swe-agent
 * (protocol/trajectorySniff.ts) gets a notice with Open in Trajectory Viewer and Don't Ask Again.
 * The viewer opens such files by default only under the names package.json registers
 * (`*.atif.json`, `*.traj.json`, `*.traj`); ATIF has no fixed extension, so a plain `.json` opened
 * as raw JSON with no hint. Only files a person is looking at are checked, each once a session,
 * and only their first characters; Don't Ask Again holds for the workspace.
 */
import * as vscode from 'vscode';
import { sniffChars, sniffTrajectoryFormat, type SniffedTrajectoryFormat } from '../../server/src/protocol/trajectorySniff.js';
import { trajectoryViewType } from './contributions.js';

/** The workspace-state key that turns the offer off for this workspace. */
export const trajectoryPromptOffKey = 'graphPlanner.trajectoryPrompt.off';

export const openInViewerLabel = 'Open in Trajectory Viewer';
export const dontAskAgainLabel = "Don't Ask Again";

/** `.json` (`.traj.json`, `.atif.json` among them) and `.traj`: the names other tools give trajectories. */
function mayBeTrajectory(document: vscode.TextDocument): boolean {
  return document.uri.scheme === 'file' && /\.(json|traj)$/i.test(document.uri.path);
}

export function registerTrajectoryPrompt(state: vscode.Memento): vscode.Disposable {
  const asked = new Set<string>();
  const check = (editor: vscode.TextEditor | undefined): void => {
    if (editor === undefined || state.get<boolean>(trajectoryPromptOffKey) === true) return;
    const document = editor.document;
    const key = document.uri.toString();
    if (asked.has(key) || !mayBeTrajectory(document)) return;
    asked.add(key);
    const format = sniffTrajectoryFormat(document.getText(new vscode.Range(new vscode.Position(0, 0), document.positionAt(sniffChars))));
    if (format === undefined) return;
    void offer(document.uri, format, state);
  };
  check(vscode.window.activeTextEditor);
  return vscode.window.onDidChangeActiveTextEditor(check);
}

const formatWords: Record<SniffedTrajectoryFormat, string> = {
  atif: 'an ATIF trajectory',
  'swe-agent': 'a SWE-agent trajectory',
  'mini-swe-agent': 'a mini-swe-agent trajectory',
  inspect: 'an Inspect AI evaluation log',
};

/** The notice's words: `run.json looks like an ATIF trajectory…`. */
export function trajectoryPromptText(fileName: string, format: SniffedTrajectoryFormat): string {
  return `${fileName} looks like ${formatWords[format]}. The Trajectory Viewer shows it step by step.`;
}

async function offer(uri: vscode.Uri, format: SniffedTrajectoryFormat, state: vscode.Memento): Promise<void> {
  const name = uri.path.slice(uri.path.lastIndexOf('/') + 1);
  const choice = await vscode.window.showInformationMessage(trajectoryPromptText(name, format), openInViewerLabel, dontAskAgainLabel);
  if (choice === openInViewerLabel) {
    await vscode.commands.executeCommand('vscode.openWith', uri, trajectoryViewType);
    // The viewer takes the text editor's place, so two tabs of one name do not sit side by side; an
    // edited text stays open.
    const text = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString() && !t.isDirty);
    if (text.length > 0) await vscode.window.tabGroups.close(text);
  } else if (choice === dontAskAgainLabel) await state.update(trajectoryPromptOffKey, true);
}
