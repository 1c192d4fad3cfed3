/**
 * Comparing two episodes of one task (two attempts, two agents, before and after training): the
 * person picks the second trajectory (those of the same task first), and a panel shows both side
 * by side with the steps aligned by the server (`graphPlanner/episode/compare`). The final patches
 * open in the diff editor against each other. Messages from the page are validated; the page only
 * asks to open a step in the viewer or to diff the final patches.
 */
import { randomUUID } from 'node:crypto';
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import type { CompareWebviewMessage } from '../../server/src/protocol/episodeWebview.js';
import type { CompareHostMessage } from '../../server/src/protocol/episodeView.js';
import { episodeCompareViewType, patchScheme, trajectoryViewType } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { errorMessage } from './errors.js';
import { pickerEntries, type FoundTrajectory, type PickerEntry } from './episodePicker.js';
import { episodeChanged, episodeCompare, episodeWatch, runEpisodes, runsList, type EpisodeSummary, sendRequest } from './serverMessages.js';
import type { PatchActions } from './patchDiffs.js';
import { newNonce, webviewHtml } from './webviewHtml.js';
import { messageSchemas } from './messageSchemas.js';

/**
 * How a comparison opens: `alignAt`, the step the right episode forked from the left one at
 * (docs/trajectory-viewer.md#continue-from-here), which the page scrolls to and marks; the
 * comparison then follows both files as they grow, since a fork is compared while it still runs.
 */
export interface CompareOptions {
  readonly alignAt?: number;
}

/** Asks for the second episode (when not given) and opens the comparison. */
export async function compareEpisodes(
  extensionState: ExtensionState,
  patches: PatchActions,
  first: vscode.Uri | undefined,
  second?: vscode.Uri,
  options: CompareOptions = {},
): Promise<void> {
  const left = first ?? (await pickTrajectory(extensionState, 'The first episode to compare', undefined));
  if (left === undefined) return;
  const right = second ?? (await pickTrajectory(extensionState, `Compare ${basename(left.fsPath, '.jsonl')} with`, left));
  if (right === undefined) return;
  // Opened from a viewer, which is then the active editor: keep it rather than let the panel replace its preview tab.
  if (first !== undefined) await vscode.commands.executeCommand('workbench.action.keepEditor');
  new ComparePanel(extensionState, patches, left, right, options.alignAt ?? null);
}

/**
 * Every trajectory in the workspace, under its episode's name with its outcome (`episodePicker.ts`),
 * the other episodes of the same task first. The outcomes come from the runs the server lists.
 */
async function pickTrajectory(extensionState: ExtensionState, title: string, other: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
  const files = await vscode.workspace.findFiles('**/trajectories/*.jsonl', '**/node_modules/**', 5000);
  const found = await withEpisodes(extensionState, [...files.map((f) => f.fsPath), ...(other === undefined ? [] : [other.fsPath])]);
  const { sameTask, rest } = pickerEntries(
    found,
    found.find((f) => f.path === other?.fsPath),
    Date.now(),
  );
  if (sameTask.length + rest.length === 0) {
    void vscode.window.showInformationMessage('No other trajectory (trajectories/*.jsonl) in the workspace to compare with.');
    return undefined;
  }
  type Item = vscode.QuickPickItem & { readonly path?: string };
  const section = (label: string, entries: readonly PickerEntry[]): Item[] =>
    entries.length === 0 ? [] : [{ label, kind: vscode.QuickPickItemKind.Separator }, ...entries];
  const items: Item[] = other === undefined ? [...rest] : [...section('Attempts at the same task', sameTask), ...section('Other episodes', rest)];
  const picked = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: 'Episodes by task and attempt, with their outcomes; type to filter',
    matchOnDescription: true,
  });
  return picked?.path === undefined ? undefined : vscode.Uri.file(picked.path);
}

/** Each file with its run's record of its episode, from the runs the server lists; none when the server is not running. */
async function withEpisodes(extensionState: ExtensionState, paths: readonly string[]): Promise<FoundTrajectory[]> {
  const unique = [...new Set(paths)];
  const runDir = (path: string) => dirname(dirname(path));
  const byFile = new Map<string, EpisodeSummary>();
  const client = await extensionState.currentClient();
  if (client !== undefined) {
    try {
      const listed = new Set((await sendRequest(client, runsList, {})).runs.map((r) => r.dir));
      const dirs = [...new Set(unique.map(runDir))].filter((d) => listed.has(d));
      const results = await Promise.all(dirs.map((dir) => sendRequest(client, runEpisodes, { dir })));
      for (const result of results) for (const ep of result.episodes) byFile.set(ep.trajectory, ep);
    } catch (error) {
      extensionState.log.warn(`Compare: the episodes' outcomes could not be read: ${errorMessage(error)}`);
    }
  }
  return unique.map((path) => ({ path, run: basename(runDir(path)), episode: byFile.get(path) }));
}

/** Changes to a followed file within this window are one new comparison. */
const followDelayMs = 300;

class ComparePanel {
  private readonly panel: vscode.WebviewPanel;
  private latest: CompareHostMessage | undefined;
  /** This panel's id in `episode/watch`, while it follows a fork's files. */
  private readonly viewer = randomUUID();
  private followTimer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionState: ExtensionState,
    private readonly patches: PatchActions,
    private readonly left: vscode.Uri,
    private readonly right: vscode.Uri,
    private readonly alignAt: number | null,
  ) {
    const dist = vscode.Uri.joinPath(extensionState.extension.extensionUri, 'dist');
    const title = `Compare ${basename(left.fsPath, '.jsonl')} ↔ ${basename(right.fsPath, '.jsonl')}`;
    this.panel = vscode.window.createWebviewPanel(episodeCompareViewType, title, vscode.ViewColumn.Active, {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [dist],
    });
    const webview = this.panel.webview;
    webview.html = webviewHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'compare.js')).toString(),
      title,
      loading: 'Aligning the two episodes…',
    });
    this.disposables.push(
      webview.onDidReceiveMessage(
        (raw: unknown) =>
          void this.receive(raw).catch((error: unknown) => this.extensionState.log.error(`A message from the page failed: ${errorMessage(error)}`)),
      ),
    );
    // A fork is compared while it runs: both files are watched, as a viewer watches its file, and each change compares again.
    if (alignAt !== null) {
      this.disposables.push(
        extensionState.onServerNotification(episodeChanged, (change) => {
          if (change.path === left.fsPath || change.path === right.fsPath) this.scheduleFollow();
        }),
      );
      this.watch(true);
    }
    this.panel.onDidDispose(() => {
      clearTimeout(this.followTimer);
      if (alignAt !== null) this.watch(false);
      this.disposables.forEach((d) => d.dispose());
    });
  }

  private watch(watching: boolean): void {
    void this.extensionState
      .currentClient()
      .then((client) =>
        client === undefined
          ? null
          : Promise.all([this.left, this.right].map((uri) => sendRequest(client, episodeWatch, { path: uri.fsPath, watching, viewer: this.viewer }))),
      )
      .catch(() => undefined);
  }

  private scheduleFollow(): void {
    clearTimeout(this.followTimer);
    this.followTimer = setTimeout(() => {
      void this.load()
        .then(() => {
          if (this.latest !== undefined) void this.panel.webview.postMessage(this.latest);
        })
        .catch((error: unknown) => this.extensionState.log.warn(`Compare: ${errorMessage(error)}`));
    }, followDelayMs);
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = (await messageSchemas()).compareWebviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.extensionState.log.warn(`Ignored an invalid message from the episode comparison: ${JSON.stringify(raw)?.slice(0, 200) ?? String(raw)}`);
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
    const client = await this.extensionState.currentClient();
    if (client === undefined) {
      this.latest = {
        type: 'comparison',
        comparison: { ok: false, message: 'The Graph Planner server is not running; run "Graph Planner: Restart Server" and compare again.' },
        alignAt: this.alignAt,
      };
      return;
    }
    const comparison = await sendRequest(client, episodeCompare, { left: this.left.fsPath, right: this.right.fsPath });
    this.latest = { type: 'comparison', comparison, alignAt: this.alignAt };
  }

  /** The two final patches against each other, as diff text. */
  private async diffPatches(): Promise<void> {
    const c = this.latest?.comparison;
    if (c === undefined || !c.ok) return;
    const side = (which: 'left' | 'right'): vscode.Uri => {
      const uri = vscode.Uri.from({ scheme: patchScheme, path: `/compare-${++compared}/${which}/${basename(c[which].file, '.jsonl')}.diff` });
      return this.patches.serve(uri, c[which].outcome?.patch ?? '(the episode has not ended: it has no final patch yet)\n');
    };
    await vscode.commands.executeCommand(
      'vscode.diff',
      side('left'),
      side('right'),
      `Final patches: ${basename(c.left.file, '.jsonl')} ↔ ${basename(c.right.file, '.jsonl')}`,
    );
  }
}

let compared = 0;
