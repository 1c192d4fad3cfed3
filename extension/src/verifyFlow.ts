/**
 * `Verify Tasks…`: certifies a dataset file with `gp dataset verify` (on a file of the Tasks view,
 * or from the palette on the active dataset JSONL). Three short picks (how many times each task's
 * tests run, how many tasks at once, where), then the server plans the command line and the run
 * folder and starts `gp` detached, exactly as a rollout launched from the editor starts, so the
 * verification outlives the editor and the Runs view lists it. Its log follows in a terminal, and
 * each task's verdict shows in the Tasks view as it is written. The dataset reaches `gp` as one
 * argument of an argument vector, never as shell text.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { fileKindOf } from './activeFileKind.js';
import type { ExtensionState } from './extensionState.js';
import { launch } from './launchFlow.js';
import { listedDatasets, pickDatasets } from './launchPickers.js';
import { followRunLog } from './runLogTerminal.js';
import type { VerifyLaunch } from './serverMessages.js';
import { sandboxBackendNames, sandboxBackendTable } from '../../server/src/protocol/sandboxBackends.js';

type Pick<T> = vscode.QuickPickItem & { readonly value: T | 'custom' };

const steps = 3;

export function verifyTasks(extensionState: ExtensionState, client: LanguageClient): (arg?: unknown) => Promise<void> {
  return async (arg) => {
    const dataset = await datasetOf(client, arg);
    if (dataset === undefined) return;
    const folder = vscode.workspace.getWorkspaceFolder(dataset) ?? vscode.workspace.workspaceFolders?.[0];
    if (folder === undefined) {
      void vscode.window.showInformationMessage('Open a folder first: a verification writes its run folder under the workspace.');
      return;
    }
    const name = basename(dataset.fsPath);
    const repeats = await pickNumber<number>(
      `Verify ${name}: runs per task (1/${steps})`,
      'How many times each task’s tests run with no patch and with the gold patch',
      [
        { label: '1', description: 'once', detail: 'Finds tasks whose gold patch fails, or that pass without a fix.', value: 1 },
        { label: '2', description: 'twice', detail: 'Also finds tests that change their outcome between identical runs (flaky).', value: 2 },
        { label: '3', description: 'three times', detail: 'Finds flaky tests that fail less often; takes three times as long.', value: 3 },
        { label: 'Custom…', description: 'any number from 1 to 100', value: 'custom' },
      ],
    );
    if (repeats === undefined) return;
    const parallel = await pickNumber<number | null>(
      `Verify ${name}: tasks at once (2/${steps})`,
      'How many tasks are verified in parallel, each in a sandbox of its own',
      [
        { label: 'From the config', description: 'rollout.parallel', value: null },
        { label: '1', description: 'one at a time', value: 1 },
        { label: '2', value: 2 },
        { label: '4', value: 4 },
        { label: 'Custom…', description: 'any number from 1 to 100', value: 'custom' },
      ],
    );
    if (parallel === undefined) return;
    const backend = await vscode.window.showQuickPick(
      [
        { label: 'From the config', description: 'sandbox.backend (auto: Docker when it answers, else a local working copy)', value: null },
        ...sandboxBackendNames.map((name) => ({ label: name, description: sandboxBackendTable[name].pick, value: name })),
      ],
      { title: `Verify ${name}: where the tests run (3/${steps})`, placeHolder: 'The sandbox backend', ignoreFocusOut: true },
    );
    if (backend === undefined) return;
    const verify: VerifyLaunch = { dataset: dataset.fsPath, repeats, parallel, backend: backend.value, cwd: folder.uri.fsPath };
    const started = await launch(extensionState, client, { mode: 'verify', verify });
    if (started === undefined) return;
    followRunLog({
      name: `gp dataset verify ${name}`,
      icon: 'verified',
      logFile: started.logFile,
      pid: started.pid,
      display: started.display,
      ended: `gp dataset verify ended; each task’s certification is in the Tasks view, the run in ${vscode.workspace.asRelativePath(started.runDir)}`,
    });
    vscode.window.setStatusBarMessage(`$(verified) Verifying ${name}…`, 5000);
  };
}

/** The dataset the command acts on: the file given (a Tasks view file or an explorer uri), else the active dataset, else one picked. */
async function datasetOf(client: LanguageClient, arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'object' && arg !== null) {
    const path = (arg as { summary?: { path?: unknown } }).summary?.path;
    if (typeof path === 'string') return vscode.Uri.file(path);
  }
  const active = vscode.window.activeTextEditor?.document;
  if (active !== undefined && active.uri.scheme === 'file' && fileKindOf(active) === 'dataset') return active.uri;
  const picked = await pickDatasets(await listedDatasets(client), {
    title: 'Verify which dataset?',
    placeHolder: 'Its gold patches are read from gold_predictions_<name>.jsonl beside it',
    chosen: [],
    many: false,
  });
  return picked?.[0] === undefined ? undefined : vscode.Uri.file(picked[0]);
}

/** A pick among numbers, with `Custom…` asking for a whole number from 1 to 100; undefined when cancelled. */
async function pickNumber<T extends number | null>(title: string, placeHolder: string, items: readonly Pick<T>[]): Promise<T | number | undefined> {
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder, ignoreFocusOut: true });
  if (picked === undefined) return undefined;
  if (picked.value !== 'custom') return picked.value;
  const typed = await vscode.window.showInputBox({
    title,
    prompt: 'A whole number from 1 to 100',
    ignoreFocusOut: true,
    validateInput: (v) => (/^[1-9]\d*$/.test(v.trim()) && Number(v.trim()) <= 100 ? undefined : 'Enter a whole number from 1 to 100.'),
  });
  return typed === undefined ? undefined : Number(typed.trim());
}
