/**
 * Comparing two episodes of one task (two attempts, two agents, before and after training): the
 * person picks the second trajectory (those of the same task first), and a panel shows both side
 * by side with the steps aligned by the server (`graphPlanner/episode/compare`). The final patches
 * open in the diff editor against each other. Messages from the page are validated; the page only
 * asks to open a step in the viewer or to diff the final patches.
 */
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { compareWebviewMessageSchema, type CompareWebviewMessage } from '../../server/src/protocol/episodeWebview.js';
import type { CompareHostMessage } from '../../server/src/protocol/episodeView.js';
import { episodeCompareViewType, patchScheme, trajectoryViewType } from './contributions.js';
import type { Ctx } from './ctx.js';
import { errorMessage } from './errors.js';
import { episodeCompare } from './serverMessages.js';
import type { PatchActions } from './patchDiffs.js';
import { newNonce, webviewHtml } from './webviewHtml.js';

/** Asks for the second episode (when not given) and opens the comparison. */
export async function compareEpisodes(ctx: Ctx, patches: PatchActions, first: vscode.Uri | undefined, second?: vscode.Uri): Promise<void> {
  const left = first ?? (await pickTrajectory('The first episode to compare', undefined));
  if (left === undefined) return;
  const right = second ?? (await pickTrajectory(`Compare ${basename(left.fsPath, '.jsonl')} with`, left));
  if (right === undefined) return;
  // Opened from a viewer, which is then the active editor: keep it rather than let the panel replace its preview tab.
  if (first !== undefined) await vscode.commands.executeCommand('workbench.action.keepEditor');
  new ComparePanel(ctx, patches, left, right);
}

/**
 * The task part of an episode's file name: attempt n of a task is `<task>#n`, which the run names
 * `<task>_n-<hash>.jsonl` (runs/layout.ts `episodeFileName`).
 */
function taskKeyOf(episode: string): string {
  return episode.replace(/_\d+-[0-9a-f]{8}$/, '');
}

/** Every trajectory in the workspace; those of the same task (the same episode name, or another attempt) first. */
async function pickTrajectory(title: string, other: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
  const found = await vscode.workspace.findFiles('**/trajectories/*.jsonl', '**/node_modules/**', 5000);
  const name = other === undefined ? undefined : basename(other.fsPath, '.jsonl');
  const items = found
    .filter((uri) => uri.fsPath !== other?.fsPath)
    .map((uri) => {
      const episode = basename(uri.fsPath, '.jsonl');
      const run = basename(dirname(dirname(uri.fsPath)));
      return { label: episode, description: run, detail: vscode.workspace.asRelativePath(uri), uri, same: name !== undefined && taskKeyOf(episode) === taskKeyOf(name) };
    })
    .sort((a, b) => Number(b.same) - Number(a.same) || b.description.localeCompare(a.description));
  if (items.length === 0) {
    void vscode.window.showInformationMessage('No other trajectory (trajectories/*.jsonl) in the workspace to compare with.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: 'Episodes of the same task come first', matchOnDescription: true, matchOnDetail: true });
  return picked?.uri;
}

class ComparePanel {
  private readonly panel: vscode.WebviewPanel;
  private latest: CompareHostMessage | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly patches: PatchActions,
    private readonly left: vscode.Uri,
    private readonly right: vscode.Uri,
  ) {
    const dist = vscode.Uri.joinPath(ctx.extension.extensionUri, 'dist');
    const title = `Compare ${basename(left.fsPath, '.jsonl')} ↔ ${basename(right.fsPath, '.jsonl')}`;
    this.panel = vscode.window.createWebviewPanel(episodeCompareViewType, title, vscode.ViewColumn.Active, { enableScripts: true, enableCommandUris: false, localResourceRoots: [dist] });
    const webview = this.panel.webview;
    webview.html = webviewHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'compare.js')).toString(),
      title,
      loading: 'Aligning the two episodes…',
    });
    const subscription = webview.onDidReceiveMessage((raw: unknown) => this.receive(raw));
    this.panel.onDidDispose(() => subscription.dispose());
  }

  private receive(raw: unknown): void {
    const parsed = compareWebviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.ctx.log.warn(`Ignored an invalid message from the episode comparison: ${JSON.stringify(raw)?.slice(0, 200) ?? String(raw)}`);
      return;
    }
    void this.handle(parsed.data).catch((error: unknown) => void vscode.window.showWarningMessage(`Graph Planner: ${errorMessage(error)}`));
  }

  private async handle(message: CompareWebviewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        if (this.latest === undefined) await this.load();
        if (this.latest !== undefined) void this.panel.webview.postMessage(this.latest);
        return;
      case 'openEpisode':
        await vscode.commands.executeCommand('vscode.openWith', message.side === 'left' ? this.left : this.right, trajectoryViewType, vscode.ViewColumn.Beside);
        return;
      case 'diffPatches':
        await this.diffPatches();
        return;
    }
  }

  private async load(): Promise<void> {
    const client = this.ctx.client;
    if (client === undefined) {
      this.latest = { type: 'comparison', comparison: { ok: false, message: 'The Graph Planner server is not running; run "Graph Planner: Restart Server" and compare again.' } };
      return;
    }
    const comparison = await client.sendRequest(episodeCompare, { left: this.left.fsPath, right: this.right.fsPath });
    this.latest = { type: 'comparison', comparison };
  }

  /** The two final patches against each other, as diff text. */
  private async diffPatches(): Promise<void> {
    const c = this.latest?.comparison;
    if (c === undefined || !c.ok) return;
    const side = (which: 'left' | 'right'): vscode.Uri => {
      const uri = vscode.Uri.from({ scheme: patchScheme, path: `/compare-${++compared}/${which}/${basename(c[which].file, '.jsonl')}.diff` });
      return this.patches.serve(uri, c[which].outcome?.patch ?? '(the episode has not ended: it has no final patch yet)\n');
    };
    await vscode.commands.executeCommand('vscode.diff', side('left'), side('right'), `Final patches: ${basename(c.left.file, '.jsonl')} ↔ ${basename(c.right.file, '.jsonl')}`);
  }
}

let compared = 0;
