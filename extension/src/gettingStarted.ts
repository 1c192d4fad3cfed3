/**
 * Getting Started: the walkthrough's four steps (edit a config, launch, step through an episode,
 * train), each a command that does it on the repository's sample data, and the walkthrough opened
 * on the first activation until a person has seen it (docs/README.md, "Getting started in the editor"). The sample is
 * `configs/experiments/sample.yaml` on `datasets/sample/tasks.jsonl`: the rule agent on the local
 * backend, so a rollout takes seconds and needs no Docker.
 */
import { statSync } from 'node:fs';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { qualifiedWalkthroughId, trajectoryViewType, viewIds } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { runGpInTerminal } from './gpTerminal.js';
import { launch } from './launchFlow.js';
import { openUntilSeen, walkthroughStateOf, type TabShape } from './walkthroughOpening.js';

/** The sample's files, relative to a workspace folder. */
export const sampleFiles = { config: 'configs/experiments/sample.yaml', tasks: 'datasets/sample/tasks.jsonl' } as const;

/** What the train step runs: the smoke with the scripted policy, which needs no model download and takes a minute or two. */
export const sampleTrainArgs = ['train', sampleFiles.config, '--smoke', '--smoke-policy', 'scripted'] as const;

const shownKey = 'graphPlanner.gettingStarted.shown';

/** The walkthrough, beside whatever is open. */
export async function openGettingStarted(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', qualifiedWalkthroughId, false);
}

/**
 * Opens the walkthrough on the extension's first activation for this user until a person has seen
 * it (walkthroughOpening.ts), and never again once they have (the palette's "Open Getting Started"
 * and the views' welcome links reopen it). It is recorded as shown only once it stayed in front: a
 * start where VS Code's own welcome page kept the editor tries again at the next activation. VS
 * Code's setting for walkthroughs of newly installed extensions is honoured: off, it stays closed.
 */
export async function openGettingStartedOnce(extension: vscode.ExtensionContext, log: (line: string) => void): Promise<void> {
  if (extension.globalState.get<boolean>(shownKey) === true) return;
  if (vscode.workspace.getConfiguration('workbench.welcomePage').get<boolean>('walkthroughs.openOnInstall') === false) return;
  const seen = await openUntilSeen({
    open: openOverWelcome,
    state: () => walkthroughStateOf(editorTabs()),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  if (seen) await extension.globalState.update(shownKey, true);
  const tabs = editorTabs().map((tab) => `${tab.label}${tab.isActive && tab.inActiveGroup ? ' (in front)' : ''}${tab.typed ? '' : ' (welcome editor)'}`);
  log(
    seen
      ? 'Getting Started opened on the first activation.'
      : `Getting Started did not stay in front; it opens again at the next activation. Tabs: ${tabs.join(', ') || 'none'}.`,
  );
}

/**
 * VS Code's `workbench.action.openWalkthrough` does nothing while the welcome editor in front shows
 * another walkthrough at one of its steps (a new profile's "Setup VS Code"); its back link, the
 * `welcome.goBack` command, returns it to the list of walkthroughs (or closes the bare welcome
 * page), after which ours opens in its place. Ours is one "Welcome" link away from theirs. It goes
 * back whenever the welcome editor is in front, since the tab's label does not say what it shows
 * (walkthroughOpening.ts).
 */
async function openOverWelcome(): Promise<void> {
  if (walkthroughStateOf(editorTabs()) === 'ours') {
    await Promise.resolve(vscode.commands.executeCommand('welcome.goBack')).catch(() => undefined);
  }
  await openGettingStarted();
}

/** The editor's tabs as walkthroughOpening.ts reads them. */
function editorTabs(): TabShape[] {
  const activeGroup = vscode.window.tabGroups.activeTabGroup;
  return vscode.window.tabGroups.all.flatMap((group) =>
    group.tabs.map((tab) => ({ label: tab.label, typed: tab.input !== undefined, isActive: tab.isActive, inActiveGroup: group === activeGroup })),
  );
}

/** The workspace folder that holds the sample, or undefined after saying what is missing. */
function sampleFolder(): vscode.WorkspaceFolder | undefined {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (Object.values(sampleFiles).every((f) => exists(vscode.Uri.joinPath(folder.uri, f).fsPath))) return folder;
  }
  void vscode.window.showInformationMessage(
    `Getting Started uses the repository's sample (${sampleFiles.config} and ${sampleFiles.tasks}). Open a clone of Graph Planner as the workspace folder to run its steps.`,
  );
  return undefined;
}

function exists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Step 1: the sample config in an editor beside the walkthrough, where its checks, hovers and completions show. */
export async function openSampleConfig(): Promise<void> {
  const folder = sampleFolder();
  if (folder === undefined) return;
  await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, sampleFiles.config), { viewColumn: vscode.ViewColumn.Beside, preview: false });
}

/** Step 2: a rollout of the sample config on the sample tasks, launched as Start Rollout… launches, without its review list. */
export function runSampleRollout(extensionState: ExtensionState, client: LanguageClient): () => Promise<void> {
  return async () => {
    const folder = sampleFolder();
    if (folder === undefined) return;
    const path = (f: string) => vscode.Uri.joinPath(folder.uri, f).fsPath;
    // Null values come from the config, as the review list leaves them when accepted unchanged.
    await launch(extensionState, client, {
      mode: 'new',
      run: {
        kind: 'rollout',
        config: path(sampleFiles.config),
        taskFiles: [path(sampleFiles.tasks)],
        tasks: [],
        agent: null,
        backend: null,
        parallel: null,
        attempts: null,
        sets: [],
        cwd: folder.uri.fsPath,
      },
    });
  };
}

/** Step 3: the newest episode of the workspace in the trajectory viewer. */
export async function openNewestEpisode(): Promise<void> {
  const found = await vscode.workspace.findFiles('**/trajectories/*.jsonl', '**/node_modules/**', 5000);
  const newest = found.map((uri) => ({ uri, mtime: mtimeOf(uri.fsPath) })).sort((a, b) => b.mtime - a.mtime)[0];
  if (newest === undefined) {
    void vscode.window.showInformationMessage('No episode yet: run the sample rollout first (the step before), then open its newest episode here.');
    return;
  }
  await vscode.commands.executeCommand('vscode.openWith', newest.uri, trajectoryViewType, { viewColumn: vscode.ViewColumn.Beside });
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Step 4: the training smoke on the sample tasks in a terminal of its own; the Runs view shows the run and its metrics. */
export function trainOnSamples(extensionState: ExtensionState): () => Promise<void> {
  return async () => {
    const folder = sampleFolder();
    if (folder === undefined) return;
    extensionState.log.info(`Getting Started: gp ${sampleTrainArgs.join(' ')}`);
    runGpInTerminal(extensionState, { name: 'gp train (smoke)', cwd: folder.uri.fsPath, icon: 'rocket', args: sampleTrainArgs });
    await vscode.commands.executeCommand(`${viewIds.runs}.focus`);
  };
}
