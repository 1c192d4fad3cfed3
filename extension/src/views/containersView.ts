/**
 * The Containers view: our labelled containers grouped by run, from the server (`containers/list`)
 * and kept current by its pushes (`containers/changed`). The server follows Docker's events only
 * while this view is visible, so the view says when it is shown and hidden (`containers/watch`).
 * When the daemon does not answer, the context key `graphPlanner.docker.unreachable` turns the
 * view's welcome text into what to do, instead of an error notification on every refresh.
 *
 * Actions: open a shell in a terminal, show logs and inspect output in read-only documents, stop,
 * remove (after asking), and reap orphans from the title bar. The title bar's filter, on by default
 * and remembered per workspace, shows only the containers of this workspace's runs (the server
 * marks them from their run-folder label); the view's description says how many it hides, and
 * when it hides them all the welcome text says so rather than that no container exists.
 */
import * as vscode from 'vscode';
import { viewCommands, viewContextKeys, viewIds } from '../contributions.js';
import type { ExtensionState } from '../extensionState.js';
import { errorMessage } from '../errors.js';
import {
  containerAction,
  containersChanged,
  containersList,
  containersReap,
  containersWatch,
  type ContainerInfo,
  type ContainersListResult,
  sendRequest,
} from '../serverMessages.js';
import {
  containerContextValue,
  containerDescription,
  containerIcon,
  containerLabel,
  containerRunContextValue,
  containerTooltip,
  filterContainers,
  filterDescription,
  groupByRun,
  reapQuestion,
  removeQuestion,
  runDescription,
  shellCommand,
  shellTerminalName,
  type RunGroup,
} from './containerItems.js';

type Node = { readonly kind: 'run'; readonly group: RunGroup } | { readonly kind: 'container'; readonly info: ContainerInfo };

/** The scheme of the read-only documents that show a container's logs or inspect output. */
const containerTextScheme = 'graph-planner-container';
type TextAction = 'logs' | 'inspect';

/** The workspace-state key that remembers whether the view shows only this workspace's runs. */
const workspaceOnlyKey = 'graphPlanner.containers.workspaceOnly';

const notRunning = 'The Graph Planner server is not running. Run "Graph Planner: Restart Server" to start it.';

class ContainersProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private result: ContainersListResult | undefined;
  private unreachable: boolean | undefined;
  /** Whether only this workspace's runs are shown; the view sets it from the remembered choice. */
  workspaceOnly = true;

  get listed(): ContainersListResult | undefined {
    return this.result;
  }

  get containers(): readonly ContainerInfo[] {
    return this.result?.containers ?? [];
  }

  /** The containers the filter lets through, and how many it hides. */
  get filtered(): { readonly shown: readonly ContainerInfo[]; readonly hidden: number } {
    return filterContainers(this.containers, this.workspaceOnly);
  }

  /** Shows a list; the context key changes only when reachability does. */
  set(result: ContainersListResult | undefined): void {
    this.result = result;
    const unreachable = result !== undefined && !result.daemon.reachable;
    if (unreachable !== this.unreachable) {
      this.unreachable = unreachable;
      void vscode.commands.executeCommand('setContext', viewContextKeys.dockerUnreachable, unreachable);
    }
    this.changed.fire(undefined);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const now = Date.now();
    if (node.kind === 'run') {
      const item = new vscode.TreeItem(node.group.run, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `run\u0000${node.group.run}`;
      item.description = runDescription(node.group);
      item.contextValue = containerRunContextValue;
      item.iconPath = new vscode.ThemeIcon('folder-library');
      return item;
    }
    const { info } = node;
    const item = new vscode.TreeItem(containerLabel(info), vscode.TreeItemCollapsibleState.None);
    item.id = info.id;
    item.description = containerDescription(info, now);
    item.tooltip = new vscode.MarkdownString(containerTooltip(info, now));
    item.contextValue = containerContextValue(info);
    const icon = containerIcon(info);
    item.iconPath = new vscode.ThemeIcon(icon.id, icon.color === undefined ? undefined : new vscode.ThemeColor(icon.color));
    return item;
  }

  getChildren(node?: Node): Node[] {
    // Unreachable: no items, so the welcome text that says what to do is shown.
    if (this.result === undefined || !this.result.daemon.reachable) return [];
    if (node === undefined) return groupByRun(this.filtered.shown).map((group) => ({ kind: 'run', group }));
    return node.kind === 'run' ? node.group.containers.map((info) => ({ kind: 'container', info })) : [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Logs and inspect output as read-only documents, fetched again each time the command runs. */
class ContainerTextProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly extensionState: ExtensionState) {}

  async open(info: ContainerInfo, action: TextAction): Promise<void> {
    const name = `${containerLabel(info).replace(/[^\w.-]+/g, '_')}-${info.id.slice(0, 12)}`;
    const uri = vscode.Uri.from({
      scheme: containerTextScheme,
      path: `/${name}.${action === 'logs' ? 'log' : 'json'}`,
      query: new URLSearchParams({ id: info.id, action }).toString(),
    });
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) this.changed.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { preview: true });
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const id = query.get('id');
    const action = query.get('action');
    if (id === null || (action !== 'logs' && action !== 'inspect')) return '# This document has lost its container; open it again from the Containers view.\n';
    const client = await this.extensionState.currentClient();
    if (client === undefined) return `# ${notRunning}\n`;
    try {
      const result = await sendRequest(client, containerAction, { id, action }, token);
      return result.ok && result.text !== null ? result.text : `# ${result.message}\n`;
    } catch (error) {
      return `# Graph Planner could not ${action === 'logs' ? 'read the logs of' : 'inspect'} ${id.slice(0, 12)}: ${errorMessage(error)}\n`;
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export class ContainersView implements vscode.Disposable {
  private readonly provider = new ContainersProvider();
  private readonly texts: ContainerTextProvider;
  private readonly view: vscode.TreeView<Node>;
  private readonly disposables: vscode.Disposable[];
  /** Whether the filter hides every container, as the welcome text's context key last said. */
  private allHidden = false;

  constructor(private readonly extensionState: ExtensionState) {
    this.texts = new ContainerTextProvider(extensionState);
    this.provider.workspaceOnly = extensionState.extension.workspaceState.get<boolean>(workspaceOnlyKey) ?? true;
    void vscode.commands.executeCommand('setContext', viewContextKeys.containersWorkspaceOnly, this.provider.workspaceOnly);
    this.view = vscode.window.createTreeView(viewIds.containers, { treeDataProvider: this.provider });
    this.disposables = [
      this.provider,
      this.texts,
      this.view,
      vscode.workspace.registerTextDocumentContentProvider(containerTextScheme, this.texts),
      this.view.onDidChangeVisibility(() => void this.visibilityChanged()),
      extensionState.onServerNotification(containersChanged, (change) => {
        extensionState.log.debug(`Containers view: updated (${change.reason})`);
        this.show(change);
      }),
      // A new server knows nothing of this view: tell it again that it is watched, and list.
      extensionState.onDidChangeServer(() => void this.visibilityChanged()),
      ...this.registerCommands(),
    ];
    if (this.view.visible) void this.visibilityChanged();
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  private async visibilityChanged(): Promise<void> {
    const client = await this.extensionState.currentClient();
    this.view.message = client === undefined ? notRunning : undefined;
    if (client === undefined) return;
    const visible = this.view.visible;
    try {
      await sendRequest(client, containersWatch, { watching: visible });
      if (visible) await this.list();
    } catch (error) {
      this.extensionState.log.warn(`Containers view: ${visible ? 'watching' : 'unwatching'} failed: ${errorMessage(error)}`);
    }
  }

  private async list(): Promise<void> {
    const client = await this.extensionState.currentClient();
    if (client === undefined) {
      this.view.message = notRunning;
      return;
    }
    try {
      this.show(await sendRequest(client, containersList, {}));
    } catch (error) {
      // Logged and shown in the view, never as a notification: this runs on every refresh.
      this.extensionState.log.warn(`Containers view: listing failed: ${errorMessage(error)}`);
      this.view.message = `Could not list the containers: ${errorMessage(error)}`;
    }
  }

  /** Shows a list with the filter applied: the description counts what it hides, and a list it empties says so. */
  private show(result: ContainersListResult | undefined): void {
    this.provider.set(result);
    const { shown, hidden } = this.provider.filtered;
    this.view.description = result?.daemon.reachable === true ? filterDescription(this.provider.workspaceOnly, hidden) : undefined;
    const allHidden = shown.length === 0 && hidden > 0;
    if (allHidden !== this.allHidden) {
      this.allHidden = allHidden;
      void vscode.commands.executeCommand('setContext', viewContextKeys.containersAllHidden, allHidden);
    }
  }

  /** Turns the "this workspace's runs" filter on or off, remembered for the workspace. */
  private async setWorkspaceOnly(on: boolean): Promise<void> {
    this.provider.workspaceOnly = on;
    await this.extensionState.extension.workspaceState.update(workspaceOnlyKey, on);
    await vscode.commands.executeCommand('setContext', viewContextKeys.containersWorkspaceOnly, on);
    this.show(this.provider.listed);
  }

  /** The container a command acts on: the item it was invoked on, else the selection. */
  private target(arg: unknown): ContainerInfo | undefined {
    const node = isNode(arg) ? arg : this.view.selection[0];
    if (node?.kind === 'container') return node.info;
    void vscode.window.showInformationMessage('Select a container in the Graph Planner Containers view first.');
    return undefined;
  }

  private registerCommands(): vscode.Disposable[] {
    const onContainer = (action: (info: ContainerInfo) => Promise<void>) => async (arg: unknown) => {
      const info = this.target(arg);
      if (info === undefined) return;
      try {
        await action(info);
      } catch (error) {
        this.extensionState.log.error(`Containers view: ${errorMessage(error)}`);
        void vscode.window.showErrorMessage(`Graph Planner: ${errorMessage(error)}`);
      }
    };
    return [
      vscode.commands.registerCommand(viewCommands.containersRefresh.id, () => this.list()),
      vscode.commands.registerCommand(viewCommands.containersReap.id, () => this.reap()),
      vscode.commands.registerCommand(viewCommands.containersShowAll.id, () => this.setWorkspaceOnly(false)),
      vscode.commands.registerCommand(viewCommands.containersShowWorkspace.id, () => this.setWorkspaceOnly(true)),
      vscode.commands.registerCommand(
        viewCommands.containerShell.id,
        onContainer((info) => Promise.resolve(openShell(info))),
      ),
      vscode.commands.registerCommand(
        viewCommands.containerLogs.id,
        onContainer((info) => this.texts.open(info, 'logs')),
      ),
      vscode.commands.registerCommand(
        viewCommands.containerInspect.id,
        onContainer((info) => this.texts.open(info, 'inspect')),
      ),
      vscode.commands.registerCommand(
        viewCommands.containerStop.id,
        onContainer((info) => this.act(info, 'stop')),
      ),
      vscode.commands.registerCommand(
        viewCommands.containerRemove.id,
        onContainer(async (info) => {
          const remove = 'Remove';
          if ((await vscode.window.showWarningMessage(removeQuestion(info), { modal: true }, remove)) === remove) await this.act(info, 'remove');
        }),
      ),
    ];
  }

  /** Stop or remove, with the view's progress bar; the server's push shows the result. */
  private async act(info: ContainerInfo, action: 'stop' | 'remove'): Promise<void> {
    const client = await this.extensionState.currentClient();
    if (client === undefined) throw new Error(notRunning);
    const result = await vscode.window.withProgress({ location: { viewId: viewIds.containers } }, () =>
      sendRequest(client, containerAction, { id: info.id, action }),
    );
    this.extensionState.log.info(`Containers view: ${result.message}`);
    if (!result.ok) void vscode.window.showWarningMessage(`Graph Planner: ${result.message}`);
  }

  private async reap(): Promise<void> {
    const client = await this.extensionState.currentClient();
    if (client === undefined) {
      void vscode.window.showWarningMessage(notRunning);
      return;
    }
    const question = reapQuestion(this.provider.containers);
    const reap = 'Remove';
    if (question !== undefined && (await vscode.window.showWarningMessage(question, { modal: true }, reap)) !== reap) return;
    try {
      const result = await vscode.window.withProgress({ location: { viewId: viewIds.containers } }, () => sendRequest(client, containersReap, {}));
      this.extensionState.log.info(`Containers view: ${result.message}`);
      const show = result.failed > 0 ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      void show(`Graph Planner: ${result.message}`);
    } catch (error) {
      void vscode.window.showErrorMessage(`Graph Planner: reaping failed: ${errorMessage(error)}`);
    }
  }
}

function isNode(value: unknown): value is Node {
  const kind = typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined;
  return kind === 'run' || kind === 'container';
}

/** `docker exec -it` in a terminal of its own, named for the task; DOCKER_HOST goes with it. */
function openShell(info: ContainerInfo): void {
  const { program, args } = shellCommand(info);
  const dockerHost = process.env['DOCKER_HOST'];
  const terminal = vscode.window.createTerminal({
    name: shellTerminalName(info),
    shellPath: program,
    shellArgs: [...args],
    iconPath: new vscode.ThemeIcon('terminal'),
    ...(dockerHost === undefined ? {} : { env: { DOCKER_HOST: dockerHost } }),
  });
  terminal.show();
}

/** Registers the Containers view, its read-only documents and its commands; disposing the result removes them. */
export function registerContainersView(extensionState: ExtensionState): vscode.Disposable {
  return new ContainersView(extensionState);
}
