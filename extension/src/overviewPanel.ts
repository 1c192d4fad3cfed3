/**
 * The experiment overview panels: one webview beside the editor per experiment YAML, filled by
 * asking the server for `graphPlanner/experimentOverview` and refreshed (debounced) when the
 * document changes or the server comes and goes. Messages from the webview are untrusted input:
 * each is validated against `webviewMessageSchema` and an invalid one is logged and ignored. A
 * finding's quick-fix button is applied through the editor's own code actions (overviewQuickFix.ts).
 */
import * as vscode from 'vscode';
import type { HostMessage, WebviewMessage } from '../../server/src/protocol/webview.js';
import type { OverviewRange } from '../../server/src/protocol/overview.js';
import { experimentOverviewViewType } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { newNonce, webviewHtml } from './webviewHtml.js';
import { experimentOverview, sendRequest } from './serverMessages.js';
import { errorMessage } from './errors.js';
import { chooseAction, type QuickFixChoice } from './overviewQuickFix.js';
import { messageSchemas } from './messageSchemas.js';

/** How long to wait after the last edit of a document before asking the server again. */
const refreshDelayMs = 300;

export class OverviewPanels implements vscode.Disposable {
  private readonly panels = new Map<string, OverviewPanel>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly extensionState: ExtensionState) {
    this.disposables = [
      vscode.workspace.onDidChangeTextDocument((event) => this.scheduleRefresh(event.document.uri)),
      extensionState.onDidChangeServer(() => this.panels.forEach((panel) => panel.refresh())),
    ];
  }

  /** Opens the overview of `source` beside the editor, or reveals the one already open. */
  show(source: vscode.Uri): void {
    const key = source.toString();
    const open = this.panels.get(key);
    if (open !== undefined) {
      open.reveal();
      return;
    }
    this.panels.set(key, new OverviewPanel(this.extensionState, source, () => this.forget(key)));
  }

  dispose(): void {
    this.timers.forEach((timer) => clearTimeout(timer));
    this.timers.clear();
    this.disposables.forEach((d) => d.dispose());
    // Disposing a panel calls `forget`, which edits the map, so iterate over a copy.
    [...this.panels.values()].forEach((panel) => panel.dispose());
  }

  private scheduleRefresh(source: vscode.Uri): void {
    const key = source.toString();
    const panel = this.panels.get(key);
    if (panel === undefined) return;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        panel.refresh();
      }, refreshDelayMs),
    );
  }

  private forget(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.panels.delete(key);
  }
}

class OverviewPanel {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  /** The last message computed, sent again when the page (re)loads and says it is ready. */
  private latest: HostMessage | undefined;
  /** Counts refreshes, so that an answer overtaken by a newer request is dropped. */
  private generation = 0;
  private disposed = false;

  constructor(
    private readonly extensionState: ExtensionState,
    private readonly source: vscode.Uri,
    onDispose: () => void,
  ) {
    const dist = vscode.Uri.joinPath(extensionState.extension.extensionUri, 'dist');
    const title = `Overview: ${source.path.split('/').pop() ?? source.path}`;
    this.panel = vscode.window.createWebviewPanel(
      experimentOverviewViewType,
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, enableCommandUris: false, localResourceRoots: [dist] },
    );
    const webview = this.panel.webview;
    webview.html = webviewHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      title,
      loading: 'Loading the experiment overview…',
    });
    this.disposables.push(
      webview.onDidReceiveMessage(
        (raw: unknown) =>
          void this.receive(raw).catch((error: unknown) => this.extensionState.log.error(`A message from the page failed: ${errorMessage(error)}`)),
      ),
      this.panel.onDidDispose(() => {
        this.disposed = true;
        this.disposables.forEach((d) => d.dispose());
        onDispose();
      }),
    );
    this.refresh();
  }

  reveal(): void {
    this.panel.reveal(undefined, true);
  }

  dispose(): void {
    this.panel.dispose();
  }

  /** Asks the server again and posts the answer; failures become an `unavailable` message. */
  refresh(): void {
    const generation = ++this.generation;
    void this.compute().then((message) => {
      if (this.disposed || generation !== this.generation) return;
      this.latest = message;
      this.post(message);
    });
  }

  private async compute(): Promise<HostMessage> {
    const file = vscode.workspace.asRelativePath(this.source);
    const client = await this.extensionState.currentClient();
    if (client === undefined) {
      const reason = 'The Graph Planner server is not running. Run "Graph Planner: Restart Server"; this view refreshes when the server is ready.';
      return { type: 'unavailable', file, reason };
    }
    try {
      // Opening the source makes sure the server has it, also after the editor closed it.
      await vscode.workspace.openTextDocument(this.source);
      const overview = await sendRequest(client, experimentOverview, { uri: client.code2ProtocolConverter.asUri(this.source) });
      if (overview === null) return { type: 'unavailable', file, reason: `Graph Planner cannot read ${file}.` };
      return { type: 'overview', file, overview };
    } catch (error) {
      const detail = errorMessage(error);
      this.extensionState.log.warn(`Experiment overview of ${file} failed: ${detail}`);
      return { type: 'unavailable', file, reason: `The server could not compute the overview: ${detail}` };
    }
  }

  private post(message: HostMessage): void {
    // A hidden panel drops messages; it asks again with `ready` when it is shown.
    void this.panel.webview.postMessage(message);
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = (await messageSchemas()).webviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.extensionState.log.warn(`Ignored an invalid message from the experiment overview: ${JSON.stringify(raw)?.slice(0, 200) ?? String(raw)}`);
      return;
    }
    this.handle(parsed.data);
  }

  private handle(message: WebviewMessage): void {
    switch (message.type) {
      case 'ready':
        if (this.latest !== undefined) this.post(this.latest);
        return;
      case 'reveal':
        void this.revealInEditor(message.range).catch((error: unknown) => {
          this.extensionState.log.warn(`Could not reveal the finding: ${errorMessage(error)}`);
        });
        return;
      case 'applyFix':
        void applyQuickFix(this.source, message).catch((error: unknown) => {
          this.extensionState.log.warn(`Could not apply the overview's quick fix ${JSON.stringify(message.title)}: ${errorMessage(error)}`);
          // The title came from the page, so the notification (which renders links) does not repeat it.
          void vscode.window.showWarningMessage(`Graph Planner: could not apply the quick fix: ${errorMessage(error)}`);
        });
        return;
    }
  }

  /** Shows `range` in the document's editor: the visible one when there is one, else the first column. */
  private async revealInEditor(range: OverviewRange): Promise<void> {
    const selection = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
    const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.source.toString());
    const viewColumn = visible?.viewColumn ?? vscode.ViewColumn.One;
    const editor = await vscode.window.showTextDocument(this.source, { viewColumn, selection, preserveFocus: false, preview: false });
    editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}

/** Applies the quick fix a button of the overview names, as choosing it from the light bulb would. */
async function applyQuickFix(source: vscode.Uri, choice: QuickFixChoice): Promise<void> {
  const { start, end } = choice.range;
  const range = new vscode.Range(start.line, start.character, end.line, end.character);
  const actions =
    (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[] | undefined>(
      'vscode.executeCodeActionProvider',
      source,
      range,
      vscode.CodeActionKind.QuickFix.value,
    )) ?? [];
  const action = chooseAction(actions, choice);
  if (action === undefined) {
    throw new Error('the editor no longer offers it for this finding (the file changed); the overview shows the fixes that apply now');
  }
  if (action.edit !== undefined && !(await vscode.workspace.applyEdit(action.edit))) throw new Error('the editor refused the edit');
  if (action.command !== undefined) await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
}
