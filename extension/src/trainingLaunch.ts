/**
 * `Start Training…`: picks the experiment (the active one, else one of the workspace's), how to
 * train (a smoke run on this machine's CPU, with the real model or the scripted policy, a real run
 * here, or a Ray job on a cluster) and, when
 * the config's training tasks are not in the workspace, a task file; then starts `gp train` as every
 * launch starts (launchFlow.ts: the config preflighted first, the process detached, into a run
 * folder planned before it starts, issue 37), so the progress, the end notice and a failure before
 * the run reports follow exactly this run. A terminal follows its `run.log`, where the trainer's
 * output and its exit are visible.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { fileKindOf } from './activeFileKind.js';
import type { ExtensionState } from './extensionState.js';
import { launch } from './launchFlow.js';
import { listedDatasets, pickDatasets, pickExperiment, rememberExperiment, startingExperiment, trainingDatasetPath } from './launchPickers.js';
import { followRunLog } from './runLogTerminal.js';
import type { TrainLaunch } from './serverMessages.js';

type Mode = 'smoke' | 'smoke-scripted' | 'local' | 'ray';

interface ModeItem extends vscode.QuickPickItem {
  readonly mode: Mode;
}

const modes: readonly ModeItem[] = [
  {
    mode: 'smoke',
    label: '$(beaker) Smoke run',
    description: 'CPU, SmolLM2-135M trained on its own replies',
    detail: 'The whole path through Verl with a real model, each step sampled from the weights the last one updated: a minute or more a step.',
  },
  {
    mode: 'smoke-scripted',
    label: '$(beaker) Smoke run, scripted policy',
    description: 'CPU, a tiny model built here, the rule agent as policy',
    detail: 'The same path with the rule agent’s replies: deterministic, in a minute or two.',
  },
  {
    mode: 'local',
    label: '$(rocket) Train on this machine',
    description: 'Verl with vLLM on the GPUs here',
    detail: 'Needs a visible GPU; gp train refuses to start without one.',
  },
  {
    mode: 'ray',
    label: '$(cloud-upload) Train on a Ray cluster…',
    description: 'a Ray job through the cluster’s dashboard',
    detail: 'The environment service stays on this machine: start it on the head node, or tunnel.',
  },
];

/**
 * The smoke's policy and steps when started from the editor: enough points for its curves to be
 * curves. The model policy's steps take minutes each on CPU, so it runs two: still a step sampled
 * from updated weights.
 */
const smokes: Readonly<Partial<Record<Mode, Pick<TrainLaunch, 'smoke' | 'steps'>>>> = {
  smoke: { smoke: 'model', steps: 2 },
  'smoke-scripted': { smoke: 'scripted', steps: 3 },
};

export function startTraining(extensionState: ExtensionState, client: LanguageClient): (arg?: unknown) => Promise<void> {
  return async (arg) => {
    const config = arg instanceof vscode.Uri ? arg : await trainingExperiment(extensionState, client);
    if (config === undefined) return;
    const folder = vscode.workspace.getWorkspaceFolder(config) ?? vscode.workspace.workspaceFolders?.[0];
    if (folder === undefined) {
      void vscode.window.showInformationMessage('Open a folder first: a training run writes its files under the workspace.');
      return;
    }
    const mode = await vscode.window.showQuickPick(modes, { title: `Train with ${vscode.workspace.asRelativePath(config)}`, placeHolder: 'How to train' });
    if (mode === undefined) return;
    const smoke = smokes[mode.mode] ?? { smoke: null, steps: null };
    let ray: string | null = null;
    if (mode.mode === 'ray') {
      const address = await vscode.window.showInputBox({
        title: 'Ray dashboard address',
        prompt: 'The head node’s dashboard, as for ray job submit --address',
        value: '127.0.0.1:8265',
        validateInput: (v) => (v.trim() === '' ? 'Give HOST:PORT or a URL' : undefined),
      });
      if (address === undefined) return;
      ray = address.trim();
    }
    const tasks = await trainingTasks(client, config, folder.uri.fsPath);
    if (tasks === null) return;
    const train: TrainLaunch = { config: config.fsPath, tasks: tasks?.fsPath ?? null, ...smoke, ray, cwd: folder.uri.fsPath };
    const started = await launch(extensionState, client, { mode: 'train', train });
    if (started === undefined) return;
    await rememberExperiment(extensionState, config.fsPath);
    followRunLog({
      name: `gp train${smoke.smoke === null ? '' : ' (smoke)'}`,
      icon: 'rocket',
      logFile: started.logFile,
      pid: started.pid,
      display: started.display,
      ended: `gp train ended; the run is in ${vscode.workspace.asRelativePath(started.runDir)}, its metrics in the Runs view`,
    });
  };
}

/**
 * The open experiment, else one picked, the last launched (else the sample) highlighted, each with
 * the dataset it names and its task count.
 */
async function trainingExperiment(extensionState: ExtensionState, client: LanguageClient): Promise<vscode.Uri | undefined> {
  const active = vscode.window.activeTextEditor?.document;
  if (active !== undefined && fileKindOf(active) === 'experiment') return active.uri;
  const starting = await startingExperiment(extensionState);
  const cwd = (starting && vscode.workspace.getWorkspaceFolder(starting)) ?? vscode.workspace.workspaceFolders?.[0];
  if (cwd === undefined) return undefined;
  const picked = await pickExperiment(client, await listedDatasets(client), {
    title: 'Train which experiment?',
    placeHolder: 'Each with the dataset it trains on',
    current: starting?.fsPath ?? null,
    withDefaults: false,
    cwd: cwd.uri.fsPath,
  });
  return picked === undefined || picked === null ? undefined : vscode.Uri.file(picked);
}

/**
 * The task file to pass with --tasks: undefined when the config's `paths.dataset_train` exists
 * (gp train reads it), the file picked otherwise, null when the person cancelled.
 */
async function trainingTasks(client: LanguageClient, config: vscode.Uri, cwd: string): Promise<vscode.Uri | undefined | null> {
  try {
    const train = await trainingDatasetPath(client, config);
    if (train !== undefined && existsSync(isAbsolute(train) ? train : join(cwd, train))) return undefined;
  } catch {
    // The config could not be resolved here; gp train will say why. A task file is still asked for.
  }
  const picked = await pickDatasets(await listedDatasets(client), {
    title: 'Train on which tasks?',
    placeHolder: 'The config’s paths.dataset_train is not in the workspace',
    chosen: [],
    many: false,
  });
  return picked?.[0] === undefined ? null : vscode.Uri.file(picked[0]);
}
