/**
 * Launching from the editor (extension → server). The extension gathers a launch in a quick-pick
 * flow; the server builds the `gp` command line (`server/src/launch/launchArgs.ts`), preflights its
 * config through the same road the CLI takes, and starts it as a detached process that outlives
 * the editor, its output in the run's `run.log`. A run launched here and one typed in a terminal
 * are the same run.
 */
import { z } from 'zod';
import { agentNames } from './agentNames.js';
import { runSummarySchema } from './runsView.js';
import { sandboxBackendSchema } from './sandbox.js';

/** A new rollout or evaluation, as the quick-pick flow fills it in. */
export const newRunLaunchSchema = z.object({
  kind: z.enum(['rollout', 'eval']),
  /** Absolute path of the experiment YAML; null runs on the built-in defaults. */
  config: z.string().nullable(),
  /** Absolute paths of the task files (JSONL). */
  taskFiles: z.array(z.string()).min(1),
  /** Only these task ids (empty: every task of the files). */
  tasks: z.array(z.string()).default([]),
  agent: z.enum(agentNames).nullable().default(null),
  backend: sandboxBackendSchema.nullable().default(null),
  parallel: z.number().int().min(1).nullable().default(null),
  /** Rollouts only; evaluation runs one attempt per task. */
  attempts: z.number().int().min(1).nullable().default(null),
  /** `--set key=value` overrides, each as `key=value`. */
  sets: z.array(z.string()).default([]),
  /** The folder relative paths are read from (the workspace folder of the config). */
  cwd: z.string(),
});
export type NewRunLaunch = z.infer<typeof newRunLaunchSchema>;

/** A verification of a dataset file (`gp dataset verify`), as the Tasks view's *Verify Tasks…* fills it in. */
export const verifyLaunchSchema = z.object({
  /** Absolute path of the dataset file (JSONL); its gold patches are `gold_predictions_<name>.jsonl` beside it. */
  dataset: z.string(),
  /** Runs of each task's tests with no patch and with the gold patch, to find flaky tests. */
  repeats: z.number().int().min(1).max(100),
  /** Tasks at once; null takes the config's `rollout.parallel`. */
  parallel: z.number().int().min(1).nullable(),
  backend: sandboxBackendSchema.nullable(),
  /** The folder relative paths are read from (the dataset's workspace folder). */
  cwd: z.string(),
});
export type VerifyLaunch = z.infer<typeof verifyLaunchSchema>;

/**
 * A training run (`gp train`), as *Start Training…* fills it in (issue 37): started detached like a
 * rollout, into a run folder planned here and passed with `--run-dir`, so the editor follows
 * exactly that run.
 */
export const trainLaunchSchema = z.object({
  /** Absolute path of the experiment YAML. */
  config: z.string(),
  /** Absolute path of the task file for `--tasks`; null takes the config's `paths.dataset_train`. */
  tasks: z.string().nullable(),
  /** A smoke run on this machine's CPU with this policy (`--smoke --smoke-policy`); null for a real run. */
  smoke: z.enum(['model', 'scripted']).nullable(),
  /** The smoke's steps (`--steps`); null takes gp train's own. */
  steps: z.number().int().min(1).nullable(),
  /** The Ray dashboard address (`--ray`); null trains on this machine. */
  ray: z.string().nullable(),
  /** The folder relative paths are read from (the config's workspace folder). */
  cwd: z.string(),
});
export type TrainLaunch = z.infer<typeof trainLaunchSchema>;

/**
 * A fork of a recorded episode from one of its steps, as the viewer's *Continue from Here…* fills it
 * in (docs/trajectory-viewer.md#continue-from-here): a rollout of the episode's task that replays
 * its steps before `step` and goes on live from there, `count` times, into a run folder of its own.
 */
export const forkLaunchSchema = z.object({
  /** Absolute path of the parent's trajectory file (one of ours, never another tool's). */
  trajectory: z.string(),
  /** The first step taken live (1-based). */
  step: z.number().int().min(1),
  /** Continuations at once (`--attempts`). */
  count: z.number().int().min(1).max(16),
  /** The continuation's agent; null keeps the parent run's. */
  agent: z.enum(agentNames).nullable(),
  /** `--set key=value` overrides (the planner model, for one), each as `key=value`. */
  sets: z.array(z.string()).default([]),
  /** The folder relative paths are shown against (the trajectory's workspace folder). */
  cwd: z.string(),
});
export type ForkLaunch = z.infer<typeof forkLaunchSchema>;

/**
 * What to launch: a new run, the rest of an existing run (resume), a run again from its own
 * `resolved_config.yaml` and recorded command line, into a new folder (re-launch), a
 * verification of a dataset, a training run, or a fork of an episode from one of its steps.
 */
export const launchSpecSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('new'), run: newRunLaunchSchema }),
  z.object({ mode: z.literal('verify'), verify: verifyLaunchSchema }),
  z.object({ mode: z.literal('train'), train: trainLaunchSchema }),
  z.object({ mode: z.literal('fork'), fork: forkLaunchSchema }),
  z.object({ mode: z.literal('resume'), dir: z.string() }),
  z.object({ mode: z.literal('relaunch'), dir: z.string() }),
]);
export type LaunchSpec = z.infer<typeof launchSpecSchema>;

/** A config finding that blocks a launch or asks first, with its place. */
export const launchFindingSchema = z.object({
  severity: z.enum(['error', 'warning']),
  message: z.string(),
  /** The file it is in (absolute), or null for a finding that came from a flag. */
  file: z.string().nullable(),
  /** Zero-based, as LSP positions are. */
  line: z.number().int().nullable(),
  character: z.number().int().nullable(),
  /** The flag that set the value, for findings on flags. */
  flag: z.string().nullable(),
});
export type LaunchFinding = z.infer<typeof launchFindingSchema>;

/**
 * A value the run will really get, for the launch review list: the flag's, else the config file's,
 * else the default. A value with an error is shown as written, with the error, never replaced by
 * the default the run would not reach (issue 27: `backend: dockr` is not "auto").
 */
export const launchValueSchema = z.object({
  /** The value as text (`docker`, `0`); null when nothing sets it. */
  value: z.string().nullable(),
  from: z.enum(['flag', 'file', 'default']),
  /** The first error about this value, in full; null when it has none. */
  error: z.string().nullable(),
});
export type LaunchValue = z.infer<typeof launchValueSchema>;

/** The values the review list shows, resolved as `gp` will resolve them. */
export const launchValuesSchema = z.object({
  agent: launchValueSchema,
  backend: launchValueSchema,
  parallel: launchValueSchema,
  attempts: launchValueSchema,
  /** `paths.dataset_train`, absolute. */
  dataset: launchValueSchema,
});
export type LaunchValues = z.infer<typeof launchValuesSchema>;

/** Client → server request: the command line and the preflight verdict of a launch, starting nothing. */
export const launchPlanRequest = 'graphPlanner/launch/plan';
export const launchPlanResultSchema = z.object({
  /** The `gp` arguments (without `gp`). */
  args: z.array(z.string()),
  /** The command line as a person would type it. */
  display: z.string(),
  cwd: z.string(),
  /** The run folder the launch will write. */
  runDir: z.string(),
  findings: z.array(launchFindingSchema),
  /** Why the launch cannot be planned at all (a missing file, a run that is not resumable). */
  refused: z.string().nullable(),
  /** The values the run will get; null when the launch cannot be planned or is a verification. */
  values: launchValuesSchema.nullable(),
});
export type LaunchPlanResult = z.infer<typeof launchPlanResultSchema>;

/**
 * Client → server request: start a planned launch as a detached `gp` process. The server plans
 * again (files may have changed) and refuses when the preflight has errors.
 */
export const launchStartRequest = 'graphPlanner/launch/start';
export const launchStartResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    pid: z.number().int(),
    runDir: z.string(),
    logFile: z.string(),
    display: z.string(),
    /** The run's kind as the Runs view names it (`rollout`, `eval`, `train`, `verify`), for its one name before it reports. */
    kind: z.string(),
  }),
  z.object({ ok: z.literal(false), reason: z.string(), findings: z.array(launchFindingSchema) }),
]);
export type LaunchStartResult = z.infer<typeof launchStartResultSchema>;

/**
 * The first error a run's output names (`runs/runLogError.ts`): the line as printed and, when it
 * names a place (`datasets/bad.jsonl:1:1 task_id: …`), that file (absolute) and its zero-based
 * line and column, as LSP positions are.
 */
export const logErrorSchema = z.object({
  message: z.string(),
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  character: z.number().int().nullable(),
});
export type LogError = z.infer<typeof logErrorSchema>;

/**
 * Server → client notification: a `gp` process this server started detached has exited (issue 37).
 * The server follows the process as well as its run folder, so a launch that dies before its run
 * reports is not left unaccounted for: it writes the run's `status.json` as failed with the first
 * error of its log (`reported` false) before it sends this. `run` is the folder as the Runs view
 * shows it after the exit; `error` is the first error of this launch's output, with its place.
 */
export const launchExitedNotification = 'graphPlanner/launch/exited';
export const launchExitedSchema = z.object({
  runDir: z.string(),
  pid: z.number().int(),
  /** The exit status, or null when a signal ended it. */
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Whether the run reported an end of its own; false when the server wrote its failure. */
  reported: z.boolean(),
  run: runSummarySchema.nullable(),
  error: logErrorSchema.nullable(),
  /** When the process exited and when this was sent (ms since the epoch), for the bench. */
  exitedAt: z.number(),
  sentAt: z.number(),
});
export type LaunchExited = z.infer<typeof launchExitedSchema>;
