/**
 * Where a link in a trajectory (a node id or `file:line` in an observation) leads: the file of that
 * path in the workspace when there is one (the task's repository checked out there), otherwise a read-only document of
 * what the episode recorded of that file (the lines its reads returned, at their own line numbers),
 * whose uri carries the trajectory in its query.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import * as vscode from 'vscode';
import { recordedSourceScheme } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { errorMessage } from './errors.js';
import { episodeSource, sendRequest } from './serverMessages.js';

/**
 * Opens `file` (repository-relative) at `line`: from the workspace when a file of that path is
 * there, else as recorded. The path comes from model output, so only paths inside a workspace
 * folder are looked up; anything else is shown as recorded.
 */
export async function openRecordedLocation(trajectory: string, file: string, line: number): Promise<void> {
  const inside = (folder: string, path: string): boolean => {
    const rel = relative(folder, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  const safe = !isAbsolute(file) && !file.split(/[\\/]/).includes('..');
  const local = safe
    ? (vscode.workspace.workspaceFolders ?? [])
        .map((f) => ({ folder: f.uri.fsPath, path: resolve(f.uri.fsPath, file) }))
        .find((c) => inside(c.folder, c.path) && existsSync(c.path))?.path
    : undefined;
  const uri = local !== undefined ? vscode.Uri.file(local) : vscode.Uri.from({ scheme: recordedSourceScheme, path: `/${file}`, query: trajectory });
  const position = new vscode.Position(line - 1, 0);
  await vscode.window.showTextDocument(uri, {
    viewColumn: vscode.ViewColumn.Beside,
    preview: true,
    preserveFocus: false,
    selection: new vscode.Range(position, position),
  });
}

export class RecordedSourceProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly extensionState: ExtensionState) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const file = uri.path.replace(/^\//, '');
    const client = await this.extensionState.currentClient();
    if (client === undefined) return `The Graph Planner server is not running; ${file} cannot be shown as its episode recorded it.\n`;
    try {
      const result = await sendRequest(client, episodeSource, { path: uri.query, file });
      if (result.recordedLines === 0) return `The episode in ${uri.query} read no line of ${file}, and ${file} is not in the workspace.\n`;
      return result.text;
    } catch (error) {
      return `${file} cannot be shown as recorded: ${errorMessage(error)}\n`;
    }
  }
}
