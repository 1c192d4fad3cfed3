/**
 * Launching runs from the editor: `Start Rollout…` and `Start Evaluation…` (from the palette, the
 * Runs view and the code lens above an experiment YAML), `Re-run Last`, and the launches the views
 * ask for (one task, resume, re-launch). A launch is shown as one review list, pre-filled from the
 * config, where Enter starts it and each line opens its own picker; the server then plans it,
 * preflights the config (errors block and open the Problems panel at the first one, warnings ask)
 * and starts `gp` detached, so the run outlives the editor.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { viewIds } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { datasetsAfterExperimentChange } from './launchDefaults.js';
import { experimentDataset, listedDatasets, pickDatasets, pickExperiment, rememberExperiment, startingExperiment } from './launchPickers.js';
import { blockedMessage, reviewRows, type ReviewRow, type ValueKey } from './launchReviewRows.js';
import { isFinding, preferredFix } from './overviewQuickFix.js';
import {
  launchPlan,
  launchStart,
  taskPreflight,
  type BlockedTask,
  type LaunchFinding,
  type LaunchPlanResult,
  type LaunchSpec,
  type LaunchStartResult,
  type NewRunLaunch,
  type TaskPreflightResult,
  sendRequest,
} from './serverMessages.js';
import { visibleLine } from '../../server/src/protocol/terminalText.js';
import { agentNames } from '../../server/src/protocol/agentNames.js';
import { sandboxBackendChoices, type OpenedBackendName } from '../../server/src/protocol/sandboxBackends.js';

const lastLaunchKey = 'graphPlanner.lastLaunch';

/** What a view or the code lens may hand `Start Rollout…`: a config file, or tasks to run. */
interface StartArgs {
  readonly config?: vscode.Uri;
  readonly taskFiles?: readonly string[];
  readonly tasks?: readonly string[];
}

/** Listeners told of each launch's run folder and kind: the Runs view reveals the run, the progress follows it. */
const launchedListeners = new Set<(runDir: string, kind: string) => void>();
export function onDidLaunch(listener: (runDir: string, kind: string) => void): vscode.Disposable {
  launchedListeners.add(listener);
  return new vscode.Disposable(() => launchedListeners.delete(listener));
}

export function startRun(extensionState: ExtensionState, client: LanguageClient, kind: 'rollout' | 'eval'): (arg?: unknown) => Promise<void> {
  return async (arg) => {
    const args = startArgsOf(arg);
    const initial = await initialDraft(extensionState, client, kind, args);
    if (initial === undefined) return;
    const run = await review(client, initial);
    if (run === undefined) return;
    await launch(extensionState, client, { mode: 'new', run });
  };
}

export function rerunLast(extensionState: ExtensionState, client: LanguageClient): () => Promise<void> {
  return async () => {
    const last = extensionState.extension.workspaceState.get<LaunchSpec>(lastLaunchKey);
    if (last === undefined) {
      void vscode.window.showInformationMessage('Nothing has been launched from this workspace yet. Start a rollout or an evaluation first.');
      return;
    }
    await launch(extensionState, client, last);
  };
}

/** Runs the default agent on one task of a dataset file (the Tasks view's action). */
export function launchOneTask(file: string, taskId: string): Promise<void> {
  return Promise.resolve(vscode.commands.executeCommand('graphPlanner.startRollout', { taskFiles: [file], tasks: [taskId] })).then(() => undefined);
}

/** A launch that started: its process, run folder, log and command line as shown. */
export type StartedLaunch = Extract<LaunchStartResult, { ok: true }>;

/** Plans, preflights and starts a launch; remembers it for `Re-run Last`. Returns what started, or undefined. */
export async function launch(extensionState: ExtensionState, client: LanguageClient, spec: LaunchSpec): Promise<StartedLaunch | undefined> {
  const plan = await sendRequest(client, launchPlan, spec);
  if (plan.refused !== null) {
    void vscode.window.showErrorMessage(`Graph Planner: ${plan.refused}`);
    return undefined;
  }
  const errors = plan.findings.filter((f) => f.severity === 'error');
  const warnings = plan.findings.filter((f) => f.severity === 'warning');
  if (errors.length > 0) {
    await showBlockedMessage(errors);
    return undefined;
  }
  if (warnings.length > 0) {
    const go = 'Launch Anyway';
    const detail =
      warnings
        .slice(0, 5)
        .map((w) => `• ${w.message}`)
        .join('\n') + (warnings.length > 5 ? `\n… and ${warnings.length - 5} more` : '');
    const choice = await vscode.window.showWarningMessage(
      `The config has ${warnings.length === 1 ? 'a warning' : `${warnings.length} warnings`}.`,
      { modal: true, detail },
      go,
    );
    if (choice !== go) return undefined;
  }
  const started = await sendRequest(client, launchStart, spec);
  if (!started.ok) {
    if (started.findings.some((f) => f.severity === 'error')) await showBlockedMessage(started.findings.filter((f) => f.severity === 'error'));
    else void vscode.window.showErrorMessage(`Graph Planner: ${started.reason}`);
    return undefined;
  }
  await extensionState.extension.workspaceState.update(lastLaunchKey, spec);
  if (spec.mode === 'new' && spec.run.config !== null) await rememberExperiment(extensionState, spec.run.config);
  extensionState.log.info(`Started ${started.display} (pid ${started.pid}); output in ${started.logFile}`);
  for (const listener of launchedListeners) listener(started.runDir, started.kind);
  // A verification's log follows in a terminal, and its results show in the Tasks view, which stays in front.
  if (spec.mode === 'verify') return started;
  // The launch's progress, and the notice when it ends, come from the live runs (launchProgress.ts,
  // runNotices.ts); the command line is in the run's tooltip, not a toast.
  await vscode.commands.executeCommand(`${viewIds.runs}.focus`);
  return started;
}

/**
 * Errors block a launch: the message names the first one in full, with its place, and its buttons
 * open it or the Problems panel, which lists them all.
 */
async function showBlockedMessage(errors: readonly LaunchFinding[]): Promise<void> {
  const goTo = 'Go to Error';
  const problems = 'Show Problems';
  const first = errors[0];
  const fix = first === undefined ? undefined : await firstErrorFix(first);
  // A short label: three buttons share the notice's width, and its message already names the fix (a misspelt key's "Did you mean").
  const fixButton = fix === undefined ? undefined : 'Apply Fix';
  const buttons = first?.file !== null && first?.file !== undefined ? [goTo, problems] : [problems];
  const choice = await vscode.window.showErrorMessage(
    blockedMessage(errors, (p) => vscode.workspace.asRelativePath(p)),
    ...(fixButton === undefined ? [] : [fixButton]),
    ...buttons,
  );
  if (choice === fixButton && fix !== undefined) await applyFix(fix, first);
  if (choice === goTo) await goToFinding(first);
  if (choice === problems) await vscode.commands.executeCommand('workbench.actions.view.problems');
}

/** How long a blocked launch's notice waits for the editor to check a config it had not opened, so its fix can be offered. */
const fixWaitMs = 1500;

/**
 * The editor's preferred quick fix for the first error (a misspelt key's rename, a sign flipped),
 * asked of the language server as the light bulb asks; undefined when it offers none. A config the
 * editor has not opened is opened (not shown) and given a moment to be checked.
 */
async function firstErrorFix(finding: LaunchFinding): Promise<vscode.CodeAction | undefined> {
  if (finding.file === null || finding.line === null) return undefined;
  const line = finding.line;
  try {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(finding.file));
    const diagnostic = () => vscode.languages.getDiagnostics(document.uri).find((d) => isFinding(d, line, finding.message));
    const deadline = Date.now() + fixWaitMs;
    while (diagnostic() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const range = diagnostic()?.range;
    if (range === undefined) return undefined;
    const actions =
      (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[] | undefined>(
        'vscode.executeCodeActionProvider',
        document.uri,
        range,
        vscode.CodeActionKind.QuickFix.value,
      )) ?? [];
    return preferredFix(actions, line, finding.message);
  } catch {
    // No fix is offered: the notice still has Go to Error.
    return undefined;
  }
}

/** Applies the fix as the light bulb would and shows the config at its place, unsaved, for the person to check and save. */
async function applyFix(fix: vscode.CodeAction, finding: LaunchFinding | undefined): Promise<void> {
  if (fix.edit !== undefined && !(await vscode.workspace.applyEdit(fix.edit))) {
    void vscode.window.showErrorMessage(`The editor refused the fix "${fix.title}"; Go to Error shows the line.`);
    return;
  }
  if (fix.command !== undefined) await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
  await goToFinding(finding);
}

function startArgsOf(arg: unknown): StartArgs {
  if (arg instanceof vscode.Uri) return { config: arg };
  if (typeof arg === 'object' && arg !== null) {
    const a = arg as Record<string, unknown>;
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
    return {
      ...(a['config'] instanceof vscode.Uri ? { config: a['config'] } : {}),
      taskFiles: strings(a['taskFiles']) ?? [],
      tasks: strings(a['tasks']) ?? [],
    };
  }
  return {};
}

/**
 * The launch as first shown: the config given, else the open experiment, else the last launched,
 * else the sample (launchDefaults.ts); the datasets given, else the one the config names.
 */
async function initialDraft(
  extensionState: ExtensionState,
  client: LanguageClient,
  kind: 'rollout' | 'eval',
  args: StartArgs,
): Promise<NewRunLaunch | undefined> {
  const configUri = args.config ?? (await startingExperiment(extensionState));
  const folder = (configUri && vscode.workspace.getWorkspaceFolder(configUri)) ?? vscode.workspace.workspaceFolders?.[0];
  if (folder === undefined) {
    void vscode.window.showInformationMessage('Open a folder first: a run writes its files under the workspace.');
    return undefined;
  }
  const named = configUri === undefined ? undefined : await experimentDataset(client, configUri, folder.uri.fsPath, await listedDatasets(client));
  const datasets = args.taskFiles?.length ? [...args.taskFiles] : named === undefined ? [] : [named.path];
  // Values left null come from the config, so the command line carries only what the person changed.
  return {
    kind,
    config: configUri?.fsPath ?? null,
    taskFiles: datasets,
    tasks: [...(args.tasks ?? [])],
    agent: null,
    backend: null,
    parallel: null,
    attempts: null,
    sets: [],
    cwd: folder.uri.fsPath,
  };
}

type ReviewItem = vscode.QuickPickItem & { readonly row?: ReviewRow };

/** What the server says of a draft: its plan (values and findings) and which of its tasks cannot run. */
async function reviewState(
  client: LanguageClient,
  draft: NewRunLaunch,
): Promise<{ plan: LaunchPlanResult | undefined; preflight: TaskPreflightResult | undefined; backend: string }> {
  if (draft.taskFiles.length === 0) return { plan: undefined, preflight: undefined, backend: '' };
  const plan = await sendRequest(client, launchPlan, { mode: 'new', run: draft });
  const backendValue = plan.values?.backend;
  // A backend with an error is not one a run would use; its tasks are preflighted once it is fixed.
  const backend = backendValue === undefined || backendValue.error !== null ? undefined : backendValue.value;
  if (!isBackendChoice(backend)) return { plan, preflight: undefined, backend: '' };
  try {
    const preflight = await sendRequest(client, taskPreflight, { taskFiles: draft.taskFiles, tasks: draft.tasks, backend });
    return { plan, preflight, backend };
  } catch {
    // The review still works without it; the launch's own sandboxes will say what is wrong.
    return { plan, preflight: undefined, backend };
  }
}

/**
 * One list: the config's errors first (each opens its place), Enter on the start row starts (or,
 * while there are errors, says the first one in full with a button to it), the tasks that cannot
 * run are one row that lists them, and any other line changes that value and comes back. The
 * values shown are the ones the run will get, as the server resolves them (launchReviewRows.ts).
 */
async function review(client: LanguageClient, initial: NewRunLaunch): Promise<NewRunLaunch | undefined> {
  let draft = initial;
  for (;;) {
    const rel = (p: string) => vscode.workspace.asRelativePath(p);
    const state = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Checking the launch…' }, () =>
      reviewState(client, draft),
    );
    const rows = reviewRows({ draft, plan: state.plan, preflight: state.preflight, preflightBackend: state.backend, rel });
    const items: ReviewItem[] = rows.map((row) =>
      row.kind === 'separator'
        ? { label: row.label, kind: vscode.QuickPickItemKind.Separator }
        : { label: row.label, description: row.description, ...('detail' in row && row.detail !== undefined ? { detail: row.detail } : {}), row },
    );
    const picked = await vscode.window.showQuickPick(items, {
      title: `Graph Planner: ${draft.kind === 'eval' ? 'Start Evaluation' : 'Start Rollout'}`,
      placeHolder: 'Enter starts; choose a line to change it',
      ignoreFocusOut: true,
      matchOnDescription: true,
    });
    const row = picked?.row;
    if (row === undefined) return undefined;
    const errors = state.plan?.findings.filter((f) => f.severity === 'error') ?? [];
    switch (row.kind) {
      case 'error':
        await goToFinding(row.finding);
        return undefined;
      case 'more-errors':
        await goToFinding(errors[0]);
        await vscode.commands.executeCommand('workbench.actions.view.problems');
        return undefined;
      case 'start':
        if (row.blocked) {
          void showBlockedMessage(errors);
          return undefined;
        }
        if (draft.taskFiles.length === 0) {
          draft = (await chooseDatasets(client, draft)) ?? draft;
          continue;
        }
        return draft;
      case 'preflight':
        if (await showBlockedTasks(row.blocked, state.backend)) return undefined;
        continue;
      case 'value':
        draft = (await editValue(client, row.key, draft)) ?? draft;
        continue;
      case 'separator':
        continue;
    }
  }
}

function editValue(client: LanguageClient, key: ValueKey, draft: NewRunLaunch): Promise<NewRunLaunch | undefined> {
  switch (key) {
    case 'config':
      return chooseConfig(client, draft);
    case 'dataset':
      return chooseDatasets(client, draft);
    case 'agent':
      return pickEnum(draft, 'agent', agentNames, 'The agent that acts in each episode');
    case 'backend':
      return pickEnum(draft, 'backend', sandboxBackendChoices, 'Where episodes run: Docker sandboxes, or a local working copy');
    case 'parallel':
      return askInt(draft, 'parallel', 'Episodes at once');
    case 'attempts':
      return askInt(draft, 'attempts', 'Attempts per task');
    case 'sets':
      return askSets(draft);
  }
}

/** Opens a finding's file at its place (a config finding, or the first error of a run's log); a finding on a flag has no place. */
export async function goToFinding(finding: Pick<LaunchFinding, 'file' | 'line' | 'character'> | undefined): Promise<void> {
  if (finding?.file === null || finding?.file === undefined) return;
  const position = new vscode.Position(finding.line ?? 0, finding.character ?? 0);
  await vscode.window.showTextDocument(vscode.Uri.file(finding.file), { selection: new vscode.Range(position, position), preview: false });
}

/** The tasks that cannot run, one per line with the reason; choosing one opens its line. True when one was opened. */
async function showBlockedTasks(blocked: readonly BlockedTask[], backend: string): Promise<boolean> {
  const picked = await vscode.window.showQuickPick(
    blocked.map((b) => ({
      label: `$(circle-slash) ${visibleLine(b.taskId)}`,
      description: `${vscode.workspace.asRelativePath(b.file)}:${b.line + 1}`,
      detail: visibleLine(b.readiness.problem?.reason ?? ''),
      task: b,
    })),
    {
      title: `Tasks that cannot run on ${backend}`,
      placeHolder: 'Choose a task to open its line; Escape goes back to the launch',
      matchOnDescription: true,
      matchOnDetail: true,
    },
  );
  if (picked === undefined) return false;
  const position = new vscode.Position(picked.task.line, 0);
  await vscode.window.showTextDocument(vscode.Uri.file(picked.task.file), { selection: new vscode.Range(position, position), preview: false });
  return true;
}

async function chooseConfig(client: LanguageClient, draft: NewRunLaunch): Promise<NewRunLaunch | undefined> {
  const listed = await listedDatasets(client);
  const config = await pickExperiment(client, listed, {
    title: 'Experiment config',
    placeHolder: 'The YAML whose settings the run uses; each with the dataset it names',
    current: draft.config,
    withDefaults: true,
    cwd: draft.cwd,
  });
  if (config === undefined) return undefined;
  // The dataset follows the experiment; the tasks chosen in the old dataset go with it.
  const named = config === null ? undefined : await experimentDataset(client, vscode.Uri.file(config), draft.cwd, listed);
  const taskFiles = datasetsAfterExperimentChange(draft.taskFiles, named);
  const sameFiles = taskFiles.length === draft.taskFiles.length && taskFiles.every((f, i) => f === draft.taskFiles[i]);
  // A new config brings its own values: earlier choices made against the old one are dropped.
  return { ...draft, config, taskFiles, tasks: sameFiles ? draft.tasks : [], agent: null, backend: null, parallel: null, attempts: null };
}

async function chooseDatasets(client: LanguageClient, draft: NewRunLaunch): Promise<NewRunLaunch | undefined> {
  const picked = await pickDatasets(await listedDatasets(client), {
    title: 'Datasets',
    placeHolder: 'The task files to run',
    chosen: draft.taskFiles,
    many: true,
  });
  return picked === undefined ? undefined : { ...draft, taskFiles: picked, tasks: [] };
}

/** Whether a launch value is a backend the preflight can be asked about (one of the one list's, or `auto`). */
function isBackendChoice(value: unknown): value is 'auto' | OpenedBackendName {
  return (sandboxBackendChoices as readonly unknown[]).includes(value);
}

async function pickEnum<K extends 'agent' | 'backend'>(
  draft: NewRunLaunch,
  key: K,
  values: readonly NonNullable<NewRunLaunch[K]>[],
  title: string,
): Promise<NewRunLaunch | undefined> {
  const picked = await vscode.window.showQuickPick([{ label: 'from the config', value: null }, ...values.map((v) => ({ label: v, value: v }))], { title });
  return picked === undefined ? undefined : { ...draft, [key]: picked.value };
}

async function askInt(draft: NewRunLaunch, key: 'parallel' | 'attempts', title: string): Promise<NewRunLaunch | undefined> {
  const value = await vscode.window.showInputBox({
    title,
    value: draft[key] === null ? '' : String(draft[key]),
    prompt: 'A whole number of at least 1; empty takes the config value',
    validateInput: (v) => (v.trim() === '' || /^[1-9]\d*$/.test(v.trim()) ? undefined : 'Enter a whole number of at least 1, or nothing.'),
  });
  if (value === undefined) return undefined;
  return { ...draft, [key]: value.trim() === '' ? null : Number(value.trim()) };
}

async function askSets(draft: NewRunLaunch): Promise<NewRunLaunch | undefined> {
  const value = await vscode.window.showInputBox({
    title: 'Overrides',
    value: draft.sets.join(' '),
    prompt: 'KEY=VALUE pairs separated by spaces, as gp --set takes them (for example env.max_steps=8 rollout.parallel=2)',
    validateInput: (v) => {
      const bad = v.split(/\s+/).filter((p) => p !== '' && !/^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*=/.test(p));
      return bad.length === 0 ? undefined : `Not KEY=VALUE: ${bad.join(' ')}`;
    },
  });
  if (value === undefined) return undefined;
  return { ...draft, sets: value.split(/\s+/).filter((p) => p !== '') };
}
