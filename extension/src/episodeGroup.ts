/**
 * The group view: every rollout of one task side by side, a training step's GRPO group or any set
 * of episodes of one task in a run (`graphPlanner/episode/group`). Opened from the Runs view (a
 * training run's groups, an episode's group) and from the metrics page (a step). One panel per
 * run: opening another group of the run shows it there. Messages from the page are validated; it
 * can only ask for another group of the same run, or to open one of its columns' episodes at a step.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { GroupSelection, GroupHostMessage } from '../../server/src/protocol/episodeGroup.js';
import type { GroupWebviewMessage } from '../../server/src/protocol/groupWebview.js';
import { episodeGroupViewType } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { errorMessage } from './errors.js';
import { episodeGroup, sendRequest } from './serverMessages.js';
import { openTrajectoryAt } from './trajectoryEditor.js';
import { newNonce, webviewHtml } from './webviewHtml.js';
import { messageSchemas } from './messageSchemas.js';

const panels = new Map<string, GroupPanel>();

/** Shows a group of a run's episodes, in the run's panel when one is open. */
export function showEpisodeGroup(extensionState: ExtensionState, run: string, selection: GroupSelection): void {
  const open = panels.get(run);
  if (open !== undefined) {
    open.show(selection);
    return;
  }
  panels.set(run, new GroupPanel(extensionState, run, selection));
}

class GroupPanel {
  private readonly panel: vscode.WebviewPanel;
  private latest: GroupHostMessage | undefined;
  private ready = false;
  /** Bumped per selection, so an answer to an older one is dropped. */
  private generation = 0;

  constructor(
    private readonly extensionState: ExtensionState,
    private readonly run: string,
    private selection: GroupSelection,
  ) {
    const dist = vscode.Uri.joinPath(extensionState.extension.extensionUri, 'dist');
    const title = `Groups: ${basename(run)}`;
    this.panel = vscode.window.createWebviewPanel(episodeGroupViewType, title, vscode.ViewColumn.Active, {
      enableScripts: true,
      enableCommandUris: false,
      retainContextWhenHidden: false,
      localResourceRoots: [dist],
    });
    const webview = this.panel.webview;
    webview.html = webviewHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'group.js')).toString(),
      title,
      loading: 'Aligning the rollouts…',
    });
    const subscription = webview.onDidReceiveMessage(
      (raw: unknown) =>
        void this.receive(raw).catch((error: unknown) => this.extensionState.log.error(`A message from the page failed: ${errorMessage(error)}`)),
    );
    this.panel.onDidDispose(() => {
      subscription.dispose();
      panels.delete(this.run);
    });
    void this.load();
  }

  show(selection: GroupSelection): void {
    this.selection = selection;
    this.panel.reveal();
    void this.load();
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = (await messageSchemas()).groupWebviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.extensionState.log.warn(`Ignored an invalid message from the group view: ${JSON.stringify(raw)?.slice(0, 200) ?? String(raw)}`);
      return;
    }
    void this.handle(parsed.data).catch((error: unknown) => void vscode.window.showWarningMessage(`Graph Planner: ${errorMessage(error)}`));
  }

  private async handle(message: GroupWebviewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        // A reloaded page (it was hidden) starts empty: it gets the group again.
        this.ready = true;
        if (this.latest !== undefined) await this.panel.webview.postMessage(this.latest);
        return;
      case 'selectStep':
        this.show({ kind: 'step', step: message.step, taskId: message.taskId, groupId: message.groupId });
        return;
      case 'selectTask':
        this.show({ kind: 'task', taskId: message.taskId });
        return;
      case 'openStep': {
        const group = this.latest?.group;
        // The page names a column of what it was sent; the path comes from that answer, never from the page.
        const column = group?.ok === true ? group.columns[message.column] : undefined;
        if (column !== undefined) await openTrajectoryAt(vscode.Uri.file(column.file), message.step);
        return;
      }
    }
  }

  private async load(): Promise<void> {
    const generation = ++this.generation;
    const client = await this.extensionState.currentClient();
    let message: GroupHostMessage;
    if (client === undefined)
      message = {
        type: 'group',
        group: { ok: false, message: 'The Graph Planner server is not running; run "Graph Planner: Restart Server" and open the group again.' },
      };
    else {
      try {
        message = { type: 'group', group: await sendRequest(client, episodeGroup, { run: this.run, selection: this.selection }) };
      } catch (error) {
        message = { type: 'group', group: { ok: false, message: `The server could not read the group: ${errorMessage(error)}` } };
      }
    }
    if (generation !== this.generation) return;
    this.latest = message;
    if (message.group.ok)
      this.panel.title = message.group.step === null ? `Episodes: ${message.group.taskId}` : `Group: step ${message.group.step} · ${message.group.taskId}`;
    if (this.ready) await this.panel.webview.postMessage(message);
  }
}
