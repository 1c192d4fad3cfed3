/**
 * *Continue from Here…* (docs/trajectory-viewer.md#continue-from-here): a step of an episode in the
 * viewer becomes new episodes that replay its steps before that one and go on live from it. The
 * person picks the agent, the planner model when it is the model agent, and how many continuations;
 * the launch is planned, preflighted and started detached by the server like any other
 * (launchFlow.ts, `mode: 'fork'`), and once the fork's first episode has reached the step, the
 * comparison of parent and fork opens aligned at it (episodeCompare.ts).
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { compareEpisodes } from './episodeCompare.js';
import { errorMessage } from './errors.js';
import type { ExtensionState } from './extensionState.js';
import { launch, type StartedLaunch } from './launchFlow.js';
import { episodeOpen, launchExited, sendRequest, type LaunchExited } from './serverMessages.js';
import { forkChoiceSets, forkCounts, validEndpoint, type ForkModel } from './forkChoices.js';

/** What the pickers asked: the agent, the `--set` overrides that choose its model, the count. */
interface ForkChoice {
  readonly agent: 'rule' | 'model';
  readonly sets: string[];
  readonly count: number;
}

type Item<T> = vscode.QuickPickItem & { readonly value: T };

/** The viewer's step, from its message or the palette; the fork is launched and compared, or the person is told why not. */
export async function continueFromStep(extensionState: ExtensionState, client: LanguageClient, trajectory: vscode.Uri, step: number): Promise<void> {
  const episode = basename(trajectory.fsPath, '.jsonl');
  const choice = await askFork(`Continue ${episode} from step ${step}`);
  if (choice === undefined) return;
  const cwd = vscode.workspace.getWorkspaceFolder(trajectory)?.uri.fsPath ?? dirname(dirname(dirname(trajectory.fsPath)));
  const started = await launch(extensionState, client, {
    mode: 'fork',
    fork: { trajectory: trajectory.fsPath, step, count: choice.count, agent: choice.agent, sets: choice.sets, cwd },
  });
  if (started === undefined) return;
  const fork = await waitForFork(extensionState, client, started, episode, step);
  if (fork !== undefined) await compareEpisodes(extensionState, extensionState.patches, trajectory, fork, { alignAt: step });
}

/** The three questions, each its own quick pick with the step in its title; undefined when one is dismissed. */
async function askFork(title: string): Promise<ForkChoice | undefined> {
  const agent = await pick<'rule' | 'model'>(`${title}: agent`, 'Who acts from this step on', [
    { label: '$(tools) Rule agent', description: 'model-free: localises from the failure, tries bounded repairs', value: 'rule' },
    { label: '$(hubot) Model agent', description: 'the planner model; which one is asked next', value: 'model' },
  ]);
  if (agent === undefined) return undefined;
  let sets: string[] = [];
  if (agent === 'model') {
    const model = await pickModel(title);
    if (model === undefined) return undefined;
    sets = forkChoiceSets(model);
  }
  const count = await pick<number>(
    `${title}: how many`,
    'Continuations at once, each a new episode from this step',
    forkCounts.map((n) => ({ label: String(n), description: n === 1 ? 'one continuation' : `${n} continuations, to see how far they spread`, value: n })),
  );
  return count === undefined ? undefined : { agent, sets, count };
}

async function pickModel(title: string): Promise<ForkModel | undefined> {
  const kind = await pick<ForkModel['kind']>(`${title}: model`, 'Which planner model answers', [
    { label: "$(settings) The run's model", description: "the parent run's config, as it was", value: 'config' },
    {
      label: '$(chip) The embedded model',
      description: 'SmolLM2-135M on this CPU; it checks the pipeline, it does not solve tasks',
      value: 'embedded',
    },
    { label: '$(globe) Another endpoint…', description: 'an OpenAI-compatible server, by its URL', value: 'endpoint' },
  ]);
  if (kind !== 'endpoint') return kind === undefined ? undefined : { kind };
  const url = await vscode.window.showInputBox({
    title: `${title}: endpoint`,
    prompt: 'The base URL of an OpenAI-compatible server (its chat completions are under it), as backends.planner_endpoint takes it',
    placeHolder: 'http://127.0.0.1:8000/v1',
    ignoreFocusOut: true,
    validateInput: (v) => validEndpoint(v.trim()),
  });
  return url === undefined ? undefined : { kind: 'endpoint', url: url.trim() };
}

async function pick<T>(title: string, placeHolder: string, items: readonly Item<T>[]): Promise<T | undefined> {
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder, ignoreFocusOut: true });
  return picked?.value;
}

/** How often the fork's trajectories are looked at while waiting; a change notice is not relied on, as the run folder may lie outside the workspace. */
const pollMs = 400;

/**
 * Waits, with a progress notice that can be cancelled, for the fork's first episode to reach
 * `step` (its earlier steps are replayed first) or to end; returns its trajectory. A launch that
 * exits first is said with its first error and a button to its log; cancelling only stops the wait,
 * since the run is detached like any launch and the Runs view shows it under its parent.
 */
async function waitForFork(
  extensionState: ExtensionState,
  client: LanguageClient,
  started: StartedLaunch,
  episode: string,
  step: number,
): Promise<vscode.Uri | undefined> {
  let exit: LaunchExited | undefined;
  const subscription = extensionState.onServerNotification(launchExited, (e) => {
    if (e.runDir === started.runDir) exit = e;
  });
  try {
    const outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Continuing ${episode} from step ${step}`, cancellable: true },
      async (progress, token) => {
        progress.report({ message: 'waiting for the fork to start its episode…' });
        for (;;) {
          // An exit seen before this look still gets the look: the episode may have reached the step just before.
          const exited = exit;
          const found = await forkProgress(client, started.runDir, step);
          if (found.ready !== undefined) return { kind: 'ready' as const, file: found.ready };
          if (exited !== undefined) return { kind: 'exited' as const, exit: exited };
          if (token.isCancellationRequested) return { kind: 'cancelled' as const };
          if (found.message !== undefined) progress.report({ message: found.message });
          await sleep(pollMs, token);
        }
      },
    );
    if (outcome.kind === 'ready') return vscode.Uri.file(outcome.file);
    if (outcome.kind === 'cancelled') {
      void vscode.window.showInformationMessage(
        `The fork of ${episode} goes on; the Runs view shows it under the episode, and Compare… compares it once it has reached step ${step}.`,
      );
      return undefined;
    }
    const why =
      outcome.exit.error?.message ?? outcome.exit.run?.exitReason ?? `its process exited ${outcome.exit.signal ?? `with status ${outcome.exit.code ?? '?'}`}`;
    const showLog = 'Show Run Log';
    const answer = await vscode.window.showErrorMessage(`The fork of ${episode} ended before its episode reached step ${step}: ${why}`, showLog);
    if (answer === showLog) await vscode.window.showTextDocument(vscode.Uri.file(join(started.runDir, 'run.log')), { preview: true });
    return undefined;
  } catch (error) {
    void vscode.window.showErrorMessage(`Graph Planner: waiting for the fork failed: ${errorMessage(error)}`);
    return undefined;
  } finally {
    subscription.dispose();
  }
}

/**
 * The fork's episodes so far: the first (by name, so `#1` before `#2`) that has reached `step` or
 * ended, else what to say of the furthest one. The server reads them, as the viewer's do.
 */
async function forkProgress(client: LanguageClient, runDir: string, step: number): Promise<{ ready?: string; message?: string }> {
  const folder = join(runDir, 'trajectories');
  let names: string[];
  try {
    names = (await readdir(folder)).filter((n) => n.endsWith('.jsonl')).sort();
  } catch {
    return {};
  }
  let furthest = -1;
  for (const name of names) {
    const path = join(folder, name);
    const read = await sendRequest(client, episodeOpen, { path, knownSteps: 0 });
    if (!read.ok) continue;
    if (read.totalSteps >= step || read.header.outcome !== null) return { ready: path };
    furthest = Math.max(furthest, read.totalSteps);
  }
  if (furthest < 0) return {};
  return { message: step > 1 ? `replaying the recorded steps: ${furthest} of ${step - 1}…` : 'waiting for its first step…' };
}

function sleep(ms: number, token: vscode.CancellationToken): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      listener.dispose();
      resolve();
    }, ms);
    const listener = token.onCancellationRequested(() => {
      clearTimeout(timer);
      listener.dispose();
      resolve();
    });
  });
}
