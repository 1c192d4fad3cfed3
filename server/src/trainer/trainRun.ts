/**
 * One training attempt of a run: the training parquet files, the environment service, the trainer
 * (Verl's `main_ppo`, or the smoke driver) as a local process or a Ray job, Verl's metrics copied
 * into `metrics.jsonl`, the trainer's output into `run.log`, a watchdog, and a clean end: the
 * trainer stopped, every open episode closed with its sandbox, `status.json` and `events.jsonl`
 * saying how it ended. The command line and the editor both come here (cli/trainCommand.ts).
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExperimentConfig } from '../config/index.js';
import { verlRowFor, writeTrainingParquet, type TrainingRow } from '../datasets/index.js';
import { metricsLineSchema, stepSamplesLineSchema, type MetricsLine, type StepSamplesLine } from '../protocol/metrics.js';
import { noOutcomeReason } from '../protocol/noOutcome.js';
import type { EpisodeDeps, PlannedTask } from '../rollout/index.js';
import { EventLog, JsonLinesWriter, TensorBoardWriter, type RunLayout } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';
import { isoTimestamp } from '../util/time.js';
import {
  EnvService,
  serviceFileName,
  startSandboxHosts,
  type SandboxHosts,
  type ServicePrompt,
  RayJobsClient,
  launchLocal,
  launchRayJob,
  raySubmissionId,
  shellCommand,
  type TrainerHandle,
} from '../cluster/index.js';
import { MetricsTail } from './metricsTail.js';
import { RunRecord } from './runRecord.js';
import { canaryDriverArgs, canaryLengths, canaryOverrides, type CanarySettings } from './canary.js';
import { scriptedSmokePolicy, smokeDriverArgs, smokeLengths, smokeOverrides, type SmokeSettings } from './smoke.js';
import { agentLoopName, estimatorModule, hydraArgument, verlOverrides, type TrainPaths } from './verlOverrides.js';
import { sampleByTotalReward } from './stepSamples.js';
import { withStepFigures } from './stepFigures.js';
import { Watchdog } from './watchdog.js';

/** Episodes each training step's sample table keeps (`step_samples.jsonl`). */
const samplesPerStep = 8;

export interface TrainRunOptions {
  readonly config: ExperimentConfig;
  readonly runName: string;
  readonly runDir: string;
  readonly layout: RunLayout;
  readonly trainTasks: readonly PlannedTask[];
  readonly valTasks: readonly PlannedTask[];
  readonly deps: EpisodeDeps;
  /** The experiment's planner prompt (`prompts.*`, in the reply text format); the built-in one when absent. */
  readonly prompt?: ServicePrompt;
  /** The Python interpreter of the trainer environment (python/requirements.txt). */
  readonly python: string;
  /** The folder holding the `graph_planner_verl` package. */
  readonly adapterDir: string;
  /** CPU smoke run (smoke.ts): its policy, its model folder and its steps. */
  readonly smoke?: SmokeSettings;
  /** The learning canary on CPU (canary.ts): its steps, seeds and task family. */
  readonly canary?: CanarySettings;
  /** Ray dashboard address: run the trainer as a Ray job there. */
  readonly ray?: string;
  readonly stallMs: number;
  /** Where the environment service listens; 127.0.0.1 unless the trainer's workers run on other machines. */
  readonly serviceHost?: string;
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
  /** The command line, recorded in status.json. */
  readonly command: string;
  /** Removes the run's containers that are still there at the end (a crashed episode's); none on the local backend. */
  readonly reapContainers?: () => Promise<number>;
  /**
   * With `ray`: run the episodes on sandbox hosts on the cluster's nodes (docs/sandbox-hosts.md),
   * started with the run's resolved config and our CLI as each node starts it.
   */
  readonly sandboxHosts?: { readonly resolvedConfig: string; readonly cli: readonly string[] };
}

export interface TrainRunResult {
  readonly state: 'finished' | 'failed' | 'interrupted';
  readonly reason: string;
  readonly attempt: number;
  readonly steps: number;
  readonly episodes: { readonly total: number; readonly resolved: number };
}

type TrainerLaunch = Pick<TrainRunOptions, 'runName' | 'runDir' | 'adapterDir' | 'smoke' | 'canary'>;

/** Where the run's files are for Verl: the training parquet, the model, the agent loop, checkpoints and dumps. */
export function trainPaths(config: ExperimentConfig, launch: TrainerLaunch): TrainPaths {
  return {
    trainFiles: join(launch.runDir, 'data', 'train.parquet'),
    valFiles: join(launch.runDir, 'data', 'val.parquet'),
    modelPath: launch.smoke?.modelDir ?? launch.canary?.modelDir ?? config.paths.planner_model,
    agentLoopConfig: join(launch.adapterDir, 'graph_planner_verl', 'agent_loop.yaml'),
    checkpointDir: join(launch.runDir, 'checkpoints'),
    rolloutDumpDir: join(launch.runDir, 'rollouts'),
  };
}

/** The trainer's arguments after the interpreter: Verl's main_ppo, or the smoke driver, and the Hydra overrides. */
export function trainerArgv(config: ExperimentConfig, launch: TrainerLaunch): string[] {
  const paths = trainPaths(config, launch);
  const { smoke, canary } = launch;
  const lengths = smoke ? smokeLengths[smoke.policy] : canary ? canaryLengths : undefined;
  const overrides = verlOverrides(config, { paths, runName: launch.runName, ...(lengths === undefined ? {} : { lengths }) });
  const added = smoke ? smokeOverrides(smoke.policy) : canary ? canaryOverrides() : [];
  const user = overrides.findIndex((o) => o.source === 'user');
  overrides.splice(user === -1 ? overrides.length : user, 0, ...added);
  const module = smoke ? smokeDriverArgs(launch.runDir, smoke) : canary ? canaryDriverArgs(launch.runDir, canary) : ['-m', 'verl.trainer.main_ppo'];
  return [...module, ...overrides.map(hydraArgument)];
}

/** 1 for a fresh run; one more than the last attempt's metrics file for a resumed one. */
async function nextAttempt(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const numbers = names
    .map((n) => /^attempt-(\d+)\.jsonl$/.exec(n)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  return Math.max(0, ...numbers) + 1;
}

function trainingRows(tasks: readonly PlannedTask[], split: string): TrainingRow[] {
  return tasks.map(({ task }, index) => ({ ...verlRowFor(task, index, split), data_source: task.data_source ?? 'graph_planner', agent_name: agentLoopName }));
}

export async function runTraining(options: TrainRunOptions): Promise<TrainRunResult> {
  const { config, runDir, layout } = options;
  const metricsDir = join(runDir, 'verl_metrics');
  const dataDir = join(runDir, 'data');
  await mkdir(metricsDir, { recursive: true });
  await mkdir(dataDir, { recursive: true });
  const attempt = await nextAttempt(metricsDir);
  const { trainFiles, valFiles } = trainPaths(config, options);
  await writeTrainingParquet(trainFiles, trainingRows(options.trainTasks, 'train'));
  await writeTrainingParquet(valFiles, trainingRows(options.valTasks.length > 0 ? options.valTasks : options.trainTasks, 'val'));

  const events = new EventLog(layout.events);
  const metrics = new JsonLinesWriter(layout.metrics, metricsLineSchema);
  const record = new RunRecord(layout, options.command, 0);
  const counts = record.counts;
  await record.status('running');
  await events.append({ kind: 'run-start', command: options.command, total: 0, resumed: attempt - 1 });
  await events.flush();

  let handle: TrainerHandle | undefined;
  let stopReason: { state: 'failed' | 'interrupted'; reason: string } | undefined;
  // Created now so every line, metric and episode counts; started once the trainer is.
  const watchdog = new Watchdog(options.stallMs, (quiet) => {
    stopReason = {
      state: 'failed',
      reason: `stalled: no log line, metric or episode for ${Math.round(quiet / 1000)} s; the trainer was stopped (is a GPU visible to it?)`,
    };
    options.log(`gp train: ${stopReason.reason}`);
    void handle?.stop();
  });
  // Verl's metrics go to TensorBoard too, one event file per attempt, as they arrive; each step's
  // line also closes the step's sample table of the episodes that ended since the step before.
  const tensorboard = new TensorBoardWriter(layout.tensorboard);
  const samples = new JsonLinesWriter(layout.stepSamples, stepSamplesLineSchema);
  let stepEnds: StepSamplesLine['episodes'] = [];
  // The training step an episode ending now belongs to: the one whose metrics line comes next, the
  // rule the sample table follows. Verl's first training step is 1 (the run never validates before
  // training, trainer/verlOverrides.ts); a resumed attempt starts at its checkpoint, unknown here
  // until its first line.
  let nextStep: number | undefined = attempt === 1 ? 1 : undefined;
  const appendMetric = async (copied: MetricsLine): Promise<void> => {
    // A step's line closes the step: its episodes are those that ended since the step before.
    const ended = copied.source === 'verl' ? stepEnds : [];
    if (copied.source === 'verl') stepEnds = [];
    const line = copied.source === 'verl' ? withStepFigures(copied, ended) : copied;
    await metrics.append(line);
    watchdog.touch();
    if (line.source !== 'verl') return;
    void tensorboard.scalars(line.step, line.data).catch((error: unknown) => options.log(`warning: ${tensorboard.path}: ${errorMessage(error)}`));
    nextStep = line.step + 1;
    await samples.append({ ts: isoTimestamp(new Date()), attempt, step: line.step, total: ended.length, episodes: sampleByTotalReward(ended, samplesPerStep) });
  };
  // The copier of Verl's metrics polls once a second, and a smoke step's episodes can end within
  // that second after Verl logged the step before: an episode's step (and its place in the sample
  // tables) is decided only after the lines Verl has written so far are read.
  const loggerFile = join(metricsDir, `attempt-${attempt}.jsonl`);
  const tail = new MetricsTail({ source: loggerFile, attempt, append: appendMetric, warn: (m) => options.log(`warning: ${m}`) });
  const catchUp = (): Promise<void> => tail.poll();
  const tasks = new Map([...options.trainTasks, ...options.valTasks].map((t) => [t.task.task_id, t]));
  const episodeDeadlineMs = (config.env.episode_timeout + 300) * 1000;
  const onLine = record.outputLines(options.log, () => watchdog.touch());
  let hosts: SandboxHosts | undefined;
  if (options.ray !== undefined && options.sandboxHosts !== undefined) {
    try {
      hosts = await startSandboxHosts({
        ray: options.ray,
        runName: options.runName,
        runDir,
        resolvedConfig: options.sandboxHosts.resolvedConfig,
        tasks: [...tasks.values()],
        scriptedPolicy: options.smoke?.policy === 'scripted',
        ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
        episodeDeadlineMs,
        python: options.python,
        adapterDir: options.adapterDir,
        cli: options.sandboxHosts.cli,
        listen: options.serviceHost ?? '127.0.0.1',
        onLine,
        log: options.log,
        signal: options.signal,
      });
    } catch (error) {
      const reason = `the sandbox hosts did not start: ${errorMessage(error)}`;
      await events.append({ kind: 'run-end', state: 'failed', reason });
      await events.flush();
      await record.status('failed', reason);
      return { state: 'failed', reason, attempt, steps: 0, episodes: counts };
    }
  }
  const service = new EnvService({
    runDir,
    tasks,
    deps: options.deps,
    // A smoke step's episodes all run at once, so the cap is one step's worth; a real run keeps the config's.
    maxOpen: options.smoke || options.canary ? config.training.train_batch_size * config.training.rollout_n : config.parallel.parallel_agents,
    episodeDeadlineMs,
    host: options.serviceHost ?? '127.0.0.1',
    ...(hosts === undefined ? {} : { hosts: hosts.pool }),
    log: options.log,
    // The model policy's replies come from the trainer's own model, so the service serves none.
    ...(options.smoke?.policy === 'scripted' ? { scriptedPolicy: scriptedSmokePolicy } : {}),
    ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
    trainingStep: async () => {
      await catchUp();
      return nextStep;
    },
    onEpisodeEnd: (end) => {
      counts.total++;
      counts.finished++;
      if (end.resolved) counts.resolved++;
      const hacks = end.suspected_hacks === undefined ? {} : { suspected_hacks: end.suspected_hacks };
      const tampered = end.infrastructure?.rule === 'runner-tampered' ? { runner_tampered: true as const } : {};
      const failed = noOutcomeReason(end);
      const noOutcome = failed === null ? {} : { no_outcome: failed };
      const sampled = {
        episode_id: end.episode_id,
        task_id: end.task_id,
        total_reward: end.total_reward,
        resolved: end.resolved,
        steps: end.steps,
        termination_reason: end.termination_reason,
        ...hacks,
        trajectory: layout.trajectoryRelative(end.episode_id),
      };
      void catchUp().then(() => stepEnds.push({ ...sampled, ...tampered, ...noOutcome }));
      const failures = Object.values(end.model?.parse_failures ?? {}).reduce((a, b) => a + b, 0);
      const replies = end.model === undefined ? undefined : { replies: end.model.model_steps + failures, parse_failures: failures };
      void appendMetric({
        source: 'env',
        ts: isoTimestamp(new Date()),
        episode_id: end.episode_id,
        task_id: end.task_id,
        total_reward: end.total_reward,
        resolved: end.resolved,
        steps: end.steps,
        env_ms: end.duration_ms,
        ...replies,
        ...hacks,
        ...tampered,
        ...noOutcome,
      }).catch((error: unknown) => options.log(`metrics.jsonl: ${errorMessage(error)}`));
      void record.status('running').catch(() => undefined);
    },
  });
  await service.start();

  const envVars: Record<string, string> = {
    PYTHONPATH: [options.adapterDir, process.env['PYTHONPATH']].filter((p) => p !== undefined && p !== '').join(':'),
    GP_ENV_SERVICE_FILE: join(runDir, serviceFileName),
    VERL_FILE_LOGGER_PATH: loggerFile,
    // Every process that imports Verl registers our advantage estimator (verlOverrides.ts).
    VERL_USE_EXTERNAL_MODULES: [estimatorModule, process.env['VERL_USE_EXTERNAL_MODULES']].filter((m) => m !== undefined && m !== '').join(','),
  };
  const argv = trainerArgv(config, options);

  try {
    if (options.ray !== undefined) {
      const quoted = shellCommand([options.python, ...argv]);
      handle = await launchRayJob({
        client: new RayJobsClient({ address: options.ray }),
        submissionId: raySubmissionId(options.runName, String(attempt)),
        entrypoint: quoted,
        envVars,
        metadata: { gp_run: options.runName, gp_attempt: String(attempt) },
        onLine,
      });
    } else {
      handle = launchLocal({ command: options.python, args: argv, lifeline: true, env: { ...process.env, ...envVars }, cwd: runDir, onLine });
    }
  } catch (error) {
    await service.close();
    await hosts?.stop();
    const reason = `the trainer could not be started: ${errorMessage(error)}`;
    await events.append({ kind: 'run-end', state: 'failed', reason });
    await events.flush();
    await record.status('failed', reason);
    return { state: 'failed', reason, attempt, steps: 0, episodes: counts };
  }
  options.log(`trainer: ${handle.where} (attempt ${attempt}; its output goes to ${layout.runLog})`);
  tail.start();
  const trainer = handle;
  watchdog.touch();
  watchdog.start();
  const onAbort = (): void => {
    stopReason ??= { state: 'interrupted', reason: 'interrupted: the trainer was asked to stop' };
    void trainer.stop();
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();
  const end = await trainer.ended;
  options.signal.removeEventListener('abort', onAbort);
  watchdog.stop();
  await tail.stop();
  await service.close();
  await hosts?.stop();
  const reaped = await options.reapContainers?.().catch(() => 0);
  if (reaped !== undefined && reaped > 0) options.log(`gp train: removed ${reaped} container(s) of this run left behind`);
  await metrics.flush();
  const state = stopReason?.state ?? (end.ok ? 'finished' : 'failed');
  const reason = stopReason?.reason ?? (end.ok ? `the trainer ended: ${end.reason}` : `the trainer failed: ${end.reason}; see ${layout.runLog}`);
  await events.append({ kind: 'run-end', state, reason });
  await events.flush();
  await record.status(state, reason);
  return { state, reason, attempt, steps: tail.steps.length, episodes: counts };
}
