/**
 * The read-only "resolved config" view of an experiment YAML: a virtual document whose uri
 * carries the source uri in its query, filled by asking the server for `graphPlanner/resolvedConfig`.
 */
import * as vscode from 'vscode';
import { resolvedConfigScheme } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { resolvedConfig, sendRequest } from './serverMessages.js';
import { resolvedConfigText, serverNotRunningText } from './resolvedConfigText.js';
import { errorMessage } from './errors.js';

/** How long to wait after the last edit of a source before asking the server again. */
const refreshDelayMs = 300;

/** The view's path ends in `.yaml` so the editor names the tab sensibly and picks YAML colouring. */
export function resolvedUriFor(source: vscode.Uri): vscode.Uri {
  const base = source.path.replace(/\.ya?ml$/i, '');
  return vscode.Uri.from({ scheme: resolvedConfigScheme, path: `${base}.resolved.yaml`, query: source.toString() });
}

/** The source of a resolved config view, or undefined for any other uri. */
export function sourceOfResolved(uri: vscode.Uri): vscode.Uri | undefined {
  if (uri.scheme !== resolvedConfigScheme || uri.query === '') return undefined;
  try {
    return vscode.Uri.parse(uri.query, true);
  } catch {
    return undefined;
  }
}

export async function openResolvedConfig(source: vscode.Uri): Promise<void> {
  let document = await vscode.workspace.openTextDocument(resolvedUriFor(source));
  if (document.languageId !== 'yaml') document = await vscode.languages.setTextDocumentLanguage(document, 'yaml');
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
}

export class ResolvedConfigProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly extensionState: ExtensionState) {
    this.disposables = [
      this.changed,
      vscode.workspace.onDidChangeTextDocument((event) => this.onSourceChanged(event.document.uri)),
      extensionState.onDidChangeServer(() => this.openViews().forEach((view) => this.changed.fire(view))),
    ];
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const source = sourceOfResolved(uri);
    if (source === undefined) return '# This view has lost the file it belongs to; open it again from the experiment YAML.\n';
    const file = vscode.workspace.asRelativePath(source);
    const client = await this.extensionState.currentClient();
    if (client === undefined) return serverNotRunningText(file);
    try {
      // Opening the source makes sure the server has it, also after the editor closed it.
      await vscode.workspace.openTextDocument(source);
      const result = await sendRequest(client, resolvedConfig, { uri: client.code2ProtocolConverter.asUri(source) }, token);
      return resolvedConfigText(result, file);
    } catch (error) {
      this.extensionState.log.warn(`Resolving ${file} failed: ${errorMessage(error)}`);
      return `# Graph Planner could not resolve ${file}: ${errorMessage(error)}\n`;
    }
  }

  dispose(): void {
    this.timers.forEach((timer) => clearTimeout(timer));
    this.timers.clear();
    this.disposables.forEach((d) => d.dispose());
  }

  private openViews(): vscode.Uri[] {
    return vscode.workspace.textDocuments.filter((d) => d.uri.scheme === resolvedConfigScheme).map((d) => d.uri);
  }

  private onSourceChanged(source: vscode.Uri): void {
    if (source.scheme === resolvedConfigScheme) return;
    const key = source.toString();
    for (const view of this.openViews()) {
      if (sourceOfResolved(view)?.toString() !== key) continue;
      clearTimeout(this.timers.get(view.toString()));
      this.timers.set(
        view.toString(),
        setTimeout(() => {
          this.timers.delete(view.toString());
          this.changed.fire(view);
        }, refreshDelayMs),
      );
    }
  }
}
