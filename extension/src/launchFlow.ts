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
import { parse } from 'yaml';
import { fileKindOf } from './activeFileKind.js';
import { viewIds } from './contributions.js';
import type { Ctx } from './ctx.js';
import { documentSelectorGlobs } from './launchFiles.js';
import { launchPlan, launchStart, resolvedConfig, type LaunchFinding, type LaunchSpec, type LaunchStartResult, type NewRunLaunch } from './serverMessages.js';

const lastLaunchKey = 'graphPlanner.lastLaunch';

/** What a view or the code lens may hand `Start Rollout…`: a config file, or tasks to run. */
interface StartArgs {
  readonly config?: vscode.Uri;
  readonly taskFiles?: readonly string[];
  readonly tasks?: readonly string[];
}

/** Listeners the Runs view registers to reveal a run once it appears. */
const launchedListeners = new Set<(runDir: string) => void>();
export function onDidLaunch(listener: (runDir: string) => void): vscode.Disposable {
  launchedListeners.add(listener);
  return new vscode.Disposable(() => launchedListeners.delete(listener));
}

export function startRun(ctx: Ctx, client: LanguageClient, kind: 'rollout' | 'eval'): (arg?: unknown) => Promise<void> {
  return async (arg) => {
    const args = startArgsOf(arg);
    const initial = await initialDraft(client, kind, args);
    if (initial === undefined) return;
    const run = await review(client, initial.draft, initial.values);
    if (run === undefined) return;
    await launch(ctx, client, { mode: 'new', run });
  };
}

export function rerunLast(ctx: Ctx, client: LanguageClient): () => Promise<void> {
  return async () => {
    const last = ctx.extension.workspaceState.get<LaunchSpec>(lastLaunchKey);
    if (last === undefined) {
      void vscode.window.showInformationMessage('Nothing has been launched from this workspace yet. Start a rollout or an evaluation first.');
      return;
    }
    await launch(ctx, client, last);
  };
}

/** Runs the default agent on one task of a dataset file (the Tasks view's action). */
export function launchOneTask(file: string, taskId: string): Promise<void> {
  return Promise.resolve(vscode.commands.executeCommand('graphPlanner.startRollout', { taskFiles: [file], tasks: [taskId] })).then(() => undefined);
}

/** A launch that started: its process, run folder, log and command line as shown. */
export type StartedLaunch = Extract<LaunchStartResult, { ok: true }>;

/** Plans, preflights and starts a launch; remembers it for `Re-run Last`. Returns what started, or undefined. */
export async function launch(ctx: Ctx, client: LanguageClient, spec: LaunchSpec): Promise<StartedLaunch | undefined> {
  const plan = await client.sendRequest(launchPlan, spec);
  if (plan.refused !== null) {
    void vscode.window.showErrorMessage(`Graph Planner: ${plan.refused}`);
    return undefined;
  }
  const errors = plan.findings.filter((f) => f.severity === 'error');
  const warnings = plan.findings.filter((f) => f.severity === 'warning');
  if (errors.length > 0) {
    await showBlocked(errors);
    return undefined;
  }
  if (warnings.length > 0) {
    const go = 'Launch Anyway';
    const detail = warnings.slice(0, 5).map((w) => `• ${w.message}`).join('\n') + (warnings.length > 5 ? `\n… and ${warnings.length - 5} more` : '');
    const choice = await vscode.window.showWarningMessage(`The config has ${warnings.length === 1 ? 'a warning' : `${warnings.length} warnings`}.`, { modal: true, detail }, go);
    if (choice !== go) return undefined;
  }
  const started = await client.sendRequest(launchStart, spec);
  if (!started.ok) {
    if (started.findings.some((f) => f.severity === 'error')) await showBlocked(started.findings.filter((f) => f.severity === 'error'));
    else void vscode.window.showErrorMessage(`Graph Planner: ${started.reason}`);
    return undefined;
  }
  await ctx.extension.workspaceState.update(lastLaunchKey, spec);
  ctx.log.info(`Started ${started.display} (pid ${started.pid}); output in ${started.logFile}`);
  for (const listener of launchedListeners) listener(started.runDir);
  // A verification's log follows in a terminal, and its results show in the Tasks view, which stays in front.
  if (spec.mode === 'verify') return started;
  await vscode.commands.executeCommand(`${viewIds.runs}.focus`);
  const showLog = 'Show Log';
  void vscode.window.showInformationMessage(`Started ${started.display.length > 120 ? `${started.display.slice(0, 117)}…` : started.display}`, showLog).then((choice) => {
    if (choice === showLog) void vscode.window.showTextDocument(vscode.Uri.file(started.logFile), { preview: true });
  });
  return started;
}

/** Errors block a launch: the first one is shown in its file and the Problems panel lists them all. */
async function showBlocked(errors: readonly LaunchFinding[]): Promise<void> {
  const first = errors[0];
  if (first?.file !== null && first?.file !== undefined) {
    const position = new vscode.Position(first.line ?? 0, first.character ?? 0);
    await vscode.window.showTextDocument(vscode.Uri.file(first.file), { selection: new vscode.Range(position, position), preview: false });
  }
  await vscode.commands.executeCommand('workbench.actions.view.problems');
  const where = first?.flag !== null && first?.flag !== undefined ? ` (${first.flag})` : '';
  void vscode.window.showErrorMessage(`Launch blocked: the config has ${errors.length === 1 ? 'an error' : `${errors.length} errors`}. First: ${first?.message ?? ''}${where}`);
}

function startArgsOf(arg: unknown): StartArgs {
  if (arg instanceof vscode.Uri) return { config: arg };
  if (typeof arg === 'object' && arg !== null) {
    const a = arg as Record<string, unknown>;
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
    return { ...(a['config'] instanceof vscode.Uri ? { config: a['config'] } : {}), taskFiles: strings(a['taskFiles']) ?? [], tasks: strings(a['tasks']) ?? [] };
  }
  return {};
}

/** The launch as first shown: the config given, else the active experiment, else the first one; values from the config. */
async function initialDraft(client: LanguageClient, kind: 'rollout' | 'eval', args: StartArgs): Promise<{ draft: NewRunLaunch; values: ConfigValues } | undefined> {
  const active = vscode.window.activeTextEditor?.document;
  const configUri = args.config ?? (active !== undefined && fileKindOf(active) === 'experiment' ? active.uri : (await workspaceFiles('experiment'))[0]);
  const folder = (configUri && vscode.workspace.getWorkspaceFolder(configUri)) ?? vscode.workspace.workspaceFolders?.[0];
  if (folder === undefined) {
    void vscode.window.showInformationMessage('Open a folder first: a run writes its files under the workspace.');
    return undefined;
  }
  const values = configUri === undefined ? {} : await configValues(client, configUri, folder.uri);
  const datasets = args.taskFiles?.length ? [...args.taskFiles] : values.dataset !== undefined ? [values.dataset] : (await workspaceFiles('dataset')).slice(0, 1).map((u) => u.fsPath);
  // Values left null come from the config, so the command line carries only what the person changed.
  const draft: NewRunLaunch = { kind, config: configUri?.fsPath ?? null, taskFiles: datasets, tasks: [...(args.tasks ?? [])], agent: null, backend: null, parallel: null, attempts: null, sets: [], cwd: folder.uri.fsPath };
  return { draft, values };
}

/** What the review shows for a value: the person's choice, or the config's value marked as such. */
function shown(value: string | number | null, fromConfig: string | number | undefined): string {
  if (value !== null) return String(value);
  return fromConfig === undefined ? 'from the config' : `${fromConfig} (from the config)`;
}

interface ConfigValues {
  agent?: 'rule' | 'model';
  backend?: 'auto' | 'docker' | 'local';
  parallel?: number;
  attempts?: number;
  dataset?: string;
}

/**
 * The values the resolved config gives, to pre-fill the review (the server merges defaults). A
 * relative dataset path resolves against `cwd`, the folder the run is launched in, as `gp` resolves it.
 */
async function configValues(client: LanguageClient, uri: vscode.Uri, cwd: vscode.Uri): Promise<ConfigValues> {
  try {
    const result = await client.sendRequest(resolvedConfig, { uri: client.code2ProtocolConverter.asUri(uri) });
    if (result.yaml === null) return {};
    const c = parse(result.yaml) as { rollout?: { agent?: unknown; parallel?: unknown; attempts?: unknown }; sandbox?: { backend?: unknown }; paths?: { dataset_train?: unknown } };
    const out: ConfigValues = {};
    if (c.rollout?.agent === 'rule' || c.rollout?.agent === 'model') out.agent = c.rollout.agent;
    if (c.sandbox?.backend === 'auto' || c.sandbox?.backend === 'docker' || c.sandbox?.backend === 'local') out.backend = c.sandbox.backend;
    if (typeof c.rollout?.parallel === 'number') out.parallel = c.rollout.parallel;
    if (typeof c.rollout?.attempts === 'number') out.attempts = c.rollout.attempts;
    // The defaults' dataset is a placeholder; only a file that exists is offered.
    if (typeof c.paths?.dataset_train === 'string' && c.paths.dataset_train.endsWith('.jsonl')) {
      const dataset = c.paths.dataset_train.startsWith('/') ? vscode.Uri.file(c.paths.dataset_train) : vscode.Uri.joinPath(cwd, c.paths.dataset_train);
      try {
        await vscode.workspace.fs.stat(dataset);
        out.dataset = dataset.fsPath;
      } catch {
        // Not there: the person picks a dataset.
      }
    }
    return out;
  } catch {
    return {};
  }
}

export async function workspaceFiles(kind: 'experiment' | 'dataset'): Promise<vscode.Uri[]> {
  const found = await Promise.all(documentSelectorGlobs(kind).map((g) => vscode.workspace.findFiles(g, '**/{node_modules,.git,outputs}/**', 200)));
  const unique = new Map(found.flat().map((u) => [u.fsPath, u]));
  return [...unique.values()].sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}

type ReviewItem = vscode.QuickPickItem & { readonly edit?: (draft: NewRunLaunch) => Promise<NewRunLaunch | undefined> };

/** One list: Enter on the first line starts; any other line changes that value and comes back. */
async function review(client: LanguageClient, initial: NewRunLaunch, initialValues: ConfigValues): Promise<NewRunLaunch | undefined> {
  let draft = initial;
  let values = initialValues;
  for (;;) {
    const rel = (p: string) => vscode.workspace.asRelativePath(p);
    const items: ReviewItem[] = [
      {
        label: `$(play) Start ${draft.kind === 'eval' ? 'evaluation' : 'rollout'}`,
        description: draft.taskFiles.length === 0 ? 'pick a dataset first' : '',
        detail: `${draft.taskFiles.map(rel).join(', ')}${draft.tasks.length > 0 ? ` · tasks ${draft.tasks.join(', ')}` : ''}`,
      },
      { label: 'Config', kind: vscode.QuickPickItemKind.Separator },
      {
        label: '$(settings-gear) Experiment',
        description: draft.config === null ? '(defaults, no YAML)' : rel(draft.config),
        edit: async (d) => {
          const next = await pickConfig(d);
          if (next !== undefined) values = next.config === null ? {} : await configValues(client, vscode.Uri.file(next.config), vscode.Uri.file(next.cwd));
          return next;
        },
      },
      { label: '$(database) Dataset', description: draft.taskFiles.length === 0 ? 'none' : draft.taskFiles.map(rel).join(', '), edit: pickDatasets },
      { label: '$(hubot) Agent', description: shown(draft.agent, values.agent), edit: (d) => pickEnum(d, 'agent', ['rule', 'model'], 'The agent that acts in each episode') },
      { label: '$(server-environment) Backend', description: shown(draft.backend, values.backend), edit: (d) => pickEnum(d, 'backend', ['auto', 'docker', 'local'], 'Where episodes run: Docker sandboxes, or a local working copy') },
      { label: '$(layers) Parallel episodes', description: shown(draft.parallel, values.parallel), edit: (d) => askInt(d, 'parallel', 'Episodes at once') },
      ...(draft.kind === 'rollout' ? [{ label: '$(repo-forked) Attempts per task', description: shown(draft.attempts, values.attempts), edit: (d: NewRunLaunch) => askInt(d, 'attempts', 'Attempts per task') }] : []),
      { label: '$(edit) Overrides (--set)', description: draft.sets.length === 0 ? 'none' : draft.sets.join(' '), edit: askSets },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: `Graph Planner: ${draft.kind === 'eval' ? 'Start Evaluation' : 'Start Rollout'}`,
      placeHolder: 'Enter starts; choose a line to change it',
      ignoreFocusOut: true,
    });
    if (picked === undefined) return undefined;
    if (picked.edit === undefined) {
      if (draft.taskFiles.length === 0) {
        const next = await pickDatasets(draft);
        if (next === undefined) continue;
        draft = next;
        continue;
      }
      return draft;
    }
    draft = (await picked.edit(draft)) ?? draft;
  }
}

async function pickConfig(draft: NewRunLaunch): Promise<NewRunLaunch | undefined> {
  const files = await workspaceFiles('experiment');
  const items = [{ label: '(defaults)', description: 'no experiment YAML', path: null as string | null }, ...files.map((u) => ({ label: vscode.workspace.asRelativePath(u), description: '', path: u.fsPath as string | null }))];
  const picked = await vscode.window.showQuickPick(items, { title: 'Experiment config', placeHolder: 'The YAML whose settings the run uses' });
  if (picked === undefined) return undefined;
  // A new config brings its own values: earlier choices made against the old one are dropped.
  return { ...draft, config: picked.path, agent: null, backend: null, parallel: null, attempts: null };
}

async function pickDatasets(draft: NewRunLaunch): Promise<NewRunLaunch | undefined> {
  const files = await workspaceFiles('dataset');
  if (files.length === 0) {
    void vscode.window.showInformationMessage('No dataset JSONL matches graphPlanner.datasetGlobs in this workspace.');
    return undefined;
  }
  const chosen = new Set(draft.taskFiles);
  const items = files.map((u) => ({ label: vscode.workspace.asRelativePath(u), path: u.fsPath, picked: chosen.has(u.fsPath) }));
  const picked = await vscode.window.showQuickPick(items, { title: 'Datasets', placeHolder: 'The task files to run', canPickMany: true });
  if (picked === undefined || picked.length === 0) return undefined;
  return { ...draft, taskFiles: picked.map((p) => p.path), tasks: [] };
}

async function pickEnum<K extends 'agent' | 'backend'>(draft: NewRunLaunch, key: K, values: readonly NonNullable<NewRunLaunch[K]>[], title: string): Promise<NewRunLaunch | undefined> {
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
