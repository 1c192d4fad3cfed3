/**
 * The Tasks view: the dataset files of the workspace, each with its tasks fetched from the server
 * a page at a time when the file is expanded (`tasks/files`, `tasks/page`), and the actions on a
 * task: run the default agent on it, run its tests in a terminal, go to its line, open its instance
 * file, copy its id. The filter is kept per workspace. The view refreshes when the server pushes
 * `tasks/changed`, when runs change (for outcomes), and when a server becomes ready.
 */
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { commandIds, viewCommands, viewContextKeys, viewIds } from '../contributions.js';
import type { ExtensionState } from '../extensionState.js';
import { errorMessage } from '../errors.js';
import { launchOneTask } from '../launchFlow.js';
import { runsChanged, taskFiles, taskPage, tasksChanged, type TaskFileSummary, type TaskItem, sendRequest } from '../serverMessages.js';
import { runGpInTerminal } from '../gpTerminal.js';
import { messageSchemas } from '../messageSchemas.js';
import {
  FinishedEpisodes,
  fileContextValue,
  fileDescription,
  fileLabel,
  fileTooltip,
  filterMessage,
  taskContextValue,
  taskIcon,
  taskDescription,
  taskPageSize,
  taskTerminalName,
  taskTestArgs,
  taskTooltip,
} from './taskItems.js';

interface FileNode {
  readonly kind: 'file';
  readonly summary: TaskFileSummary;
  /** Tasks matching the filter, when one is set. */
  readonly matching: number | null;
}
interface TaskNode {
  readonly kind: 'task';
  readonly file: string;
  readonly item: TaskItem;
}
interface MoreNode {
  readonly kind: 'more';
  readonly file: string;
  readonly shown: number;
  readonly matching: number;
}
interface ProblemNode {
  readonly kind: 'problem';
  readonly file: string;
  readonly message: string;
}
type Node = FileNode | TaskNode | MoreNode | ProblemNode;

/** A file's tasks fetched so far. */
interface Loaded {
  readonly items: TaskItem[];
  readonly matching: number;
  next: number | null;
}

const filterKey = 'graphPlanner.tasks.filter';
/**
 * The "Load more…" item's command. It is internal (a tree item's action, never in a menu or the
 * palette), so it is registered here and not contributed in `package.json`.
 */
const loadMoreCommand = 'graphPlanner.tasks.loadMore';
/** Runs change often while a rollout runs; outcomes are fetched again at most this often. */
const runsRefreshDelayMs = 2000;
const pushedRefreshDelayMs = 100;

class TasksProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  view: vscode.TreeView<Node> | undefined;
  private fileNodes = new Map<string, FileNode>();
  private readonly loaded = new Map<string, Loaded>();
  /** How many tasks of each file were shown before a refresh, so a refresh does not fold them back to one page. */
  private readonly shownBefore = new Map<string, number>();
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(private readonly extensionState: ExtensionState) {}

  get filter(): string | null {
    const value = this.extensionState.extension.workspaceState.get<string>(filterKey);
    return value === undefined || value.trim() === '' ? null : value;
  }

  async setFilter(filter: string | null): Promise<void> {
    await this.extensionState.extension.workspaceState.update(filterKey, filter ?? undefined);
    await this.showFilter();
    this.refresh();
  }

  /** The view's description and the context key the title menu reads. */
  async showFilter(): Promise<void> {
    const filter = this.filter;
    if (this.view !== undefined) this.view.description = filter === null ? undefined : `filter: ${filter}`;
    await vscode.commands.executeCommand('setContext', viewContextKeys.tasksFiltered, filter !== null);
  }

  refresh(): void {
    for (const [path, loaded] of this.loaded) this.shownBefore.set(path, loaded.items.length);
    this.loaded.clear();
    this.changed.fire(undefined);
  }

  /** A refresh after `delayMs`, folding the requests that arrive meanwhile into it. */
  refreshSoon(delayMs: number): void {
    if (this.refreshTimer !== undefined) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.refresh();
    }, delayMs);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'file':
        return fileItem(node);
      case 'task':
        return taskItem(node);
      case 'more': {
        const item = new vscode.TreeItem('Load more…', vscode.TreeItemCollapsibleState.None);
        item.description = `${node.shown.toLocaleString('en-US')} of ${node.matching.toLocaleString('en-US')} shown`;
        item.command = { command: loadMoreCommand, title: 'Load more…', arguments: [node.file] };
        item.id = `${node.file}\u0000more`;
        return item;
      }
      case 'problem': {
        const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        item.tooltip = node.message;
        return item;
      }
    }
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node === undefined) return this.files();
    if (node.kind !== 'file') return [];
    const path = node.summary.path;
    let loaded = this.loaded.get(path);
    if (loaded === undefined) {
      try {
        loaded = await this.fetch(path, 0, Math.min(5000, Math.max(taskPageSize, this.shownBefore.get(path) ?? 0)));
      } catch (error) {
        return [{ kind: 'problem', file: path, message: errorMessage(error) }];
      }
      this.loaded.set(path, loaded);
    }
    return childrenOf(path, loaded);
  }

  /** Fetches the next page of a file and shows it below the ones already there. */
  async loadMore(path: string): Promise<void> {
    const loaded = this.loaded.get(path);
    if (loaded === undefined || loaded.next === null) return;
    try {
      const page = await this.fetch(path, loaded.next, taskPageSize);
      loaded.items.push(...page.items);
      loaded.next = page.next;
    } catch (error) {
      void vscode.window.showErrorMessage(`Graph Planner: ${errorMessage(error)}`);
      return;
    }
    this.changed.fire(this.fileNodes.get(path));
  }

  dispose(): void {
    if (this.refreshTimer !== undefined) clearTimeout(this.refreshTimer);
    this.changed.dispose();
  }

  private async files(): Promise<Node[]> {
    const client = await this.extensionState.currentClient();
    this.setMessage(undefined);
    if (client === undefined) {
      this.setMessage('The Graph Planner server is not running. Run "Graph Planner: Restart Server" to start it.');
      return [];
    }
    let files: TaskFileSummary[];
    try {
      files = (await sendRequest(client, taskFiles, {})).files;
    } catch (error) {
      this.setMessage(`Could not list the dataset files: ${errorMessage(error)}`);
      return [];
    }
    const filter = this.filter;
    const nodes: FileNode[] = [];
    for (const summary of files) nodes.push({ kind: 'file', summary, matching: filter === null ? null : await this.matching(client, summary.path, filter) });
    this.fileNodes = new Map(nodes.map((n) => [n.summary.path, n]));
    if (filter !== null) this.setMessage(filterMessage(filter, nodes.filter((n) => (n.matching ?? 0) > 0).length, nodes.length));
    return nodes;
  }

  /** How many of a file's tasks match the filter; one task fetched. */
  private async matching(client: LanguageClient, path: string, filter: string): Promise<number | null> {
    try {
      return (await sendRequest(client, taskPage, { path, offset: 0, limit: 1, filter })).matching;
    } catch {
      // The file's own children say what went wrong when it is expanded.
      return null;
    }
  }

  private async fetch(path: string, offset: number, limit: number): Promise<Loaded> {
    const client = await this.extensionState.currentClient();
    if (client === undefined) throw new Error('The Graph Planner server is not running.');
    // Checked against the one contract (protocol/tasksView.ts): a server of another version says so here, not as a broken row.
    const { taskPageResultSchema } = await messageSchemas();
    const parsed = taskPageResultSchema.safeParse(await sendRequest(client, taskPage, { path, offset, limit, filter: this.filter }));
    if (!parsed.success)
      throw new Error(
        `The server's tasks of ${vscode.workspace.asRelativePath(path)} do not match this extension (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'}); restart the server.`,
      );
    const page = parsed.data;
    return { items: page.tasks, matching: page.matching, next: page.next };
  }

  private setMessage(message: string | undefined): void {
    if (this.view !== undefined) this.view.message = message;
  }
}

function childrenOf(file: string, loaded: Loaded): Node[] {
  const tasks: Node[] = loaded.items.map((item) => ({ kind: 'task', file, item }));
  if (loaded.next !== null) tasks.push({ kind: 'more', file, shown: loaded.items.length, matching: loaded.matching });
  return tasks;
}

function fileItem(node: FileNode): vscode.TreeItem {
  const uri = vscode.Uri.file(node.summary.path);
  const empty = node.matching === 0 || node.summary.tasks === 0;
  const item = new vscode.TreeItem(uri, empty ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Collapsed);
  item.id = node.summary.path;
  const { label, folder } = fileLabel(vscode.workspace.asRelativePath(uri));
  item.label = label;
  item.description = fileDescription(node.summary, node.matching, folder);
  item.tooltip = fileTooltip(node.summary);
  item.contextValue = fileContextValue;
  item.iconPath = vscode.ThemeIcon.File;
  return item;
}

function taskItem(node: TaskNode): vscode.TreeItem {
  const { item: task, file } = node;
  const item = new vscode.TreeItem(task.taskId, vscode.TreeItemCollapsibleState.None);
  item.id = `${file}\u0000${task.line}\u0000${task.taskId}`;
  item.description = taskDescription(task);
  // Theme icons in the tooltip ($(circle-slash)) render; the task's own text is escaped by taskTooltip.
  item.tooltip = new vscode.MarkdownString(
    taskTooltip(task, vscode.workspace.asRelativePath(file), (p) => vscode.workspace.asRelativePath(p)),
    true,
  );
  item.contextValue = taskContextValue(task);
  const icon = taskIcon(task);
  item.iconPath = new vscode.ThemeIcon(icon.id, new vscode.ThemeColor(icon.color));
  item.command = { command: viewCommands.taskGoTo.id, title: viewCommands.taskGoTo.title, arguments: [node] };
  return item;
}

/** The task a command acts on: the item it was invoked on, else the view's selection. */
function targetTask(view: vscode.TreeView<Node>, arg: unknown): TaskNode | undefined {
  const candidate = isTaskNode(arg) ? arg : view.selection.find(isTaskNode);
  if (candidate === undefined) void vscode.window.showInformationMessage('Select a task in the Graph Planner Tasks view first.');
  return candidate;
}

function isFileNode(value: unknown): value is FileNode {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'file';
}

function isTaskNode(value: unknown): value is TaskNode {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'task';
}

async function goToLine(node: TaskNode): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(node.file));
  const line = Math.min(node.item.line, Math.max(0, document.lineCount - 1));
  const range = document.lineAt(line).range;
  const editor = await vscode.window.showTextDocument(document, { selection: range, preview: true });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

async function openInstance(node: TaskNode): Promise<void> {
  if (node.item.instanceFile === null) {
    void vscode.window.showInformationMessage(`Task ${node.item.taskId} names no instance file that exists.`);
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.file(node.item.instanceFile), { preview: true });
}

async function copyId(node: TaskNode): Promise<void> {
  await vscode.env.clipboard.writeText(node.item.taskId);
  vscode.window.setStatusBarMessage(`Copied ${node.item.taskId}`, 3000);
}

/** The patch to apply before the tests: none, a file the person picks, or undefined when they cancelled. */
async function pickPatch(taskId: string, file: string): Promise<string | null | undefined> {
  const none = 'Run without a patch';
  const choose = 'Choose a patch file…';
  const picked = await vscode.window.showQuickPick([none, choose], {
    title: `Run the tests of ${taskId}`,
    placeHolder: 'Apply a patch to the repository before the tests run?',
  });
  if (picked === undefined) return undefined;
  if (picked === none) return null;
  const uris = await vscode.window.showOpenDialog({
    title: `Patch for ${taskId}`,
    canSelectMany: false,
    defaultUri: vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))?.uri,
    filters: { Patches: ['diff', 'patch'], 'All files': ['*'] },
  });
  return uris?.[0]?.fsPath;
}

async function runTests(extensionState: ExtensionState, node: TaskNode): Promise<void> {
  const patch = await pickPatch(node.item.taskId, node.file);
  if (patch === undefined) return;
  const cwd = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(node.file))?.uri.fsPath ?? dirname(node.file);
  runGpInTerminal(extensionState, {
    name: taskTerminalName(node.item.taskId),
    cwd,
    icon: 'beaker',
    args: taskTestArgs({ file: node.file, taskId: node.item.taskId, patch }),
  });
}

/** Registers the Tasks view and its commands; disposing the result removes them. */
export function registerTasksView(extensionState: ExtensionState): vscode.Disposable {
  const provider = new TasksProvider(extensionState);
  const finished = new FinishedEpisodes();
  const view = vscode.window.createTreeView(viewIds.tasks, { treeDataProvider: provider, showCollapseAll: true });
  provider.view = view;
  void provider.showFilter();
  const onTask = (action: (node: TaskNode) => Promise<void>) => async (arg: unknown) => {
    const node = targetTask(view, arg);
    if (node === undefined) return;
    try {
      await action(node);
    } catch (error) {
      extensionState.log.error(`Tasks view: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(`Graph Planner: ${errorMessage(error)}`);
    }
  };
  return vscode.Disposable.from(
    provider,
    view,
    vscode.commands.registerCommand(viewCommands.tasksRefresh.id, () => provider.refresh()),
    vscode.commands.registerCommand(viewCommands.tasksFilter.id, async () => {
      const value = await vscode.window.showInputBox({
        title: 'Filter Tasks',
        prompt: 'Show the tasks whose id or repository contains this text (any case). Leave empty to show all.',
        value: provider.filter ?? '',
      });
      if (value !== undefined) await provider.setFilter(value.trim() === '' ? null : value.trim());
    }),
    vscode.commands.registerCommand(viewCommands.tasksClearFilter.id, () => provider.setFilter(null)),
    vscode.commands.registerCommand(loadMoreCommand, (path: unknown) => (typeof path === 'string' ? provider.loadMore(path) : undefined)),
    vscode.commands.registerCommand(
      viewCommands.taskRun.id,
      onTask((node) => launchOneTask(node.file, node.item.taskId)),
    ),
    vscode.commands.registerCommand(
      viewCommands.taskTest.id,
      onTask((node) => runTests(extensionState, node)),
    ),
    vscode.commands.registerCommand(viewCommands.taskGoTo.id, onTask(goToLine)),
    vscode.commands.registerCommand(viewCommands.taskOpenInstance.id, onTask(openInstance)),
    vscode.commands.registerCommand(viewCommands.taskCopyId.id, onTask(copyId)),
    vscode.commands.registerCommand(viewCommands.taskFileVerify.id, (arg: unknown) => {
      const file = isFileNode(arg) ? arg : view.selection.find(isFileNode);
      return vscode.commands.executeCommand(commandIds.verifyTasks, file === undefined ? undefined : vscode.Uri.file(file.summary.path));
    }),
    extensionState.onServerNotification(tasksChanged, () => provider.refreshSoon(pushedRefreshDelayMs)),
    // Pushed while the Runs view watches the runs; outcomes move only when an episode ends.
    extensionState.onServerNotification(runsChanged, (change) => {
      if (finished.update(change)) provider.refreshSoon(runsRefreshDelayMs);
    }),
    extensionState.onDidChangeServer(() => provider.refresh()),
  );
}
