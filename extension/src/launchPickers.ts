/**
 * The experiment and dataset pickers of every launch (Start Rollout…, Start Evaluation…, Start
 * Training…, Verify Tasks…) and the experiment a launch starts from, by the rules of
 * `launchDefaults.ts`. Datasets come from the server's task index (`graphPlanner/tasks/files`, the
 * Tasks view's list): it counts each file's tasks and leaves out gold-prediction files, so the
 * pickers and the Tasks view share one rule. An experiment's dataset comes from its resolved config.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { fileKindOf } from './activeFileKind.js';
import type { ExtensionState } from './extensionState.js';
import { documentSelectorGlobs } from './launchFiles.js';
import {
  datasetOfExperiment,
  defaultExperiment,
  experimentDescription,
  offeredFiles,
  taskCount,
  type DatasetFile,
  type WorkspaceFile,
} from './launchDefaults.js';
import { resolvedConfig, taskFiles, sendRequest } from './serverMessages.js';

/** The experiment last launched from this workspace (a rollout, an evaluation or training). */
const lastExperimentKey = 'graphPlanner.lastExperiment';

export async function workspaceFiles(kind: 'experiment' | 'dataset'): Promise<vscode.Uri[]> {
  const found = await Promise.all(documentSelectorGlobs(kind).map((g) => vscode.workspace.findFiles(g, '**/{node_modules,.git,outputs}/**', 200)));
  const unique = new Map(found.flat().map((u) => [u.fsPath, u]));
  return [...unique.values()].sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}

const workspaceFile = (uri: vscode.Uri): WorkspaceFile => ({ path: uri.fsPath, rel: vscode.workspace.asRelativePath(uri, false) });

/** The dataset files the server lists, with their task counts; none when it cannot answer. */
export async function listedDatasets(client: LanguageClient): Promise<DatasetFile[]> {
  try {
    const { files } = await sendRequest(client, taskFiles, {});
    return files.map((f) => ({ ...workspaceFile(vscode.Uri.file(f.path)), tasks: f.tasks, invalid: f.invalid }));
  } catch {
    // The server is starting or stopped; the pickers then offer nothing rather than unchecked files.
    return [];
  }
}

/** Remembers the experiment a launch started with, the default of the next one. */
export async function rememberExperiment(extensionState: ExtensionState, path: string): Promise<void> {
  await extensionState.extension.workspaceState.update(lastExperimentKey, path);
}

/** The experiment a launch starts from (launchDefaults.ts `defaultExperiment`). */
export async function startingExperiment(extensionState: ExtensionState): Promise<vscode.Uri | undefined> {
  const active = vscode.window.activeTextEditor?.document;
  const opened = active !== undefined && fileKindOf(active) === 'experiment' ? active.uri.fsPath : undefined;
  const offered = offeredFiles((await workspaceFiles('experiment')).map(workspaceFile));
  const chosen = defaultExperiment(offered, opened, extensionState.extension.workspaceState.get<string>(lastExperimentKey));
  return chosen === undefined ? undefined : vscode.Uri.file(chosen);
}

/**
 * The `paths.dataset_train` an experiment resolves to, as written (relative to the launch folder
 * or absolute); undefined when it names none. Throws when the server cannot resolve the config.
 */
export async function trainingDatasetPath(client: LanguageClient, config: vscode.Uri): Promise<string | undefined> {
  const result = await sendRequest(client, resolvedConfig, { uri: client.code2ProtocolConverter.asUri(config) });
  if (result.yaml === null) return undefined;
  // The YAML library loads here, when a launch asks, not with the extension (docs/benchmarks.md, "Activation").
  const { parse } = await import('yaml');
  const train = (parse(result.yaml) as { paths?: { dataset_train?: unknown } } | null)?.paths?.dataset_train;
  return typeof train === 'string' ? train : undefined;
}

/** The dataset an experiment names, when the server lists it; `cwd` is the folder the run is launched in. */
export async function experimentDataset(
  client: LanguageClient,
  config: vscode.Uri,
  cwd: string,
  listed: readonly DatasetFile[],
): Promise<DatasetFile | undefined> {
  try {
    return datasetOfExperiment(await trainingDatasetPath(client, config), cwd, listed);
  } catch {
    // The config cannot be resolved here: no dataset follows it, and the launch's own check says why.
    return undefined;
  }
}

type Item<T> = vscode.QuickPickItem & { readonly value: T };

/** A single pick whose highlighted row is `active` (the current choice), not the first. */
function pickOne<T>(items: readonly Item<T>[], options: { title: string; placeHolder: string }, active: Item<T> | undefined): Promise<Item<T> | undefined> {
  const pick = vscode.window.createQuickPick<Item<T>>();
  pick.title = options.title;
  pick.placeholder = options.placeHolder;
  pick.matchOnDescription = true;
  pick.items = items;
  if (active !== undefined) pick.activeItems = [active];
  return new Promise((resolve) => {
    pick.onDidAccept(() => {
      resolve(pick.selectedItems[0]);
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}

export interface ExperimentPick {
  readonly title: string;
  readonly placeHolder: string;
  /** The experiment chosen now, highlighted; null for the defaults. */
  readonly current: string | null;
  /** Offer "(defaults)", no experiment YAML. */
  readonly withDefaults: boolean;
  /** The folder a run is launched in, which an experiment's relative dataset path resolves against. */
  readonly cwd: string;
}

/**
 * An experiment, each described by the dataset it names and its task count; the path, null for the
 * defaults, or undefined when the person cancelled.
 */
export async function pickExperiment(client: LanguageClient, listed: readonly DatasetFile[], pick: ExperimentPick): Promise<string | null | undefined> {
  const files = offeredFiles((await workspaceFiles('experiment')).map(workspaceFile), pick.current === null ? [] : [pick.current]);
  const described = await Promise.all(
    files.map(async (f) => ({
      label: f.rel,
      description: experimentDescription(await experimentDataset(client, vscode.Uri.file(f.path), pick.cwd, listed)),
      value: f.path as string | null,
    })),
  );
  const items: Item<string | null>[] = pick.withDefaults ? [{ label: '(defaults)', description: 'no experiment YAML', value: null }, ...described] : described;
  if (items.length === 0) {
    void vscode.window.showInformationMessage('No experiment YAML in the workspace: create one under configs/experiments/ first.');
    return undefined;
  }
  const picked = await pickOne(
    items,
    pick,
    items.find((i) => i.value === pick.current),
  );
  return picked?.value;
}

/** One dataset, or several with `many`, each with its task count; the paths, or undefined when cancelled. */
export async function pickDatasets(
  listed: readonly DatasetFile[],
  pick: { title: string; placeHolder: string; chosen: readonly string[]; many: boolean },
): Promise<string[] | undefined> {
  const files = offeredFiles(listed, pick.chosen);
  if (files.length === 0) {
    void vscode.window.showInformationMessage('No dataset JSONL matches graphPlanner.datasetGlobs in this workspace.');
    return undefined;
  }
  const chosen = new Set(pick.chosen);
  const items: Item<string>[] = files.map((f) => ({ label: f.rel, description: taskCount(f), value: f.path, picked: chosen.has(f.path) }));
  if (pick.many) {
    const picked = await vscode.window.showQuickPick(items, { title: pick.title, placeHolder: pick.placeHolder, canPickMany: true, matchOnDescription: true });
    return picked === undefined || picked.length === 0 ? undefined : picked.map((p) => p.value);
  }
  const picked = await pickOne(
    items,
    pick,
    items.find((i) => chosen.has(i.value)),
  );
  return picked === undefined ? undefined : [picked.value];
}
