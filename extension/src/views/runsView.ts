/**
 * The Runs view: every run folder under the workspace's run roots with its state, progress and
 * timing, and its episodes as children, under a row per task once a task has several attempts
 * (`runsText.ts`'s `runChildren`; the rows themselves are `runItems.ts`'s). A fork of an episode (docs/trajectory-viewer.md#continue-from-here)
 * is listed twice: under the episode it continues, where a person who forked it looks for it, and
 * among the runs, with whose fork it is in its line, so it stays in reach when the parent's folder is
 * deleted or lies outside the run roots. The server discovers and watches the runs and pushes what
 * changed while the view is visible (`runs/changed`); this module renders, and acts through the
 * server (stop, delete), the launcher (resume, re-launch) and plain editor commands (open files).
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { trajectoryViewType, viewCommands, viewIds } from '../contributions.js';
import type { ExtensionState } from '../extensionState.js';
import { errorMessage } from '../errors.js';
import { launch, onDidLaunch } from '../launchFlow.js';
import { showEpisodeGroup } from '../episodeGroup.js';
import { showRunMetrics } from '../metricsPanel.js';
import { openReportJson, showRunReport } from '../reportPanel.js';
import {
  runAction,
  runEpisodes,
  runsChanged,
  runsList,
  runsWatch,
  type EpisodeSummary,
  type RunsChanged,
  type RunSummary,
  sendRequest,
} from '../serverMessages.js';
import { episodeItem, forkItem, runItem, taskItem, type RunsNode as Node } from './runItems.js';
import { forksOf, noEpisodeText, runChildren, type RunChildren, type TaskAttempts } from './runsText.js';

const tickMs = 5000;

export class RunsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly runs = new Map<string, RunSummary>();
  private readonly episodes = new Map<string, Map<string, EpisodeSummary>>();
  private readonly runNodes = new Map<string, Node>();
  private readonly episodeNodes = new Map<string, Node>();
  private readonly taskNodes = new Map<string, Node>();
  private readonly forkNodes = new Map<string, Node>();
  /** Each run's episodes as the view lists them (`childrenOf`), dropped whenever they change. */
  private readonly grouping = new Map<string, RunChildren>();
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly disposables: vscode.Disposable[] = [];
  private listed = false;
  /** A run launched from here, revealed as soon as the server reports it. */
  private pendingReveal: string | undefined;
  /**
   * Ticks the durations of running runs while the view is visible: every 5 s, which keeps them
   * current enough to read at a fraction of the cost of a per-second refresh (bench/idleFigures.ts).
   */
  private ticker: NodeJS.Timeout | undefined;

  constructor(private readonly extensionState: ExtensionState) {
    this.view = vscode.window.createTreeView(viewIds.runs, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.view,
      this.changed,
      this.view.onDidChangeVisibility(() => void this.visibilityChanged()),
      extensionState.onServerNotification(runsChanged, (change) => this.apply(change)),
      extensionState.onDidChangeServer(() => void this.serverChanged()),
      onDidLaunch((dir) => {
        this.pendingReveal = dir;
        this.revealPending();
      }),
      ...this.registerCommands(),
    );
    if (this.view.visible) void this.visibilityChanged();
  }

  /** The count of live runs on the view and its activity-bar icon (runsBadge.ts). */
  setBadge(badge: vscode.ViewBadge | undefined): void {
    this.view.badge = badge;
  }

  dispose(): void {
    if (this.ticker) clearInterval(this.ticker);
    for (const d of this.disposables) d.dispose();
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'message') return new vscode.TreeItem(node.text);
    if (node.kind === 'episode') {
      const ep = this.episodes.get(node.dir)?.get(node.episodeId);
      return ep === undefined ? new vscode.TreeItem(node.episodeId) : episodeItem(ep, node, forksOf(this.runs.values(), node.dir, node.episodeId).length);
    }
    if (node.kind === 'fork') {
      const run = this.runs.get(node.dir);
      return run?.fork === undefined || run.fork === null ? new vscode.TreeItem(node.dir) : forkItem({ ...run, fork: run.fork });
    }
    if (node.kind === 'task') {
      const children = this.childrenOf(node.dir);
      return taskItem(this.taskAttempts(node.dir, node.taskId), node.dir, children.grouped ? children.tasks.length : 1);
    }
    const run = this.runs.get(node.dir);
    return run === undefined ? new vscode.TreeItem(node.dir) : runItem(run);
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node === undefined) {
      if (!this.listed) await this.list();
      return this.sortedRuns().map((r) => this.runNode(r.dir));
    }
    if (node.kind === 'task') return this.taskAttempts(node.dir, node.taskId).episodes.map((e) => this.episodeNode(node.dir, e.episodeId));
    if (node.kind === 'episode') return forksOf(this.runs.values(), node.dir, node.episodeId).map((r) => this.forkNode(r.dir));
    if (node.kind !== 'run' && node.kind !== 'fork') return [];
    const problem = await this.loadEpisodes(node.dir);
    if (problem === 'no-server') return [{ kind: 'message', text: 'The Graph Planner server is not running.' }];
    const children = this.childrenOf(node.dir);
    // A fork's episodes are all attempts at its parent's one task, which the row above names: they are listed flat.
    const nodes: Node[] =
      node.kind === 'fork'
        ? [...(this.episodes.get(node.dir)?.values() ?? [])].map((e) => this.episodeNode(node.dir, e.episodeId, true))
        : children.grouped
          ? children.tasks.map((t) => this.taskNode(node.dir, t.taskId))
          : children.episodes.map((e) => this.episodeNode(node.dir, e.episodeId));
    if (problem !== null) nodes.unshift({ kind: 'message', text: `⚠ ${problem}` });
    if (nodes.length === 0) nodes.push({ kind: 'message', text: noEpisodeText(this.runs.get(node.dir)) });
    return nodes;
  }

  /** Asks the server for a run's episodes; returns the problem it reports, or `no-server`. */
  private async loadEpisodes(dir: string): Promise<string | null | 'no-server'> {
    const client = await this.extensionState.currentClient();
    if (client === undefined) return 'no-server';
    const result = await sendRequest(client, runEpisodes, { dir });
    this.episodes.set(dir, new Map(result.episodes.map((e) => [e.episodeId, e])));
    this.grouping.delete(dir);
    return result.problem;
  }

  getParent(node: Node): Node | undefined {
    if (node.kind === 'task') return this.runNode(node.dir);
    if (node.kind === 'fork') {
      const fork = this.runs.get(node.dir)?.fork ?? null;
      return fork === null ? undefined : this.episodeNode(fork.run, fork.episode_id);
    }
    if (node.kind !== 'episode') return undefined;
    if (node.underFork) return this.forkNode(node.dir);
    const ep = this.episodes.get(node.dir)?.get(node.episodeId);
    return ep !== undefined && this.isGrouped(node.dir) ? this.taskNode(node.dir, ep.taskId) : this.runNode(node.dir);
  }

  /**
   * A run's episodes sorted and grouped by task, computed once per change to them: every task row
   * and every episode's parent read it, so a run of thousands of episodes is sorted once, not per row.
   */
  private childrenOf(dir: string): RunChildren {
    let children = this.grouping.get(dir);
    if (children === undefined) this.grouping.set(dir, (children = runChildren([...(this.episodes.get(dir)?.values() ?? [])])));
    return children;
  }

  /** A task's attempts in a run, in order, as far as the view knows them. */
  private taskAttempts(dir: string, taskId: string): TaskAttempts {
    const children = this.childrenOf(dir);
    const episodes = children.grouped
      ? (children.tasks.find((t) => t.taskId === taskId)?.episodes ?? [])
      : children.episodes.filter((e) => e.taskId === taskId);
    return { taskId, episodes };
  }

  private isGrouped(dir: string): boolean {
    return this.childrenOf(dir).grouped;
  }

  private sortedRuns(): RunSummary[] {
    return [...this.runs.values()].sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || b.name.localeCompare(a.name));
  }

  /** One node object per run, so reveal and refresh find the same element. */
  private runNode(dir: string): Node {
    let node = this.runNodes.get(dir);
    if (node === undefined) this.runNodes.set(dir, (node = { kind: 'run', dir }));
    return node;
  }

  private taskNode(dir: string, taskId: string): Node {
    const key = `${dir}\0${taskId}`;
    let node = this.taskNodes.get(key);
    if (node === undefined) this.taskNodes.set(key, (node = { kind: 'task', dir, taskId }));
    return node;
  }

  private episodeNode(dir: string, episodeId: string, underFork = false): Node {
    const key = `${underFork ? 'fork\0' : ''}${dir}\0${episodeId}`;
    let node = this.episodeNodes.get(key);
    if (node === undefined) this.episodeNodes.set(key, (node = { kind: 'episode', dir, episodeId, underFork }));
    return node;
  }

  private forkNode(dir: string): Node {
    let node = this.forkNodes.get(dir);
    if (node === undefined) this.forkNodes.set(dir, (node = { kind: 'fork', dir }));
    return node;
  }

  private async list(): Promise<void> {
    const client = await this.extensionState.currentClient();
    if (client === undefined) return;
    try {
      const result = await sendRequest(client, runsList, {});
      this.runs.clear();
      for (const run of result.runs) this.runs.set(run.dir, run);
      this.listed = true;
      this.view.message = result.runs.length === 0 ? undefined : this.rootsMessage(result.roots);
      this.updateTicker();
      this.revealPending();
    } catch (error) {
      this.extensionState.log.error(`Listing runs failed: ${errorMessage(error)}`);
    }
  }

  private rootsMessage(roots: readonly { path: string; exists: boolean }[]): string | undefined {
    const missing = roots.filter((r) => !r.exists).length;
    return missing === roots.length ? 'No run folder exists yet.' : undefined;
  }

  private async visibilityChanged(): Promise<void> {
    const client = await this.extensionState.currentClient();
    this.updateTicker();
    if (client === undefined) return;
    try {
      await sendRequest(client, runsWatch, { watching: this.view.visible, by: 'view' });
      if (this.view.visible) {
        await this.list();
        this.changed.fire(undefined);
      }
    } catch (error) {
      this.extensionState.log.error(`Watching runs failed: ${errorMessage(error)}`);
    }
  }

  private async serverChanged(): Promise<void> {
    this.listed = false;
    if (this.view.visible) await this.visibilityChanged();
  }

  private apply(change: RunsChanged): void {
    const latency = Date.now() - change.sentAt;
    if (latency > 1000) this.extensionState.log.warn(`Runs view: an update took ${latency} ms to arrive.`);
    let structural = false;
    for (const run of change.changed) {
      if (!this.runs.has(run.dir)) structural = true;
      this.runs.set(run.dir, run);
      if (!structural) this.changed.fire(this.runNode(run.dir));
      // Its row under the episode it continues is drawn again too, once that row exists.
      const forkRow = this.forkNodes.get(run.dir);
      if (!structural && forkRow !== undefined) this.changed.fire(forkRow);
    }
    for (const dir of change.removed) {
      structural = this.runs.delete(dir) || structural;
      this.episodes.delete(dir);
      this.grouping.delete(dir);
    }
    for (const { dir, episodes } of change.episodes) {
      const map = this.episodes.get(dir);
      if (map === undefined) continue;
      const wasGrouped = this.isGrouped(dir);
      let added = false;
      for (const ep of episodes) {
        if (!map.has(ep.episodeId)) added = true;
        map.set(ep.episodeId, ep);
      }
      this.grouping.delete(dir);
      // A new episode can turn a flat list into tasks, or add a task or an attempt: the run's children are drawn again.
      if (added || wasGrouped !== this.isGrouped(dir)) {
        structural = true;
        this.changed.fire(this.runNode(dir));
        const forkRow = this.forkNodes.get(dir);
        if (forkRow !== undefined) this.changed.fire(forkRow);
        continue;
      }
      // A task's row sums its attempts, so it is drawn again with them.
      const tasks = new Set<string>();
      for (const ep of episodes) {
        this.changed.fire(this.episodeNode(dir, ep.episodeId));
        const underFork = this.episodeNodes.get(`fork\0${dir}\0${ep.episodeId}`);
        if (underFork !== undefined) this.changed.fire(underFork);
        if (wasGrouped) tasks.add(ep.taskId);
      }
      for (const task of tasks) this.changed.fire(this.taskNode(dir, task));
    }
    if (structural) this.changed.fire(undefined);
    this.updateTicker();
    this.revealPending();
  }

  /**
   * Shows a run just launched: a fork under the episode it continues when its parent's run is
   * listed (its episodes read first, so the way down to the episode is known), else at the top.
   */
  private revealPending(): void {
    const dir = this.pendingReveal;
    const run = dir === undefined ? undefined : this.runs.get(dir);
    if (dir === undefined || run === undefined || !this.view.visible) return;
    this.pendingReveal = undefined;
    const fork = run.fork;
    const reveal = async (): Promise<void> => {
      if (fork !== null && this.runs.has(fork.run)) {
        if (!this.episodes.has(fork.run)) await this.loadEpisodes(fork.run);
        if (this.episodes.get(fork.run)?.has(fork.episode_id) === true) {
          await this.view.reveal(this.forkNode(dir), { select: true, focus: false, expand: true });
          return;
        }
      }
      await this.view.reveal(this.runNode(dir), { select: true, focus: false, expand: true });
    };
    reveal().catch((error: unknown) => this.extensionState.log.warn(`Runs view: ${basename(dir)} could not be revealed: ${errorMessage(error)}`));
  }

  private updateTicker(): void {
    const needed = this.view.visible && [...this.runs.values()].some((r) => r.state === 'running');
    if (needed && this.ticker === undefined) {
      this.ticker = setInterval(() => {
        for (const r of this.runs.values()) if (r.state === 'running') this.changed.fire(this.runNode(r.dir));
      }, tickMs);
    } else if (!needed && this.ticker !== undefined) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  private registerCommands(): vscode.Disposable[] {
    const run = (arg: unknown): RunSummary | undefined => {
      const node = arg as Node | undefined;
      const selected = node ?? this.view.selection[0];
      // A fork's row under its parent episode is its run's row too: its menus act on the run.
      return selected?.kind === 'run' || selected?.kind === 'fork' ? this.runs.get(selected.dir) : undefined;
    };
    const withClient = async (f: (client: NonNullable<ExtensionState['client']>) => Promise<void>) => {
      const client = await this.extensionState.currentClient();
      if (client === undefined) {
        void vscode.window.showWarningMessage('The Graph Planner server is not running.');
        return;
      }
      await f(client);
    };
    const register = (id: string, f: (arg: unknown) => Promise<void> | void) =>
      vscode.commands.registerCommand(id, async (arg: unknown) => {
        try {
          await f(arg);
        } catch (error) {
          void vscode.window.showErrorMessage(`Graph Planner: ${errorMessage(error)}`);
        }
      });
    return [
      register(viewCommands.runsRefresh.id, async () => {
        await this.list();
        this.changed.fire(undefined);
      }),
      register(viewCommands.runStop.id, (arg) =>
        withClient(async (client) => {
          const r = run(arg);
          if (r === undefined) return;
          const result = await sendRequest(client, runAction, { dir: r.dir, action: 'stop' });
          void (result.ok ? vscode.window.showInformationMessage(result.message) : vscode.window.showWarningMessage(result.message));
        }),
      ),
      register(viewCommands.runResume.id, (arg) =>
        withClient(async (client) => {
          const r = run(arg);
          if (r !== undefined) await launch(this.extensionState, client, { mode: 'resume', dir: r.dir });
        }),
      ),
      register(viewCommands.runRelaunch.id, (arg) =>
        withClient(async (client) => {
          const r = run(arg);
          if (r !== undefined) await launch(this.extensionState, client, { mode: 'relaunch', dir: r.dir });
        }),
      ),
      register(viewCommands.runOpenReport.id, (arg) =>
        withClient((client) => {
          const r = run(arg);
          if (r !== undefined) showRunReport(this.extensionState, client, r);
          return Promise.resolve();
        }),
      ),
      register(viewCommands.runOpenReportJson.id, async (arg) => {
        const r = run(arg);
        if (r !== undefined) await openReportJson(r.dir);
      }),
      register(viewCommands.runShowLog.id, async (arg) => {
        const r = run(arg);
        if (r === undefined) return;
        // The editor reloads the file as the run appends to it; the cursor goes to the end.
        const editor = await vscode.window.showTextDocument(vscode.Uri.joinPath(vscode.Uri.file(r.dir), 'run.log'), { preview: true });
        const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
        editor.selection = new vscode.Selection(end, end);
        editor.revealRange(new vscode.Range(end, end));
      }),
      register(viewCommands.runShowMetrics.id, (arg) =>
        withClient((client) => {
          const r = run(arg);
          if (r !== undefined) showRunMetrics(this.extensionState, client, r);
          return Promise.resolve();
        }),
      ),
      register(viewCommands.runShowGroups.id, (arg) =>
        withClient(() => {
          const r = run(arg);
          // The latest step's first group; the page steps through the others.
          if (r !== undefined) showEpisodeGroup(this.extensionState, r.dir, { kind: 'step', step: null, taskId: null, groupId: null });
          return Promise.resolve();
        }),
      ),
      register(viewCommands.runShowStepSamples.id, (arg) =>
        withClient((client) => {
          const r = run(arg);
          if (r !== undefined) showRunMetrics(this.extensionState, client, r, { focusSamples: true });
          return Promise.resolve();
        }),
      ),
      register(viewCommands.runReveal.id, async (arg) => {
        const r = run(arg);
        if (r === undefined) return;
        const uri = vscode.Uri.file(r.dir);
        // Inside the workspace the Explorer shows it; elsewhere only the OS file manager can.
        if (vscode.workspace.getWorkspaceFolder(uri) !== undefined) await vscode.commands.executeCommand('revealInExplorer', uri);
        else await vscode.commands.executeCommand('revealFileInOS', uri);
      }),
      register(viewCommands.runDelete.id, (arg) =>
        withClient(async (client) => {
          const r = run(arg);
          if (r === undefined) return;
          const del = 'Delete';
          const choice = await vscode.window.showWarningMessage(
            `Delete the run ${r.name}?`,
            { modal: true, detail: `Its folder ${r.dir} and everything in it (trajectories, report, logs) is removed.` },
            del,
          );
          if (choice !== del) return;
          const result = await sendRequest(client, runAction, { dir: r.dir, action: 'remove' });
          if (!result.ok) void vscode.window.showWarningMessage(result.message);
        }),
      ),
      register(viewCommands.episodeOpen.id, async (arg) => {
        const node = (arg as Node | undefined) ?? this.view.selection[0];
        if (node?.kind !== 'episode') return;
        const ep = this.episodes.get(node.dir)?.get(node.episodeId);
        if (ep !== undefined) await openTrajectory(ep);
      }),
      register(viewCommands.episodeShowGroup.id, (arg) =>
        withClient(() => {
          const node = (arg as Node | undefined) ?? this.view.selection[0];
          if (node?.kind === 'episode') showEpisodeGroup(this.extensionState, node.dir, { kind: 'episode', episodeId: node.episodeId });
          return Promise.resolve();
        }),
      ),
      register(viewCommands.episodeOpenAsText.id, async (arg) => {
        const node = (arg as Node | undefined) ?? this.view.selection[0];
        if (node?.kind !== 'episode') return;
        const ep = this.episodes.get(node.dir)?.get(node.episodeId);
        if (ep !== undefined) await openTrajectory(ep, true);
      }),
    ];
  }
}

/** A trajectory opens in the trajectory viewer; `asText` opens the JSONL at its last line instead. */
async function openTrajectory(ep: EpisodeSummary, asText = false): Promise<void> {
  const uri = vscode.Uri.file(ep.trajectory);
  if (!asText) {
    await vscode.commands.executeCommand('vscode.openWith', uri, trajectoryViewType, { preview: true });
    return;
  }
  const document = await vscode.workspace.openTextDocument(uri);
  const last = Math.max(0, document.lineCount - (document.lineAt(document.lineCount - 1).isEmptyOrWhitespace ? 2 : 1));
  const range = document.lineAt(last).range;
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(range.start, range.start), preview: true });
}
