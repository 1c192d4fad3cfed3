/**
 * The one object that owns the extension's mutable state: the language client of the moment, the
 * output channel, the status bar item and the disposables. Commands and providers receive it and
 * ask it for a running client instead of holding one themselves, because the client is replaced
 * on every restart.
 */
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { LanguageClient, State } from 'vscode-languageclient/node';
import { createClient } from './client.js';
import { loadLanguageClientLib, type LanguageClientLib } from './languageClientLib.js';
import { currentSettings } from './readClientSettings.js';
import { outputChannelName } from './contributions.js';
import { datasetSummaryNotice, OncePerKey, type Notice } from './notices.js';
import { OverviewPanels } from './overviewPanel.js';
import { PatchActions } from './patchDiffs.js';
import { datasetSummary, serverStatus, type DatasetSummary, type ServerNotification, type ServerStatus } from './serverMessages.js';
import { healthFromStatus } from './serverHealth.js';
import { resolveServerModule, type TraceSetting } from './clientSettings.js';
import { StatusBar } from './statusBar.js';
import { TraceChannel } from './traceChannel.js';
import { errorMessage } from './errors.js';

/** One client's lifetime; a restart makes a new session so stale events can be told apart. */
interface Session {
  /** The library the client came from, for its enumerations (`State`, `Trace`). */
  readonly lib: LanguageClientLib;
  readonly client: LanguageClient;
  readonly disposables: vscode.Disposable[];
  /** Set when we stop the client ourselves, so that a stop is not mistaken for a crash. */
  stopping: boolean;
  /** Whether the server has reported its status yet; until then the client state decides. */
  statusSeen: boolean;
}

export class ExtensionState implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  private readonly traceChannel: TraceChannel;
  private readonly statusBar = new StatusBar();
  private readonly datasetNotices = new OncePerKey();
  private readonly serverChanged = new vscode.EventEmitter<void>();
  private session: Session | undefined;
  private lifecycle: Promise<void> = Promise.resolve();
  /** Settles once the start under way has made its client (or given up); see `currentClient`. */
  private clientMade: Promise<void> = Promise.resolve();
  private serverReadyLogged = false;

  /** Fires when a server becomes ready or goes away, so views that show its answers can refresh. */
  readonly onDidChangeServer = this.serverChanged.event;
  /** The experiment overview webviews, one per document. */
  readonly overviews: OverviewPanels;
  /** The documents of patch diffs, and applying patches to a checkout. */
  readonly patches: PatchActions;
  /**
   * Server notifications the views listen to, by method. A client keeps one handler per method
   * (a second registration replaces the first), so each method gets one dispatcher per client
   * that calls every listener.
   */
  private readonly listeners = new Map<string, Set<(params: unknown) => void>>();

  constructor(
    readonly extension: vscode.ExtensionContext,
    /** `performance.now()` when the bundle began to load: the origin of the timings we log. */
    private readonly activationStart: number,
  ) {
    this.log = vscode.window.createOutputChannel(outputChannelName, { log: true });
    this.traceChannel = new TraceChannel(this.log, false);
    this.overviews = new OverviewPanels(this);
    this.patches = new PatchActions(this);
    extension.subscriptions.push(this.log, this.traceChannel, this.statusBar, this.serverChanged, this.overviews);
  }

  /**
   * Listens to a server notification on this client and every later one (a restart makes a new
   * client), until the returned disposable is disposed.
   */
  onServerNotification<P>(type: ServerNotification<P>, handler: (params: P) => void): vscode.Disposable {
    let set = this.listeners.get(type.method);
    const listener = handler as (params: unknown) => void;
    if (set === undefined) {
      this.listeners.set(type.method, (set = new Set()));
      const session = this.session;
      if (session !== undefined) session.disposables.push(this.dispatch(session.client, type.method));
    }
    set.add(listener);
    return new vscode.Disposable(() => set.delete(listener));
  }

  private dispatch(client: LanguageClient, method: string): vscode.Disposable {
    return client.onNotification(method, (params: unknown) => {
      for (const listener of this.listeners.get(method) ?? []) {
        try {
          listener(params);
        } catch (error) {
          this.log.error(`A listener of ${method} failed: ${errorMessage(error)}`);
        }
      }
    });
  }

  /** Milliseconds since activation began, rounded for the log. */
  sinceActivation(): number {
    return Math.round(performance.now() - this.activationStart);
  }

  /** The client when it is starting or running (requests wait for a starting one), else undefined. */
  get client(): LanguageClient | undefined {
    const client = this.session?.client;
    return client?.needsStop() === true ? client : undefined;
  }

  /**
   * The client once the start under way has made it: the library loads after activation
   * (`languageClientLib.ts`), so a command run the moment activation returns waits those
   * milliseconds here instead of finding no server.
   */
  async currentClient(): Promise<LanguageClient | undefined> {
    await this.clientMade;
    return this.client;
  }

  start(): Promise<void> {
    return this.enqueue(() => this.startSession());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.stopSession());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.stopSession();
      await this.startSession();
    });
  }

  /** Applies `graphPlanner.trace` to the running client without restarting it. */
  applyTrace(trace: TraceSetting): Promise<void> {
    return this.enqueue(() => this.setTrace(trace));
  }

  showOutput(): void {
    this.log.show(true);
  }

  dispose(): void {
    // Deactivation awaits `stop()`; this only drops the watchers of a client that is already gone.
    this.session?.disposables.forEach((d) => d.dispose());
  }

  /**
   * Runs start, stop and restart one after another: a restart requested while a start is still
   * in flight must not leave two servers running.
   */
  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.lifecycle.then(task).catch((error: unknown) => {
      this.log.error(`Graph Planner server lifecycle failed: ${errorMessage(error)}`);
    });
    this.lifecycle = run;
    return run;
  }

  private startSession(): Promise<void> {
    const made = this.makeSession();
    this.clientMade = made.then(
      () => undefined,
      () => undefined,
    );
    return made.then((session) => (session === undefined ? undefined : this.runSession(session)));
  }

  /** Loads the library and makes the client, with its listeners; undefined when there is no server to start. */
  private async makeSession(): Promise<Session | undefined> {
    const settings = currentSettings();
    const workspacePath = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const serverModule = resolveServerModule(settings.serverPath, this.extension.extensionPath, workspacePath);
    if (!existsSync(serverModule)) {
      const message = `Graph Planner server not found at ${serverModule}.`;
      this.log.error(message);
      this.statusBar.show({ kind: 'crashed', message });
      void vscode.window.showErrorMessage(`${message} Check the graphPlanner.serverPath setting or rebuild the extension.`);
      return undefined;
    }
    let lib: LanguageClientLib;
    try {
      lib = await loadLanguageClientLib();
    } catch (error) {
      const message = `The language client library did not load: ${errorMessage(error)}`;
      this.log.error(message);
      this.statusBar.show({ kind: 'crashed', message });
      void vscode.window.showErrorMessage(`Graph Planner: ${message}. Reinstall the extension.`);
      return undefined;
    }
    this.traceChannel.setEnabled(settings.trace !== 'off');
    const { client, disposables } = createClient(lib, { serverModule, settings, outputChannel: this.log, traceChannel: this.traceChannel });
    const session: Session = { lib, client, disposables, stopping: false, statusSeen: false };
    this.session = session;
    disposables.push(
      client.onDidChangeState(({ newState }) => this.onClientState(session, newState)),
      client.onNotification(serverStatus.method, (status: ServerStatus) => this.onServerStatus(session, status)),
      client.onNotification(datasetSummary.method, (summary: DatasetSummary) => this.onDatasetSummary(summary)),
      ...[...this.listeners.keys()].map((method) => this.dispatch(client, method)),
    );
    this.log.info(`Starting Graph Planner server ${serverModule}`);
    this.statusBar.show({ kind: 'starting', message: '' });
    return session;
  }

  private async runSession(session: Session): Promise<void> {
    const { client } = session;
    try {
      await client.start();
    } catch (error) {
      // The client has already logged the failure and shown a notification; the status bar says
      // the rest.
      this.statusBar.show({ kind: 'crashed', message: `The server failed to start: ${errorMessage(error)}` });
      return;
    }
    await this.setTrace(currentSettings().trace);
  }

  private async stopSession(): Promise<void> {
    const session = this.session;
    if (session === undefined) return;
    session.stopping = true;
    this.session = undefined;
    try {
      await session.client.dispose(2000);
    } catch (error) {
      this.log.warn(`Graph Planner server did not stop cleanly: ${errorMessage(error)}`);
    } finally {
      session.disposables.forEach((d) => d.dispose());
    }
    this.statusBar.show({ kind: 'stopped' });
    this.serverChanged.fire();
  }

  private async setTrace(trace: TraceSetting): Promise<void> {
    this.traceChannel.setEnabled(trace !== 'off');
    const session = this.session;
    const client = this.client;
    if (session === undefined || client === undefined || !client.isRunning()) return;
    await client.setTrace(session.lib.Trace.fromString(trace));
  }

  private onClientState(session: Session, state: State): void {
    if (session !== this.session) return;
    const states = session.lib.State;
    switch (state) {
      case states.Starting:
        this.statusBar.show({ kind: 'starting', message: '' });
        break;
      case states.Running:
        // A server that does not report its status is still usable; show it as ready.
        if (!session.statusSeen) {
          const version = session.client.initializeResult?.serverInfo?.version ?? '';
          this.statusBar.show({ kind: 'ready', message: '', version });
        }
        this.serverChanged.fire();
        break;
      case states.StartFailed:
        this.statusBar.show({ kind: 'crashed', message: 'The server failed to start; see the output for details.' });
        break;
      case states.Stopped:
        if (!session.stopping) {
          this.log.error('Graph Planner server stopped unexpectedly.');
          this.statusBar.show({ kind: 'crashed', message: 'The server stopped unexpectedly; see the output for details.' });
          this.serverChanged.fire();
        }
        break;
    }
  }

  private onServerStatus(session: Session, status: ServerStatus): void {
    if (session !== this.session) return;
    session.statusSeen = true;
    this.statusBar.show(healthFromStatus(status));
    if (status.state === 'error') this.log.error(`Graph Planner server error: ${status.message}`);
    if (status.state !== 'ready') return;
    if (!this.serverReadyLogged) {
      this.serverReadyLogged = true;
      this.log.info(`Graph Planner server ready ${this.sinceActivation()} ms after activation`);
      if (status.startupMs !== undefined) this.log.info(`Server ${status.version} started in ${Math.round(status.startupMs)} ms.`);
    }
    this.serverChanged.fire();
  }

  private onDatasetSummary(summary: DatasetSummary): void {
    if (!summary.fromDisk || !this.datasetNotices.first(summary.uri)) return;
    const file = vscode.workspace.asRelativePath(vscode.Uri.parse(summary.uri));
    const notice = datasetSummaryNotice(summary, file);
    this.log.info(notice.text);
    void showNotice(notice);
  }
}

/**
 * Shows a notice with the severity it asks for, offering the Problems panel when it has problems.
 * It resolves when the person dismisses the message, so callers usually do not wait for it.
 */
export async function showNotice(notice: Notice): Promise<void> {
  const show =
    notice.severity === 'error'
      ? vscode.window.showErrorMessage
      : notice.severity === 'warning'
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const showProblems = 'Show Problems';
  const choice = notice.hasProblems ? await show(notice.text, showProblems) : await show(notice.text);
  if (choice === showProblems) await vscode.commands.executeCommand('workbench.actions.view.problems');
}
