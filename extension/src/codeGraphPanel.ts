/**
 * An episode on the code graph: a webview panel per trajectory, opened from the trajectory viewer's
 * "Code graph" button or the command. The server builds and lays out the subgraph
 * (`server/src/graphView/codeGraphView.ts`); this module relays it to the page (`webview/src/codeGraph/`),
 * tells the page which step the trajectory viewer selected, asks again when the trajectory changes,
 * and opens a clicked node's file at its line (the recorded source when the file is not in the
 * workspace). Every message from the page is validated; an invalid one is logged and dropped.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { CodeGraphHostMessage } from '../../server/src/protocol/codeGraphView.js';
import { codeGraphViewType } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { errorMessage } from './errors.js';
import { openRecordedLocation } from './recordedSource.js';
import { episodeChanged, episodeCodeGraph, sendRequest } from './serverMessages.js';
import { newNonce, webviewHtml } from './webviewHtml.js';
import { messageSchemas } from './messageSchemas.js';

/** A running episode appends a step at a time; changes within this window become one rebuild. */
const refreshDelayMs = 400;
const panels = new Map<string, CodeGraphPanel>();
/** The most nodes the server draws (protocol/codeGraphView.ts), asked for by "Show all". */
export const allCodeGraphNodes = 1000;

/** Opens (or reveals) the code-graph view of a trajectory, beside the viewer, at the step given. */
export function showCodeGraph(extensionState: ExtensionState, trajectory: vscode.Uri, step?: number): void {
  const open = panels.get(trajectory.fsPath);
  if (open !== undefined) open.reveal();
  else panels.set(trajectory.fsPath, new CodeGraphPanel(extensionState, trajectory.fsPath));
  if (step !== undefined) selectCodeGraphStep(trajectory.fsPath, step);
}

/** The trajectory viewer selected a step: an open code-graph view of the same episode follows it. */
export function selectCodeGraphStep(trajectory: string, step: number): void {
  panels.get(trajectory)?.select(step);
}

class CodeGraphPanel {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  /** Messages for a page that has not said `ready` yet. */
  private queued: CodeGraphHostMessage[] | undefined = [];
  private step: number | undefined;
  /** Set when the person asked to see every node; the server's default otherwise. */
  private limit: number | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly extensionState: ExtensionState,
    private readonly path: string,
  ) {
    const dist = vscode.Uri.joinPath(extensionState.extension.extensionUri, 'dist');
    const title = `Code graph: ${basename(path, '.jsonl')}`;
    this.panel = vscode.window.createWebviewPanel(
      codeGraphViewType,
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, enableCommandUris: false, retainContextWhenHidden: false, localResourceRoots: [dist] },
    );
    const webview = this.panel.webview;
    webview.html = webviewHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codeGraph.js')).toString(),
      title,
      loading: `Reading ${basename(path)}…`,
    });
    this.disposables.push(
      webview.onDidReceiveMessage(
        (raw: unknown) =>
          void this.receive(raw).catch((error: unknown) => this.extensionState.log.error(`A message from the page failed: ${errorMessage(error)}`)),
      ),
      extensionState.onServerNotification(episodeChanged, (change) => {
        if (change.path !== this.path) return;
        clearTimeout(this.refreshTimer);
        this.refreshTimer = setTimeout(() => void this.load(), refreshDelayMs);
      }),
      extensionState.onDidChangeServer(() => void this.load()),
    );
    this.panel.onDidDispose(() => this.dispose());
    void this.load();
  }

  reveal(): void {
    this.panel.reveal(undefined, true);
  }

  select(step: number): void {
    this.step = step;
    this.post({ type: 'step', step });
  }

  private dispose(): void {
    this.disposed = true;
    clearTimeout(this.refreshTimer);
    this.disposables.forEach((d) => d.dispose());
    panels.delete(this.path);
  }

  private async load(): Promise<void> {
    const client = await this.extensionState.currentClient();
    if (client === undefined) {
      this.post({
        type: 'graphUnavailable',
        reason: 'The Graph Planner server is not running. Run "Graph Planner: Restart Server"; this view reloads when it is ready.',
      });
      return;
    }
    try {
      const result = await sendRequest(client, episodeCodeGraph, { path: this.path, ...(this.limit === undefined ? {} : { limit: this.limit }) });
      if (!result.ok) this.post({ type: 'graphUnavailable', reason: result.message });
      else {
        this.post({ type: 'graph', graph: result.graph });
        if (this.step !== undefined) this.post({ type: 'step', step: this.step });
      }
    } catch (error) {
      this.post({ type: 'graphUnavailable', reason: `The server could not build the code graph: ${errorMessage(error)}` });
    }
  }

  private post(message: CodeGraphHostMessage): void {
    if (this.disposed) return;
    if (this.queued !== undefined) this.queued.push(message);
    else void this.panel.webview.postMessage(message);
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = (await messageSchemas()).codeGraphWebviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.extensionState.log.warn(`Ignored an invalid message from the code-graph view: ${JSON.stringify(raw)?.slice(0, 200) ?? String(raw)}`);
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'ready': {
        const queued = this.queued;
        this.queued = undefined;
        // A page shown again after being hidden starts empty: build the graph again.
        if (queued === undefined) void this.load();
        else for (const m of queued) void this.panel.webview.postMessage(m);
        return;
      }
      case 'showAll':
        this.limit = allCodeGraphNodes;
        void this.load();
        return;
      case 'openNode':
        void openRecordedLocation(this.path, message.file, message.line).catch((error: unknown) =>
          this.extensionState.log.warn(`Code graph: ${errorMessage(error)}`),
        );
        return;
      case 'timing':
        this.extensionState.log.info(`Code graph: ${message.what} of ${basename(this.path)} in ${message.ms.toFixed(1)} ms`);
        return;
    }
  }
}
