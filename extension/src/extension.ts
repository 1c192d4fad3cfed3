/**
 * Entry point of the Graph Planner extension: builds the context, registers commands and
 * providers, and starts the language server.
 */
// Imported first so that its timestamp is taken before the rest of the bundle loads.
import { loadStart } from './loadStart.js';
import * as vscode from 'vscode';
import { trackActiveFileKind, updateActiveFileKind } from './activeFileKind.js';
import { registerCommands } from './commands.js';
import { openGettingStartedOnce } from './gettingStarted.js';
import { affectsSelector, affectsTrace, currentSettings, needsRestart } from './readClientSettings.js';
import { patchScheme, recordedSourceScheme, resolvedConfigScheme } from './contributions.js';
import { ExtensionState } from './extensionState.js';
import { ResolvedConfigProvider } from './resolvedConfig.js';
import { errorMessage } from './errors.js';
import { registerLaunchCodeLens } from './launchCodeLens.js';
import { registerContainersView } from './views/containersView.js';
import { RunsView } from './views/runsView.js';
import { showLaunchProgress } from './launchProgress.js';
import { onDidLaunch } from './launchFlow.js';
import { LiveRuns } from './liveRuns.js';
import { registerRunNotices } from './runNotices.js';
import { registerRunsBadge } from './runsBadge.js';
import { registerTasksView } from './views/tasksView.js';
import { RecordedSourceProvider } from './recordedSource.js';
import { registerTrajectoryEditor } from './trajectoryEditor.js';
import { registerTrajectoryPrompt } from './trajectoryPrompt.js';

/** Kept for `deactivate`, which VS Code calls without arguments. */
let current: ExtensionState | undefined;

/**
 * The Runs view and what a person sees around every launch (issue 27): the live runs, their badge
 * and status bar item, the progress while a launch starts and the notice when a run ends.
 */
function launchFeedback(extensionState: ExtensionState): vscode.Disposable[] {
  const runsView = new RunsView(extensionState);
  const live = new LiveRuns(extensionState);
  return [
    runsView,
    live,
    registerRunsBadge(live, runsView),
    registerRunNotices(live, (line) => extensionState.log.info(line)),
    // Every launch, training included, is a detached gp whose run folder is known before it starts.
    onDidLaunch((dir, kind) => showLaunchProgress(live, { dir }, kind, (line) => extensionState.log.info(line))),
  ];
}

export function activate(extension: vscode.ExtensionContext): void {
  try {
    const extensionState = new ExtensionState(extension, loadStart);
    current = extensionState;
    registerCommands(extensionState);
    const resolvedProvider = new ResolvedConfigProvider(extensionState);
    extension.subscriptions.push(
      extensionState,
      resolvedProvider,
      vscode.workspace.registerTextDocumentContentProvider(resolvedConfigScheme, resolvedProvider),
      trackActiveFileKind(),
      vscode.workspace.onDidChangeConfiguration((event) => onConfigurationChanged(extensionState, event)),
      ...launchFeedback(extensionState),
      registerTasksView(extensionState),
      registerContainersView(extensionState),
      registerLaunchCodeLens(),
      vscode.workspace.registerTextDocumentContentProvider(patchScheme, extensionState.patches),
      vscode.workspace.registerTextDocumentContentProvider(recordedSourceScheme, new RecordedSourceProvider(extensionState)),
      registerTrajectoryEditor(extensionState, extensionState.patches),
      registerTrajectoryPrompt(extension.workspaceState),
    );
    // Activation does not wait for the server: commands and the status bar work meanwhile, and
    // the log records when the server reports ready.
    void extensionState.start();
    extensionState.log.info(`Graph Planner activated in ${extensionState.sinceActivation()} ms`);
    openGettingStartedOnce(extension, (line) => extensionState.log.info(line)).catch((error: unknown) =>
      extensionState.log.error(`Getting Started did not open: ${errorMessage(error)}`),
    );
  } catch (error) {
    // VS Code shows no notification when an extension fails to activate, so we show one ourselves.
    void vscode.window.showErrorMessage(`Graph Planner failed to activate: ${errorMessage(error)}`);
    throw error;
  }
}

export async function deactivate(): Promise<void> {
  const extensionState = current;
  current = undefined;
  await extensionState?.stop();
}

function onConfigurationChanged(extensionState: ExtensionState, event: vscode.ConfigurationChangeEvent): void {
  if (affectsSelector(event)) updateActiveFileKind();
  if (needsRestart(event)) {
    extensionState.log.info('Graph Planner settings changed; restarting the server.');
    void extensionState.restart();
    return;
  }
  // The client resets its trace level on every configuration change, so the setting is applied
  // again afterwards whenever tracing is on, not only when the setting itself changed.
  const trace = currentSettings().trace;
  if (affectsTrace(event) || trace !== 'off') void extensionState.applyTrace(trace);
}
