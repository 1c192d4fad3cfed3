/**
 * The command table. Each command is a small factory `(ctx) => handler`; `whenRunning` receives a
 * client that is starting or running, and `whenStopped` says what happens without one (by default
 * a message that offers to start the server). The choice is made on every call, because the
 * server can stop or come back at any time.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { commandIds, commandTitles, trajectoryViewType, type CommandName } from './contributions.js';
import { showCodeGraph } from './codeGraphPanel.js';
import { compareEpisodes } from './episodeCompare.js';
import { runGpInTerminal } from './gpTerminal.js';
import { showNotice, type Ctx } from './ctx.js';
import { checkResultNotice } from './notices.js';
import { checkDocument, sendRequest } from './serverMessages.js';
import { openResolvedConfig, sourceOfResolved } from './resolvedConfig.js';
import { errorMessage } from './errors.js';
import { rerunLast, startRun } from './launchFlow.js';
import { startTraining } from './trainingLaunch.js';
import { verifyTasks } from './verifyFlow.js';
import { openGettingStarted, openNewestEpisode, openSampleConfig, runSampleRollout, trainOnSamples } from './gettingStarted.js';

export type Cmd = (...args: unknown[]) => unknown;

interface CommandFactory {
  readonly whenRunning: (ctx: Ctx, client: LanguageClient) => Cmd;
  readonly whenStopped?: (ctx: Ctx) => Cmd;
}

export const commands: Record<CommandName, CommandFactory> = {
  checkConfig: {
    whenRunning: (ctx, client) => async (arg) => {
      const document = await targetDocument(arg);
      if (document === undefined) {
        void vscode.window.showInformationMessage('Open an experiment YAML or dataset JSONL file to check it.');
        return;
      }
      const uri = client.code2ProtocolConverter.asUri(document.uri);
      let result;
      try {
        result = await sendRequest(client, checkDocument, { uri });
      } catch (error) {
        // The server says why it could not check (an unreadable file names its path and what to do).
        ctx.log.error(`Check Config: ${errorMessage(error)}`);
        void vscode.window.showErrorMessage(`Graph Planner: ${errorMessage(error)}`);
        return;
      }
      const notice = checkResultNotice(result, vscode.workspace.asRelativePath(document.uri));
      ctx.log.info(`Check Config: ${notice.text}`);
      // The Problems panel lists every finding with its location, which a message cannot.
      if (notice.hasProblems) await vscode.commands.executeCommand('workbench.actions.view.problems');
      void showNotice(notice);
    },
  },
  showResolvedConfig: {
    whenRunning: () => async (arg) => {
      const document = await targetDocument(arg);
      if (document === undefined || document.languageId !== 'yaml') {
        void vscode.window.showInformationMessage('Open an experiment YAML file to see its resolved config.');
        return;
      }
      await openResolvedConfig(document.uri);
    },
  },
  showExperimentOverview: {
    // Without a server the panel opens anyway, says so, and fills in when the server is ready.
    whenRunning: (ctx) => showOverview(ctx),
    whenStopped: (ctx) => showOverview(ctx),
  },
  restartServer: {
    whenRunning: (ctx) => () => ctx.restart(),
    whenStopped: (ctx) => () => ctx.restart(),
  },
  showOutput: {
    whenRunning: (ctx) => () => ctx.showOutput(),
    whenStopped: (ctx) => () => ctx.showOutput(),
  },
  startRollout: { whenRunning: (ctx, client) => startRun(ctx, client, 'rollout') },
  startEvaluation: { whenRunning: (ctx, client) => startRun(ctx, client, 'eval') },
  startTraining: { whenRunning: (ctx, client) => startTraining(ctx, client) },
  rerunLast: { whenRunning: (ctx, client) => rerunLast(ctx, client) },
  verifyTasks: { whenRunning: (ctx, client) => verifyTasks(ctx, client) },
  // The viewer opens without a server too, says so, and loads when the server is ready.
  openTrajectory: { whenRunning: () => openTrajectoryCommand, whenStopped: () => openTrajectoryCommand },
  compareEpisodes: { whenRunning: (ctx) => (arg) => compareEpisodes(ctx, ctx.patches, arg instanceof vscode.Uri ? arg : undefined) },
  // The replay runs the CLI in a terminal; it needs no server.
  replayEpisode: { whenRunning: (ctx) => (arg) => replayEpisode(ctx, arg), whenStopped: (ctx) => (arg) => replayEpisode(ctx, arg) },
  // Getting Started and its steps (gettingStarted.ts); only the launch needs the server.
  openGettingStarted: { whenRunning: () => openGettingStarted, whenStopped: () => openGettingStarted },
  sampleOpenConfig: { whenRunning: () => openSampleConfig, whenStopped: () => openSampleConfig },
  sampleRollout: { whenRunning: (ctx, client) => runSampleRollout(ctx, client) },
  sampleOpenEpisode: { whenRunning: () => openNewestEpisode, whenStopped: () => openNewestEpisode },
  sampleTrain: { whenRunning: (ctx) => trainOnSamples(ctx), whenStopped: (ctx) => trainOnSamples(ctx) },
  // Like the viewer, the view opens without a server, says so, and loads when the server is ready.
  showCodeGraph: { whenRunning: (ctx) => (arg, step) => codeGraphCommand(ctx, arg, step), whenStopped: (ctx) => (arg, step) => codeGraphCommand(ctx, arg, step) },
};

/** The code-graph view of the trajectory given (the viewer's, at its selected step), else one the person picks. */
async function codeGraphCommand(ctx: Ctx, arg: unknown, step: unknown): Promise<void> {
  const uri = arg instanceof vscode.Uri ? arg : await pickTrajectory('Show which episode on the code graph?');
  if (uri !== undefined) showCodeGraph(ctx, uri, typeof step === 'number' && Number.isInteger(step) && step >= 0 ? step : undefined);
}

/** `gp trajectory replay` of the trajectory given (the viewer's), else one the person picks, in a terminal. */
async function replayEpisode(ctx: Ctx, arg: unknown): Promise<void> {
  const uri = arg instanceof vscode.Uri ? arg : await pickTrajectory('Replay which episode?');
  if (uri === undefined) return;
  const episode = uri.path.split('/').pop()?.replace(/\.jsonl$/, '') ?? uri.fsPath;
  const cwd = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? dirname(uri.fsPath);
  runGpInTerminal(ctx, { name: `gp trajectory replay ${episode}`, cwd, icon: 'debug-restart', args: ['trajectory', 'replay', uri.fsPath] });
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Opens a trajectory in the viewer: the uri given (the explorer's or the editor's menu), else the JSON
 * file being edited (another tool's trajectory has no fixed name, so it may be open as text), else
 * one the person picks.
 */
async function openTrajectoryCommand(arg: unknown): Promise<void> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const editing = active?.scheme === 'file' && /\.(json|traj)$/.test(active.path) ? active : undefined;
  const uri = arg instanceof vscode.Uri ? arg : (editing ?? (await pickTrajectory('Open which trajectory?')));
  if (uri !== undefined) await vscode.commands.executeCommand('vscode.openWith', uri, trajectoryViewType);
}

/** A trajectory of the workspace, newest first: the episode a person wants is usually the one just written. */
async function pickTrajectory(title: string): Promise<vscode.Uri | undefined> {
  // Ours, and other tools' files by the names they are usually given (docs/field-formats.md); any other
  // JSON file opens through the explorer's or the editor's "Open Trajectory…", the server telling its format from its content.
  const found = await vscode.workspace.findFiles('{**/trajectories/*.jsonl,**/*.traj,**/*.traj.json,**/*.atif.json}', '**/node_modules/**', 5000);
  if (found.length === 0) {
    void vscode.window.showInformationMessage('No trajectory in the workspace yet (trajectories/*.jsonl under a run folder, or *.traj, *.traj.json, *.atif.json); start a rollout first.');
    return undefined;
  }
  const items = found.map((f) => ({ label: f.path.split('/').pop()?.replace(/\.(jsonl|traj|traj\.json|atif\.json)$/, '') ?? f.path, description: vscode.workspace.asRelativePath(f), uri: f, mtime: mtimeOf(f.fsPath) }));
  const picked = await vscode.window.showQuickPick(
    items.sort((a, b) => b.mtime - a.mtime),
    { title, placeHolder: 'Newest first', matchOnDescription: true },
  );
  return picked?.uri;
}

/** Registers every command of the table; the handler is chosen when the command runs. */
export function registerCommands(ctx: Ctx): void {
  for (const [name, factory] of Object.entries(commands) as [CommandName, CommandFactory][]) {
    const handler = async (...args: unknown[]): Promise<unknown> => {
      const title = commandTitles[name];
      const client = await ctx.currentClient();
      const cmd = client === undefined ? (factory.whenStopped ?? notRunning)(ctx) : factory.whenRunning(ctx, client);
      try {
        return await cmd(...args);
      } catch (error) {
        ctx.log.error(`${title} failed: ${errorMessage(error)}`);
        void vscode.window.showErrorMessage(`Graph Planner: ${title} failed: ${errorMessage(error)}`);
        return undefined;
      }
    };
    ctx.extension.subscriptions.push(vscode.commands.registerCommand(commandIds[name], handler));
  }
}

function showOverview(ctx: Ctx): Cmd {
  return async (arg) => {
    const document = await targetDocument(arg);
    if (document === undefined || document.languageId !== 'yaml') {
      void vscode.window.showInformationMessage('Open an experiment YAML file to see its overview.');
      return;
    }
    ctx.overviews.show(document.uri);
  };
}

function notRunning(ctx: Ctx): Cmd {
  return async () => {
    const restart = 'Restart Server';
    const output = 'Show Output';
    const choice = await vscode.window.showWarningMessage('The Graph Planner server is not running.', restart, output);
    if (choice === restart) await ctx.restart();
    if (choice === output) ctx.showOutput();
  };
}

/**
 * The document a command acts on: the file a menu passed, else the active editor's. A resolved
 * config view stands for its source, so "Check Config" works from there too.
 */
async function targetDocument(arg: unknown): Promise<vscode.TextDocument | undefined> {
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  if (uri === undefined) return undefined;
  const source = sourceOfResolved(uri) ?? uri;
  return vscode.workspace.openTextDocument(source);
}
