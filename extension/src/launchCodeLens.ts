/**
 * `▶ Rollout · ▶ Evaluate` above the first key of an experiment YAML: the two launches a person
 * starts from the file they are editing. The `graphPlanner.codeLens` setting turns them off.
 */
import * as vscode from 'vscode';
import { fileKindOf } from './activeFileKind.js';
import { commandIds } from './contributions.js';
import { documentSelector } from './documentSelector.js';
import { currentSettings } from './readClientSettings.js';

const settingKey = 'graphPlanner.codeLens';

class LaunchCodeLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (vscode.workspace.getConfiguration('graphPlanner', document.uri).get<boolean>('codeLens') === false) return [];
    if (fileKindOf(document) !== 'experiment') return [];
    const line = firstKeyLine(document);
    if (line === undefined) return [];
    const range = document.lineAt(line).range;
    return [
      new vscode.CodeLens(range, {
        title: '▶ Rollout',
        tooltip: 'Start a rollout with this config',
        command: commandIds.startRollout,
        arguments: [document.uri],
      }),
      new vscode.CodeLens(range, {
        title: '▶ Evaluate',
        tooltip: 'Start an evaluation with this config',
        command: commandIds.startEvaluation,
        arguments: [document.uri],
      }),
    ];
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The first line that starts a top-level key (not a comment, a blank line or `---`). */
function firstKeyLine(document: vscode.TextDocument): number | undefined {
  for (let i = 0; i < Math.min(document.lineCount, 500); i++) {
    if (/^[A-Za-z_"'][^#]*:/.test(document.lineAt(i).text)) return i;
  }
  return undefined;
}

export function registerLaunchCodeLens(): vscode.Disposable {
  const provider = new LaunchCodeLens();
  const selector = documentSelector(currentSettings()).filter((f) => f.language === 'yaml');
  return vscode.Disposable.from(
    provider,
    vscode.languages.registerCodeLensProvider(selector, provider),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(settingKey)) provider.refresh();
    }),
  );
}
