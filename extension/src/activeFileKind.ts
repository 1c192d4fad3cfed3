/**
 * Keeps the `graphPlanner.activeFileKind` context key in step with the active editor, so that menus
 * offer "Check Config" on the files the server checks and "Show Resolved Config" on experiment
 * configs only, not on every YAML file.
 */
import * as vscode from 'vscode';
import { currentSettings } from './readClientSettings.js';
import { activeFileKindContextKey } from './contributions.js';
import { datasetFilters, experimentFilters, type FileKind } from './documentSelector.js';

export function fileKindOf(document: vscode.TextDocument): FileKind | undefined {
  const settings = currentSettings();
  if (vscode.languages.match(experimentFilters(settings), document) > 0) return 'experiment';
  if (vscode.languages.match(datasetFilters(settings), document) > 0) return 'dataset';
  return undefined;
}

/** Updates the context key now and whenever the active editor changes; call again after a settings change. */
export function updateActiveFileKind(editor: vscode.TextEditor | undefined = vscode.window.activeTextEditor): void {
  const kind = editor === undefined ? undefined : fileKindOf(editor.document);
  void vscode.commands.executeCommand('setContext', activeFileKindContextKey, kind ?? '');
}

export function trackActiveFileKind(): vscode.Disposable {
  updateActiveFileKind();
  return vscode.window.onDidChangeActiveTextEditor((editor) => updateActiveFileKind(editor));
}
