/**
 * What a replay of a recorded episode needs, found from its run folder: the config the run used
 * (`resolved_config.yaml`), the task (from the task files `launch.json` recorded, or the file the
 * person names), and the parts of an episode on the backend the episode ran on. A replay records
 * nothing in the run: no test runs, no pre-images.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseConfigFlags } from '../config/index.js';
import { openPlannerEnv } from '../env/index.js';
import type { PlannedTask, ReplayDeps } from '../rollout/index.js';
import { readLaunchRecord, runLayout } from '../runs/index.js';
import { runDirOfTrajectory, type EpisodeModel } from '../episodes/index.js';
import { openSandbox, sandboxSpecForTask } from '../sandbox/index.js';
import { envOptionsFromConfig } from './envOptions.js';
import { loadConfig } from './loadConfig.js';
import { loadRolloutTasks } from './rolloutTasks.js';
import { rolloutOptions } from './rolloutFlags.js';
import { sandboxOptionsFromConfig } from './sandboxOptions.js';

export interface ReplayRequest {
  readonly trajectory: string;
  readonly model: EpisodeModel;
  /** A task file to find the task in, instead of the ones the run recorded. */
  readonly tasksFile: string | undefined;
  readonly cwd: string;
}

export type ReplaySetup =
  { readonly ok: true; readonly task: PlannedTask; readonly deps: ReplayDeps; readonly configFile: string } | { readonly ok: false; readonly message: string };

export async function replaySetup(request: ReplayRequest): Promise<ReplaySetup> {
  const { model } = request;
  const taskId = model.start?.task_id ?? model.end?.task_id;
  if (model.start === undefined || taskId === undefined) return { ok: false, message: `${request.trajectory} has no start line; there is nothing to replay.` };
  const runDir = runDirOfTrajectory(request.trajectory);
  const layout = runLayout(runDir);
  const launch = await readLaunchRecord(layout.launch);
  const cwd = launch.ok ? launch.record.cwd : request.cwd;
  let files: string[];
  if (request.tasksFile !== undefined) files = [request.tasksFile];
  else if (launch.ok && launch.record.command !== 'train') files = taskFilesOf(launch.record.args);
  // A training run's record names its config first and its tasks by flag: the task file is asked for, as before it kept one.
  else return { ok: false, message: `${runDir} has ${launch.ok ? 'a training run’s launch record' : launch.reason}; name the task file with --tasks FILE.` };
  if (!existsSync(layout.resolvedConfig))
    return {
      ok: false,
      message: `${runDir} has no resolved_config.yaml, so the config of the run is unknown; only run folders written by gp rollout or gp eval (which write it) can be replayed.`,
    };
  // The run's own config, on the backend the episode ran on: a replay compares like with like. A
  // recording whose hints did not use embeddings is replayed without them too, even where the model
  // is installed now (one that did use them diverges, saying so, where the model is missing).
  const recordedEmbeddings = model.start.observation.hint_retrievers?.includes('embeddings') === true;
  const overrides = [
    { flag: `recorded backend ${model.start.backend}`, path: ['sandbox', 'backend'], value: model.start.backend },
    ...(recordedEmbeddings ? [] : [{ flag: 'recorded hints without embeddings', path: ['env', 'semantic_search'], value: 'off' }]),
  ];
  const configLoad = await loadConfig({
    file: layout.resolvedConfig,
    flags: { configFile: undefined, yamlOnly: false, printConfig: false, overrides },
    cwd,
    disk: false,
  });
  if (configLoad.kind === 'unreadable') return { ok: false, message: `${configLoad.file}: ${configLoad.message}` };
  const config = configLoad.resolution.config;
  if (config === undefined)
    return {
      ok: false,
      message: `${layout.resolvedConfig} does not resolve: ${configLoad.resolution.findings.find((f) => f.severity === 'error')?.message ?? 'errors'}`,
    };
  const loaded = await loadRolloutTasks({
    files,
    taskIds: [taskId],
    limit: undefined,
    cwd: request.tasksFile === undefined ? cwd : request.cwd,
    command: 'gp trajectory replay',
    allowedMountRoots: config.sandbox.allowed_mount_roots,
  });
  if (!loaded.ok) return { ok: false, message: loaded.problems.join('\n') };
  const task = loaded.tasks[0];
  if (task === undefined) return { ok: false, message: `no task ${taskId} in ${files.join(', ')}.` };
  const sandboxOptions = sandboxOptionsFromConfig(config.sandbox, `replay-${Date.now()}`);
  return {
    ok: true,
    task,
    configFile: layout.resolvedConfig,
    deps: {
      openSandbox: (planned) => openSandbox(sandboxSpecForTask(planned.task, { ...sandboxOptions, baseDir: planned.baseDir })),
      envOptions: (t) => envOptionsFromConfig(config, t),
      openEnv: openPlannerEnv,
    },
  };
}

/** The task files (the positional arguments) of a recorded `gp rollout` or `gp eval` command line. */
export function taskFilesOf(args: readonly string[]): string[] {
  const rest = parseConfigFlags(args).rest;
  return parseArgs({ args: [...rest], options: rolloutOptions, allowPositionals: true, strict: false }).positionals;
}
