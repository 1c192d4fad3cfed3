/**
 * The command table. Each command is a small factory `(extensionState) => handler`; `whenRunning`
 * receives a client that is starting or running, and `whenStopped` says what happens without one
 * (by default a message that offers to start the server). The choice is made on every call, because the
 * server can stop or come back at any time.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { commandIds, commandTitles, trajectoryViewType, type CommandName } from './contributions.js';
import { showCodeGraph } from './codeGraphPanel.js';
import { compareEpisodes } from './episodeCompare.js';
import { continueFromStep } from './forkFlow.js';
import { activeTrajectoryStep } from './trajectoryEditor.js';
import { runGpInTerminal } from './gpTerminal.js';
import { showNotice, type ExtensionState } from './extensionState.js';
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
  readonly whenRunning: (extensionState: ExtensionState, client: LanguageClient) => Cmd;
  readonly whenStopped?: (extensionState: ExtensionState) => Cmd;
}

export const commands: Record<CommandName, CommandFactory> = {
  checkConfig: {
    whenRunning: (extensionState, client) => async (arg) => {
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
        extensionState.log.error(`Check Config: ${errorMessage(error)}`);
        void vscode.window.showErrorMessage(`Graph Planner: ${errorMessage(error)}`);
        return;
      }
      const notice = checkResultNotice(result, vscode.workspace.asRelativePath(document.uri));
      extensionState.log.info(`Check Config: ${notice.text}`);
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
    whenRunning: (extensionState) => showOverview(extensionState),
    whenStopped: (extensionState) => showOverview(extensionState),
  },
  restartServer: {
    whenRunning: (extensionState) => () => extensionState.restart(),
    whenStopped: (extensionState) => () => extensionState.restart(),
  },
  showOutput: {
    whenRunning: (extensionState) => () => extensionState.showOutput(),
    whenStopped: (extensionState) => () => extensionState.showOutput(),
  },
  startRollout: { whenRunning: (extensionState, client) => startRun(extensionState, client, 'rollout') },
  startEvaluation: { whenRunning: (extensionState, client) => startRun(extensionState, client, 'eval') },
  startTraining: { whenRunning: (extensionState, client) => startTraining(extensionState, client) },
  rerunLast: { whenRunning: (extensionState, client) => rerunLast(extensionState, client) },
  verifyTasks: { whenRunning: (extensionState, client) => verifyTasks(extensionState, client) },
  // The viewer opens without a server too, says so, and loads when the server is ready.
  openTrajectory: { whenRunning: () => openTrajectoryCommand, whenStopped: () => openTrajectoryCommand },
  compareEpisodes: {
    whenRunning: (extensionState) => (arg) => compareEpisodes(extensionState, extensionState.patches, arg instanceof vscode.Uri ? arg : undefined),
  },
  // The replay runs the CLI in a terminal; it needs no server.
  replayEpisode: {
    whenRunning: (extensionState) => (arg) => replayEpisode(extensionState, arg),
    whenStopped: (extensionState) => (arg) => replayEpisode(extensionState, arg),
  },
  // From the viewer's step (its button), or the palette while a viewer is active, at its selected step.
  continueFromStep: { whenRunning: (extensionState, client) => (arg, step) => continueFromCommand(extensionState, client, arg, step) },
  // Getting Started and its steps (gettingStarted.ts); only the launch needs the server.
  openGettingStarted: { whenRunning: () => openGettingStarted, whenStopped: () => openGettingStarted },
  sampleOpenConfig: { whenRunning: () => openSampleConfig, whenStopped: () => openSampleConfig },
  sampleRollout: { whenRunning: (extensionState, client) => runSampleRollout(extensionState, client) },
  sampleOpenEpisode: { whenRunning: () => openNewestEpisode, whenStopped: () => openNewestEpisode },
  sampleTrain: { whenRunning: (extensionState) => trainOnSamples(extensionState), whenStopped: (extensionState) => trainOnSamples(extensionState) },
  // Like the viewer, the view opens without a server, says so, and loads when the server is ready.
  showCodeGraph: {
    whenRunning: (extensionState) => (arg, step) => codeGraphCommand(extensionState, arg, step),
    whenStopped: (extensionState) => (arg, step) => codeGraphCommand(extensionState, arg, step),
  },
};

/** The code-graph view of the trajectory given (the viewer's, at its selected step), else one the person picks. */
async function codeGraphCommand(extensionState: ExtensionState, arg: unknown, step: unknown): Promise<void> {
  const uri = arg instanceof vscode.Uri ? arg : await pickTrajectory('Show which episode on the code graph?');
  if (uri !== undefined) showCodeGraph(extensionState, uri, typeof step === 'number' && Number.isInteger(step) && step >= 0 ? step : undefined);
}

/** *Continue from Here…* on the step given, else on the active viewer's selected step. */
async function continueFromCommand(extensionState: ExtensionState, client: LanguageClient, arg: unknown, step: unknown): Promise<void> {
  const given = arg instanceof vscode.Uri && typeof step === 'number' && Number.isInteger(step) && step >= 1 ? { uri: arg, step } : activeTrajectoryStep();
  if (given === undefined) {
    void vscode.window.showInformationMessage('Open one of your episodes in the trajectory viewer and select a step to continue from.');
    return;
  }
  await continueFromStep(extensionState, client, given.uri, given.step);
}

/** `gp trajectory replay` of the trajectory given (the viewer's), else one the person picks, in a terminal. */
async function replayEpisode(extensionState: ExtensionState, arg: unknown): Promise<void> {
  const uri = arg instanceof vscode.Uri ? arg : await pickTrajectory('Replay which episode?');
  if (uri === undefined) return;
  const episode =
    uri.path
      .split('/')
      .pop()
      ?.replace(/\.jsonl$/, '') ?? uri.fsPath;
  const cwd = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? dirname(uri.fsPath);
  runGpInTerminal(extensionState, { name: `gp trajectory replay ${episode}`, cwd, icon: 'debug-restart', args: ['trajectory', 'replay', uri.fsPath] });
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
  const editing = active?.scheme === 'file' && /\.(json|traj|eval)$/.test(active.path) ? active : undefined;
  const uri = arg instanceof vscode.Uri ? arg : (editing ?? (await pickTrajectory('Open which trajectory?')));
  if (uri !== undefined) await vscode.commands.executeCommand('vscode.openWith', uri, trajectoryViewType);
}

/** A trajectory of the workspace, newest first: the episode a person wants is usually the one just written. */
async function pickTrajectory(title: string): Promise<vscode.Uri | undefined> {
  // Ours, and other tools' files by the names they are usually given (docs/field-formats.md); any other
  // JSON file opens through the explorer's or the editor's "Open Trajectory…", the server telling its format from its content.
  const found = await vscode.workspace.findFiles('{**/trajectories/*.jsonl,**/*.traj,**/*.traj.json,**/*.atif.json,**/*.eval}', '**/node_modules/**', 5000);
  if (found.length === 0) {
    void vscode.window.showInformationMessage(
      'No trajectory in the workspace yet (trajectories/*.jsonl under a run folder, or *.traj, *.traj.json, *.atif.json, *.eval); start a rollout first.',
    );
    return undefined;
  }
  const items = found.map((f) => ({
    label:
      f.path
        .split('/')
        .pop()
        ?.replace(/\.(jsonl|traj|traj\.json|atif\.json|eval)$/, '') ?? f.path,
    description: vscode.workspace.asRelativePath(f),
    uri: f,
    mtime: mtimeOf(f.fsPath),
  }));
  const picked = await vscode.window.showQuickPick(
    items.sort((a, b) => b.mtime - a.mtime),
    { title, placeHolder: 'Newest first', matchOnDescription: true },
  );
  return picked?.uri;
}

/** Registers every command of the table; the handler is chosen when the command runs. */
export function registerCommands(extensionState: ExtensionState): void {
  for (const [name, factory] of Object.entries(commands) as [CommandName, CommandFactory][]) {
    const handler = async (...args: unknown[]): Promise<unknown> => {
      const title = commandTitles[name];
      const client = await extensionState.currentClient();
      const cmd = client === undefined ? (factory.whenStopped ?? notRunning)(extensionState) : factory.whenRunning(extensionState, client);
      try {
        return await cmd(...args);
      } catch (error) {
        extensionState.log.error(`${title} failed: ${errorMessage(error)}`);
        void vscode.window.showErrorMessage(`Graph Planner: ${title} failed: ${errorMessage(error)}`);
        return undefined;
      }
    };
    extensionState.extension.subscriptions.push(vscode.commands.registerCommand(commandIds[name], handler));
  }
}

function showOverview(extensionState: ExtensionState): Cmd {
  return async (arg) => {
    const document = await targetDocument(arg);
    if (document === undefined || document.languageId !== 'yaml') {
      void vscode.window.showInformationMessage('Open an experiment YAML file to see its overview.');
      return;
    }
    extensionState.overviews.show(document.uri);
  };
}

function notRunning(extensionState: ExtensionState): Cmd {
  return async () => {
    const restart = 'Restart Server';
    const output = 'Show Output';
    const choice = await vscode.window.showWarningMessage('The Graph Planner server is not running.', restart, output);
    if (choice === restart) await extensionState.restart();
    if (choice === output) extensionState.showOutput();
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
