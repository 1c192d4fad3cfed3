/**
 * A fork of a recorded episode (`gp trajectory fork`, the viewer's *Continue from Here…*): the
 * `gp rollout` command line that runs it, and the prefix each of its episodes replays first.
 *
 * A fork is a rollout of the parent's one task, `count` attempts, under the parent run's own
 * `resolved_config.yaml` (or a config the person names) on the backend the parent ran on, with
 * `--fork-of FILE --fork-step N`: every episode replays the parent's steps 1..N−1, checked
 * against the recording as `gp trajectory replay` checks them, then goes on live. Being a rollout,
 * it is resumed and re-launched like any other, from its launch record.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { TrajectoryFork } from '../protocol/runs.js';
import { buildEpisodeModel, runDirOfTrajectory, type EpisodeModel } from '../episodes/index.js';
import type { ForkPrefix } from '../rollout/index.js';
import { readLaunchRecord, readTrajectory, runLayout } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';
import { compactUtcStamp } from '../util/time.js';
import { taskFilesOf } from './replaySetup.js';
import { unusedFolder } from './runFolder.js';

/** What a fork asks for, as the CLI's flags or the editor's pickers give it. */
export interface ForkRequest {
  /** The parent's trajectory file (absolute, or relative to `cwd`). */
  readonly trajectory: string;
  /** The first step taken live (1-based). */
  readonly step: number;
  /** Continuations at once (`--attempts`). */
  readonly count: number;
  /** The agent of the continuation; undefined keeps the parent run's. */
  readonly agent?: string | undefined;
  /** A config instead of the parent run's `resolved_config.yaml`. */
  readonly config?: string | undefined;
  /** `--set KEY=VALUE` overrides, each as `KEY=VALUE`, applied after the fork's own. */
  readonly sets?: readonly string[];
  /** The task file to find the parent's task in, instead of the ones its run recorded. */
  readonly tasksFile?: string | undefined;
  /** The fork's run folder; undefined plans one beside the parent's run folder. */
  readonly runDir?: string | undefined;
  readonly cwd: string;
  readonly now: Date;
}

export type ForkArgs =
  | {
      readonly ok: true;
      /** The `gp rollout` arguments (without `rollout`). */
      readonly args: string[];
      readonly runDir: string;
      readonly parent: TrajectoryFork;
      readonly taskId: string;
    }
  | { readonly ok: false; readonly message: string };

/** `p` relative to `cwd` when it is inside it, as a person types it; absolute otherwise. */
function shownPath(cwd: string, p: string): string {
  const rel = relative(cwd, p);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
}

/** The steps a fork may start live at: 1..the last recorded step, or one past it when the recording stopped before its end. */
export function forkableSteps(model: EpisodeModel): { readonly first: number; readonly last: number } {
  const lastRecorded = model.steps.at(-1);
  const open = lastRecorded === undefined || (!lastRecorded.record.done && model.end === undefined);
  return { first: 1, last: model.steps.length + (open ? 1 : 0) };
}

/**
 * The prefix a fork's episodes replay: the parent's reset observation and its steps before `step`.
 * A refusal says why in a sentence that names the file and the step.
 */
export function forkPrefix(model: EpisodeModel, trajectory: string, step: number): { ok: true; prefix: ForkPrefix } | { ok: false; message: string } {
  if (model.start === undefined) return { ok: false, message: `${trajectory} has no start line, so there is no episode to continue.` };
  // A line that did not parse may be a step of the prefix: replaying around it would not be the parent.
  const problem = model.problems[0];
  if (problem !== undefined) return { ok: false, message: `${trajectory}: ${problem}; a fork replays the recording as it is, so it must read whole.` };
  const { first, last } = forkableSteps(model);
  if (!Number.isInteger(step) || step < first || step > last)
    return {
      ok: false,
      message:
        last < first
          ? `${trajectory} records no step to continue from.`
          : `--step ${step} is not a step of ${trajectory}: it can be continued from step ${first}${last > first ? ` to ${last}` : ''}.`,
    };
  const steps = model.steps.slice(0, step - 1).map((v) => v.record);
  const unreplayable = steps.find((r) => r.action === undefined && r.protocol_error === undefined);
  if (unreplayable !== undefined)
    return { ok: false, message: `step ${unreplayable.step} of ${trajectory} records no action, so the steps before ${step} cannot be replayed.` };
  const runDir = runDirOfTrajectory(resolve(trajectory));
  return {
    ok: true,
    prefix: {
      parent: { run: runDir, episode_id: model.start.episode_id, trajectory: resolve(trajectory), step },
      taskId: model.start.task_id,
      reset: model.start.observation,
      steps,
    },
  };
}

/** The parent episode of a fork, read from its trajectory file; a refusal names the file and why. */
export async function readForkParent(trajectory: string): Promise<{ ok: true; model: EpisodeModel } | { ok: false; message: string }> {
  let read;
  try {
    read = await readTrajectory(trajectory);
  } catch (error) {
    return { ok: false, message: `${trajectory} cannot be read: ${errorMessage(error)}.` };
  }
  // Read from a launch record or the editor, the file was there when it was named.
  if (read === undefined) return { ok: false, message: `${trajectory} does not exist any more.` };
  return { ok: true, model: buildEpisodeModel(read) };
}

/** The prefix of `--fork-of FILE --fork-step N`, read from the file. */
export async function loadForkPrefix(trajectory: string, step: number): Promise<{ ok: true; prefix: ForkPrefix } | { ok: false; message: string }> {
  const parent = await readForkParent(trajectory);
  return parent.ok ? forkPrefix(parent.model, trajectory, step) : parent;
}

/**
 * The rollout command line of a fork. The parent's task comes from the task files its launch record
 * names (or `tasksFile`); its config is the run's `resolved_config.yaml` on the recorded backend,
 * with hints without embeddings where the recording had none (as a replay does), unless the
 * request names its own config.
 */
export async function forkRolloutArgs(request: ForkRequest, model: EpisodeModel): Promise<ForkArgs> {
  const trajectory = resolve(request.cwd, request.trajectory);
  const prefix = forkPrefix(model, trajectory, request.step);
  if (!prefix.ok) return prefix;
  const start = model.start;
  if (start === undefined) return { ok: false, message: `${trajectory} has no start line.` };
  const parentRun = prefix.prefix.parent.run;
  const layout = runLayout(parentRun);
  let taskFile: string;
  if (request.tasksFile !== undefined) taskFile = resolve(request.cwd, request.tasksFile);
  else {
    const launch = await readLaunchRecord(layout.launch);
    if (!launch.ok) return { ok: false, message: `${parentRun} has ${launch.reason}; name the task file with --tasks FILE.` };
    const files = launch.record.command === 'train' ? [] : taskFilesOf(launch.record.args).map((f) => resolve(launch.record.cwd, f));
    const found = files[0];
    if (found === undefined) return { ok: false, message: `${parentRun}'s launch record names no task file; name it with --tasks FILE.` };
    // A task id is unique within a run, so the first file that exists stands for all of them.
    taskFile = files.find((f) => existsSync(f)) ?? found;
  }
  if (!existsSync(taskFile)) return { ok: false, message: `the task file ${taskFile} is gone; name the task file with --tasks FILE.` };
  let config: string;
  if (request.config !== undefined) config = resolve(request.cwd, request.config);
  else if (existsSync(layout.resolvedConfig)) config = layout.resolvedConfig;
  else return { ok: false, message: `${parentRun} has no resolved_config.yaml, so its config is unknown; name one with --config YAML.` };
  const runDir =
    request.runDir === undefined
      ? unusedFolder(join(dirname(parentRun), `${basename(parentRun)}-fork-${compactUtcStamp(request.now)}`))
      : resolve(request.cwd, request.runDir);
  // A path that begins with a dash would be read as a flag; `./` keeps it a path.
  const path = (p: string) => {
    const shown = shownPath(request.cwd, p);
    return shown.startsWith('-') ? `./${shown}` : shown;
  };
  const recordedEmbeddings = start.observation.hint_retrievers?.includes('embeddings') === true;
  const args = [
    path(taskFile),
    // Values that come from a recording or a person are joined to their flag, so that one that
    // begins with a dash is never read as a flag of its own.
    `--task=${start.task_id}`,
    '--config',
    path(config),
    ...(request.config === undefined ? ['--backend', start.backend] : []),
    ...(request.config === undefined && !recordedEmbeddings ? ['--set', 'env.semantic_search=off'] : []),
    ...(request.agent === undefined ? [] : [`--agent=${request.agent}`]),
    '--attempts',
    String(request.count),
    ...(request.sets ?? []).map((s) => `--set=${s}`),
    '--fork-of',
    path(trajectory),
    '--fork-step',
    String(request.step),
    '--run-dir',
    path(runDir),
  ];
  return { ok: true, args, runDir, parent: prefix.prefix.parent, taskId: start.task_id };
}
