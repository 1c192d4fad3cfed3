/**
 * The trajectory viewer: a read-only custom editor for `trajectories/*.jsonl`, and for other tools'
 * trajectories (`*.traj`, `*.traj.json`, `*.atif.json`, or any JSON file through "Open Trajectory…";
 * the server tells the format from the content, docs/field-formats.md). The server reads
 * and keeps the episode; this module relays between it and the webview page (`webview/src/episode/`)
 * and acts on what the page asks (show a file, open a patch as a diff). The server watches the
 * trajectories viewers have open and pushes `episode/changed`; each change asks the server only for
 * the steps appended since, which is how a running episode is followed. Every message from the page is validated; an invalid one is logged and dropped.
 */
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { EpisodeWebviewMessage } from '../../server/src/protocol/episodeWebview.js';
import type { EpisodeHostMessage } from '../../server/src/protocol/episodeView.js';
import { commandIds, trajectoryViewType } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { errorMessage } from './errors.js';
import { openRecordedLocation } from './recordedSource.js';
import { allCodeGraphNodes, selectCodeGraphStep } from './codeGraphPanel.js';
import type { CodeGraphHostMessage } from '../../server/src/protocol/codeGraphView.js';
import { episodeChanged, episodeCodeGraph, episodeOpen, episodeSearch, episodeSteps, episodeWatch, sendRequest } from './serverMessages.js';
import { newNonce, webviewHtml } from './webviewHtml.js';
import type { PatchActions } from './patchDiffs.js';
import { messageSchemas } from './messageSchemas.js';

/** Changes within this window become one read (the server already merges bursts; this merges reads). */
const followDelayMs = 20;

/** The viewer panels open per trajectory path, so opening one at a step can reach a panel already open. */
const openPanels = new Map<string, Set<TrajectoryPanel>>();
/** A step to select in the next panel opened on a path. */
const pendingSteps = new Map<string, number>();

/**
 * Opens a trajectory in the viewer at one of its steps: a panel already open on it is revealed and
 * told the step; otherwise a new one selects it once the episode is read.
 */
export async function openTrajectoryAt(uri: vscode.Uri, step: number | null, viewColumn: vscode.ViewColumn = vscode.ViewColumn.Beside): Promise<void> {
  const open = [...(openPanels.get(uri.fsPath) ?? [])][0];
  if (open !== undefined) {
    open.reveal();
    if (step !== null) open.selectStep(step);
    return;
  }
  if (step !== null) pendingSteps.set(uri.fsPath, step);
  await vscode.commands.executeCommand('vscode.openWith', uri, trajectoryViewType, viewColumn);
}

/**
 * The active viewer's trajectory and selected step, for *Continue from Here…* from the palette;
 * undefined when no viewer is active or its step is not one of our own episode's.
 */
export function activeTrajectoryStep(): { readonly uri: vscode.Uri; readonly step: number } | undefined {
  for (const panels of openPanels.values())
    for (const panel of panels) {
      const at = panel.activeStep();
      if (at !== undefined) return at;
    }
  return undefined;
}

export function registerTrajectoryEditor(extensionState: ExtensionState, patches: PatchActions): vscode.Disposable {
  return vscode.window.registerCustomEditorProvider(trajectoryViewType, new TrajectoryEditorProvider(extensionState, patches), {
    supportsMultipleEditorsPerDocument: true,
    webviewOptions: { enableFindWidget: false, retainContextWhenHidden: false },
  });
}

class TrajectoryEditorProvider implements vscode.CustomReadonlyEditorProvider {
  constructor(
    private readonly extensionState: ExtensionState,
    private readonly patches: PatchActions,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    new TrajectoryPanel(this.extensionState, this.patches, document.uri, panel);
  }
}

class TrajectoryPanel {
  private readonly path: string;
  private readonly disposables: vscode.Disposable[] = [];
  private knownSteps = 0;
  /** Bumped whenever the page starts over, so a read begun before that is not taken as current. */
  private generation = 0;
  /** This panel's id in `episode/watch`, so a repeated watch holds once. */
  private readonly viewer = randomUUID();
  private followTimer: NodeJS.Timeout | undefined;
  /** One read at a time; a change during a read schedules one more. */
  private reading: Promise<void> = Promise.resolve();
  private disposed = false;
  /** The step to select once the episode is read (opened from the group view or a sample table). */
  private pendingStep: number | undefined;
  /** Messages for a page that has not said `ready` yet (its script is still loading). */
  private queued: EpisodeHostMessage[] | undefined = [];
  /** The sample shown of a file of many (an Inspect log); the file's first while undefined. */
  private sample: string | undefined;
  /** The step the page has selected (it says so with `selected`); 0 or undefined is none to continue from. */
  private selected: number | undefined;

  constructor(
    private readonly extensionState: ExtensionState,
    private readonly patches: PatchActions,
    private readonly uri: vscode.Uri,
    private readonly panel: vscode.WebviewPanel,
  ) {
    this.path = uri.fsPath;
    const dist = vscode.Uri.joinPath(extensionState.extension.extensionUri, 'dist');
    const webview = panel.webview;
    webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [dist] };
    webview.html = webviewHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'episode.js')).toString(),
      title: basename(this.path),
      loading: `Reading ${basename(this.path)}…`,
    });
    this.disposables.push(
      extensionState.onServerNotification(episodeChanged, (change) => {
        if (change.path === this.path) this.scheduleFollow();
      }),
      webview.onDidReceiveMessage(
        (raw: unknown) =>
          void this.receive(raw).catch((error: unknown) => this.extensionState.log.error(`A message from the page failed: ${errorMessage(error)}`)),
      ),
      // A new server knows nothing of this viewer: watch again and send everything.
      extensionState.onDidChangeServer(() => {
        this.watch(true);
        this.startOver();
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    this.watch(true);
    this.pendingStep = pendingSteps.get(this.path);
    pendingSteps.delete(this.path);
    openPanels.set(this.path, (openPanels.get(this.path) ?? new Set()).add(this));
    // The server reads the episode while the page loads its script; the answer waits for `ready`.
    this.read();
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** This panel's trajectory and selected step when it is the active editor; never a sample of another tool's log. */
  activeStep(): { readonly uri: vscode.Uri; readonly step: number } | undefined {
    return this.panel.active && this.selected !== undefined && this.selected >= 1 && this.sample === undefined
      ? { uri: this.uri, step: this.selected }
      : undefined;
  }

  private sampleParam(): { sample?: string } {
    return this.sample === undefined ? {} : { sample: this.sample };
  }

  selectStep(step: number): void {
    this.post({ type: 'selectStep', step });
  }

  private watch(watching: boolean): void {
    // Waits for a client still being made, as opening a trajectory may have started the extension.
    void this.extensionState
      .currentClient()
      .then((client) => (client === undefined ? null : sendRequest(client, episodeWatch, { path: this.path, watching, viewer: this.viewer })))
      .catch(() => undefined);
  }

  private dispose(): void {
    this.disposed = true;
    openPanels.get(this.path)?.delete(this);
    if (openPanels.get(this.path)?.size === 0) openPanels.delete(this.path);
    clearTimeout(this.followTimer);
    this.disposables.forEach((d) => d.dispose());
    this.watch(false);
  }

  private scheduleFollow(): void {
    clearTimeout(this.followTimer);
    this.followTimer = setTimeout(() => this.read(), followDelayMs);
  }

  /** Forgets what the page had and sends everything again; reads already under way are dropped. */
  private startOver(): void {
    this.generation++;
    this.knownSteps = 0;
    this.read();
  }

  /** Asks the server for the episode (only the new steps once the page has some) and posts it. */
  private read(): void {
    const generation = this.generation;
    this.reading = this.reading.then(async () => {
      if (this.disposed || generation !== this.generation) return;
      const client = await this.extensionState.currentClient();
      if (client === undefined) {
        this.post({
          type: 'unavailable',
          reason: 'The Graph Planner server is not running. Run "Graph Planner: Restart Server"; this view reloads when it is ready.',
        });
        return;
      }
      try {
        const result = await sendRequest(client, episodeOpen, { path: this.path, knownSteps: this.knownSteps, ...this.sampleParam() });
        if (generation !== this.generation) return;
        if (!result.ok) {
          this.post({ type: 'unavailable', reason: result.message });
          return;
        }
        this.knownSteps = result.totalSteps;
        this.post({ type: 'episode', header: result.header, rows: result.rows, appended: result.appended });
        // Opened at a step: selected once the page has the steps.
        if (this.pendingStep !== undefined) this.selectStep(this.pendingStep);
        this.pendingStep = undefined;
      } catch (error) {
        this.post({ type: 'unavailable', reason: `The server could not read the trajectory: ${errorMessage(error)}` });
      }
    });
  }

  private post(message: EpisodeHostMessage): void {
    if (this.disposed) return;
    if (this.queued !== undefined) this.queued.push(message);
    else void this.panel.webview.postMessage(message);
  }

  /** The episode's code graph for the page's own pane (protocol/codeGraphView.ts's messages, which the page validates). */
  private async postCodeGraph(all: boolean): Promise<void> {
    const client = await this.extensionState.currentClient();
    const reply = (message: CodeGraphHostMessage): void => {
      if (!this.disposed) void this.panel.webview.postMessage(message);
    };
    if (client === undefined) {
      reply({ type: 'graphUnavailable', reason: 'The Graph Planner server is not running. Run "Graph Planner: Restart Server".' });
      return;
    }
    try {
      const result = await sendRequest(client, episodeCodeGraph, { path: this.path, ...(all ? { limit: allCodeGraphNodes } : {}) });
      reply(result.ok ? { type: 'graph', graph: result.graph } : { type: 'graphUnavailable', reason: result.message });
    } catch (error) {
      reply({ type: 'graphUnavailable', reason: `The server could not build the code graph: ${errorMessage(error)}` });
    }
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = (await messageSchemas()).episodeWebviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.extensionState.log.warn(`Ignored an invalid message from the trajectory viewer: ${JSON.stringify(raw)?.slice(0, 200) ?? String(raw)}`);
      return;
    }
    void this.handle(parsed.data).catch((error: unknown) => {
      this.extensionState.log.warn(`Trajectory viewer (${basename(this.path)}): ${errorMessage(error)}`);
      void vscode.window.showWarningMessage(`Graph Planner: ${errorMessage(error)}`);
    });
  }

  private async handle(message: EpisodeWebviewMessage): Promise<void> {
    const client = await this.extensionState.currentClient();
    switch (message.type) {
      case 'ready': {
        const queued = this.queued;
        this.queued = undefined;
        if (queued !== undefined) {
          // The first load: what was read meanwhile goes out now.
          for (const m of queued) void this.panel.webview.postMessage(m);
          return;
        }
        // A reloaded page (shown again after being hidden) has nothing: send everything again.
        this.startOver();
        return;
      }
      case 'needSteps': {
        if (client === undefined) return;
        const result = await sendRequest(client, episodeSteps, { path: this.path, steps: message.steps, ...this.sampleParam() });
        this.post({ type: 'steps', steps: result.steps });
        return;
      }
      case 'search': {
        if (client === undefined) return;
        const result = await sendRequest(client, episodeSearch, {
          path: this.path,
          query: message.query,
          caseSensitive: message.caseSensitive,
          ...this.sampleParam(),
        });
        this.post({ type: 'searchResult', query: message.query, matches: result.matches, truncated: result.truncated });
        return;
      }
      case 'openLocation':
        await openRecordedLocation(this.path, message.file, message.line);
        return;
      case 'openPatch':
        await this.patches.open(this.path, message.patch);
        return;
      case 'applyPatch':
        await this.patches.apply(this.path, message.patch);
        return;
      case 'compare':
        await vscode.commands.executeCommand(commandIds.compareEpisodes, this.uri);
        return;
      case 'replay':
        await vscode.commands.executeCommand(commandIds.replayEpisode, this.uri);
        return;
      case 'codeGraph':
        await vscode.commands.executeCommand(commandIds.showCodeGraph, this.uri, message.step);
        return;
      case 'selected':
        this.selected = message.step;
        selectCodeGraphStep(this.path, message.step);
        return;
      case 'continueFrom':
        await vscode.commands.executeCommand(commandIds.continueFromStep, this.uri, message.step);
        return;
      case 'needCodeGraph':
        await this.postCodeGraph(message.all);
        return;
      case 'chooseSample':
        this.sample = message.key;
        this.startOver();
        return;
      case 'timing':
        this.extensionState.log.info(`Trajectory viewer: ${message.what} of ${basename(this.path)} in ${message.ms.toFixed(1)} ms`);
        return;
    }
  }
}
