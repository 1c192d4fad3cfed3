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
import { Ctx } from './ctx.js';
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
let current: Ctx | undefined;

/**
 * The Runs view and what a person sees around every launch (issue 27): the live runs, their badge
 * and status bar item, the progress while a launch starts and the notice when a run ends.
 */
function launchFeedback(ctx: Ctx): vscode.Disposable[] {
  const runsView = new RunsView(ctx);
  const live = new LiveRuns(ctx);
  return [
    runsView,
    live,
    registerRunsBadge(live, runsView),
    registerRunNotices(live, (line) => ctx.log.info(line)),
    // Every launch, training included, is a detached gp whose run folder is known before it starts.
    onDidLaunch((dir, kind) => showLaunchProgress(live, { dir }, kind, (line) => ctx.log.info(line))),
  ];
}

export function activate(extension: vscode.ExtensionContext): void {
  try {
    const ctx = new Ctx(extension, loadStart);
    current = ctx;
    registerCommands(ctx);
    const resolvedProvider = new ResolvedConfigProvider(ctx);
    extension.subscriptions.push(
      ctx,
      resolvedProvider,
      vscode.workspace.registerTextDocumentContentProvider(resolvedConfigScheme, resolvedProvider),
      trackActiveFileKind(),
      vscode.workspace.onDidChangeConfiguration((event) => onConfigurationChanged(ctx, event)),
      ...launchFeedback(ctx),
      registerTasksView(ctx),
      registerContainersView(ctx),
      registerLaunchCodeLens(),
      vscode.workspace.registerTextDocumentContentProvider(patchScheme, ctx.patches),
      vscode.workspace.registerTextDocumentContentProvider(recordedSourceScheme, new RecordedSourceProvider(ctx)),
      registerTrajectoryEditor(ctx, ctx.patches),
      registerTrajectoryPrompt(extension.workspaceState),
    );
    // Activation does not wait for the server: commands and the status bar work meanwhile, and
    // the log records when the server reports ready.
    void ctx.start();
    ctx.log.info(`Graph Planner activated in ${ctx.sinceActivation()} ms`);
    openGettingStartedOnce(extension, (line) => ctx.log.info(line)).catch((error: unknown) => ctx.log.error(`Getting Started did not open: ${errorMessage(error)}`));
  } catch (error) {
    // VS Code shows no notification when an extension fails to activate, so we show one ourselves.
    void vscode.window.showErrorMessage(`Graph Planner failed to activate: ${errorMessage(error)}`);
    throw error;
  }
}

export async function deactivate(): Promise<void> {
  const ctx = current;
  current = undefined;
  await ctx?.stop();
}

function onConfigurationChanged(ctx: Ctx, event: vscode.ConfigurationChangeEvent): void {
  if (affectsSelector(event)) updateActiveFileKind();
  if (needsRestart(event)) {
    ctx.log.info('Graph Planner settings changed; restarting the server.');
    void ctx.restart();
    return;
  }
  // The client resets its trace level on every configuration change, so the setting is applied
  // again afterwards whenever tracing is on, not only when the setting itself changed.
  const trace = currentSettings().trace;
  if (affectsTrace(event) || trace !== 'off') void ctx.applyTrace(trace);
}
