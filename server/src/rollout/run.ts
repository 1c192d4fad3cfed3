/**
 * A rollout: many episodes through a bounded pool, with the run directory kept current
 * (`status.json` rewritten atomically, `events.jsonl` appended) and `report.json` written at the end.
 *
 * Resume: an episode whose trajectory has an `end` line (other than `interrupted`, and not an
 * infrastructure failure) is finished and is not run again; any other episode starts from scratch,
 * its old trajectory replaced atomically.
 * Interrupt: once `signal` aborts, no episode starts; running ones are ended through their
 * environment, their sandboxes closed, and the run ends `interrupted`.
 * Infrastructure failures (infrastructure.ts) are no episode's outcome: they are kept apart from the
 * finished episodes, left out of the report's rate and listed beside it, and the run ends `failed`
 * so a resume runs them again. A full disk also stops the run: no episode starts after it.
 */
import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { BackendSummary, InfrastructureFailure, RunReport, RunStatus, TrajectoryStart } from '../protocol/runs.js';
import type { BackendChoice, BackendFallback } from '../protocol/backendChoice.js';
import { EventLog, readTrajectory, runLayout, writeReport, writeStatus, type RunEventInput } from '../runs/index.js';
import { withDeadline } from '../util/deadline.js';
import { runEpisode, type EpisodeContext, type EpisodeDeps, type EpisodeResult } from './episode.js';
import type { EpisodeSpec } from './plan.js';
import { BackendTally } from './backends.js';
import { buildReport, interruptedSummary, type FinishedEpisode, type InfrastructureFailed } from './report.js';
import { ModelTotals } from './modelFigures.js';
import { describeInfrastructure, infrastructureFailure } from './infrastructure.js';
import { errorMessage } from '../util/errors.js';
import { isoTimestamp } from '../util/time.js';

export interface RolloutObserver {
  runStarted?(info: { readonly total: number; readonly alreadyFinished: number; readonly toRun: number }): void;
  episodeStarted?(spec: EpisodeSpec): void;
  episodeFinished?(spec: EpisodeSpec, result: EpisodeResult): void;
  /** `auto` ran an episode on the local backend for a reason not seen before in this run; told once per reason. */
  backendFallback?(fallback: BackendFallback): void;
}

export interface RolloutOptions {
  readonly runDir: string;
  readonly runName: string;
  /** The command line, for `status.json` and `events.jsonl`. */
  readonly command: string;
  /** The agent's name for the report (`rule`, `model`). */
  readonly agent: string;
  /** Whether a fallback agent may take a model agent's steps; the report says so beside its counts. */
  readonly fallbackEnabled?: boolean;
  /** The dataset files, for the report. */
  readonly dataset: string;
  /** Most episodes at once. */
  readonly parallel: number;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  readonly deps: EpisodeDeps;
  /**
   * Runs one episode somewhere else (`gp eval --ray`: on a sandbox host of a Ray cluster,
   * docs/sandbox-hosts.md) and leaves its records in the run folder as `runEpisode` would; the
   * episode runs here, with `deps`, when absent.
   */
  readonly runEpisode?: (spec: EpisodeSpec, episodeContext: EpisodeContext) => Promise<EpisodeResult>;
  readonly observer?: RolloutObserver;
  /**
   * Removes this run's containers: at the start only those whose process is gone (an earlier
   * process of a resumed run), at the end every one. Returns how many; absent without Docker.
   */
  readonly reapContainers?: (includeLive: boolean) => Promise<number>;
}

export interface ResumeSelection {
  /** Episodes finished by an earlier process, in plan order. */
  readonly finished: FinishedEpisode[];
  readonly toRun: EpisodeSpec[];
  /** Episodes whose earlier trajectory was cut short (it will be replaced). */
  readonly restarted: string[];
  /** Of those, the ones an earlier process ended with an infrastructure failure, with why. */
  readonly retried: ReadonlyMap<string, InfrastructureFailure>;
  /** The start lines of the finished episodes, which say which backend they ran on. */
  readonly starts: TrajectoryStart[];
}

export interface RolloutResult {
  readonly state: 'finished' | 'failed' | 'interrupted';
  readonly reason: string | undefined;
  readonly report: RunReport;
  /** Finished episodes in plan order, earlier processes' included. */
  readonly finished: FinishedEpisode[];
  /** Episodes without a finished trajectory (interrupted, never started, failed by the infrastructure). */
  readonly notFinished: EpisodeSpec[];
  /** Episodes the infrastructure failed in this process, with why; a resume runs them again. */
  readonly infrastructure: InfrastructureFailed[];
  /** How many were finished before this process started. */
  readonly resumed: number;
  readonly warnings: string[];
  /** The backends the episodes ran on (earlier processes' finished ones included). */
  readonly backend: BackendSummary;
}

/** How long the run waits for sandboxes that are still closing when it ends. */
const cleanupDeadlineMs = 120_000;

/** Splits the plan into episodes already finished in `runDir` and episodes to (re)run. */
export async function selectEpisodes(episodes: readonly EpisodeSpec[], runDir: string): Promise<ResumeSelection> {
  const layout = runLayout(runDir);
  const finished: FinishedEpisode[] = [];
  const toRun: EpisodeSpec[] = [];
  const restarted: string[] = [];
  const retried = new Map<string, InfrastructureFailure>();
  const starts: TrajectoryStart[] = [];
  for (const spec of episodes) {
    const read = await readTrajectory(layout.trajectory(spec.episodeId));
    const end = read?.end;
    if (end?.infrastructure !== undefined) retried.set(spec.episodeId, end.infrastructure);
    if (end !== undefined && end.termination_reason !== 'interrupted' && end.infrastructure === undefined && end.episode_id === spec.episodeId) {
      const report = layout.instanceReportRelative(spec.episodeId);
      finished.push({ end, trajectory: layout.trajectoryRelative(spec.episodeId), instanceReport: existsSync(layout.resolve(report)) ? report : undefined });
      if (read?.start !== undefined) starts.push(read.start);
      continue;
    }
    if (read !== undefined) restarted.push(spec.episodeId);
    toRun.push(spec);
  }
  return { finished, toRun, restarted, retried, starts };
}

/** Serialises writes of one file that is replaced whole each time. */
export class StatusFile {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    readonly status: RunStatus,
  ) {}

  write(): Promise<void> {
    const snapshot = structuredClone(this.status);
    const next = this.queue.then(() => writeStatus(this.path, snapshot));
    this.queue = next.catch(() => undefined);
    return next;
  }
}

export async function runRollout(episodes: readonly EpisodeSpec[], options: RolloutOptions): Promise<RolloutResult> {
  const layout = runLayout(options.runDir);
  await mkdir(layout.trajectories, { recursive: true });
  const events = new EventLog(layout.events);
  const warnings: string[] = [];
  const infrastructure = new Map<string, InfrastructureFailed>();
  /** Set when the run directory cannot be written (a full disk): no episode starts after it. */
  let halted: InfrastructureFailure | undefined;
  const writeFailed = (error: unknown, what: string) => {
    const failure = infrastructureFailure(error) ?? { code: 'io' as const, cause: errorMessage(error) };
    if (failure.code === 'disk-full') halted ??= failure;
    warnings.push(`${what} could not be written: ${describeInfrastructure(failure)}`);
  };
  // Progress records matter less than the run going on: one that cannot be written is a warning.
  const record = (event: RunEventInput) => events.append(event).catch((error: unknown) => writeFailed(error, `${layout.events} (${event.kind})`));
  const warn = async (message: string, episodeId?: string) => {
    warnings.push(episodeId === undefined ? message : `${episodeId}: ${message}`);
    await events
      .append({ kind: 'warning', message, ...(episodeId === undefined ? {} : { episode_id: episodeId }) })
      .catch((error: unknown) => writeFailed(error, layout.events));
  };
  const noteInfrastructure = (spec: EpisodeSpec, failure: InfrastructureFailure) => {
    infrastructure.set(spec.episodeId, { task_id: spec.task.task_id, episode_id: spec.episodeId, ...failure });
    if (failure.code === 'disk-full') halted ??= failure;
  };

  const selection = await selectEpisodes(episodes, options.runDir);
  const finishedById = new Map(selection.finished.map((f) => [f.end.episode_id, f]));
  const modelTotals = new ModelTotals();
  for (const f of selection.finished) modelTotals.add(f.end);
  const count = (pred: (f: FinishedEpisode) => boolean) => [...finishedById.values()].filter(pred).length;
  const counts = (): RunStatus['episodes'] => ({
    total: episodes.length,
    finished: finishedById.size,
    resolved: count((f) => f.end.resolved),
    errored: count((f) => f.end.termination_reason === 'error'),
    ...(infrastructure.size === 0 ? {} : { infrastructure: infrastructure.size }),
  });
  const backends = new BackendTally();
  for (const start of selection.starts) backends.addStart(start);
  const status = new StatusFile(layout.status, {
    state: 'running',
    command: options.command,
    pid: process.pid,
    host: hostname(),
    started_at: isoTimestamp(),
    episodes: counts(),
    ...(backends.empty ? {} : { backend: backends.summary() }),
  });
  await status.write();
  const writeStatusNow = () => status.write().catch((error: unknown) => writeFailed(error, layout.status));
  await record({ kind: 'run-start', command: options.command, total: episodes.length, resumed: selection.finished.length });
  for (const id of selection.restarted) {
    const earlier = selection.retried.get(id);
    await warn(
      earlier === undefined
        ? 'its earlier attempt did not finish (interrupted or cut short); it starts again from scratch'
        : `its earlier attempt failed for a reason of the infrastructure (${describeInfrastructure(earlier)}); it runs again`,
      id,
    );
  }
  // Any earlier process of this run may have left a container, even one whose episode left no
  // trajectory yet: killed between creating a container and starting it (which no lifeline
  // covers, since the container never ran). Whoever resumes a run removes what its dead owners left.
  if (options.reapContainers && (selection.restarted.length > 0 || selection.finished.length > 0)) {
    await reap(options.reapContainers, false).then((n) => (n > 0 ? warn(`removed ${n} container(s) an earlier process of this run left behind`) : undefined));
  }
  options.observer?.runStarted?.({ total: episodes.length, alreadyFinished: selection.finished.length, toRun: selection.toRun.length });

  const tracked: Promise<unknown>[] = [];
  const episodeContext = {
    runDir: options.runDir,
    signal: options.signal,
    track: (work: Promise<unknown>) => void tracked.push(work.catch(() => undefined)),
    warn,
    sandboxOpened: (choice: BackendChoice) => {
      const fallback = backends.addChoice(choice);
      status.status.backend = backends.summary();
      if (fallback === undefined) return;
      // Told once per reason: the progress shows it now, and the events keep it for the runs view.
      options.observer?.backendFallback?.(fallback);
      tracked.push(record({ kind: 'warning', message: `sandbox.backend auto fell back to local: ${fallback.reason}` }));
    },
  };
  let next = 0;
  const worker = async () => {
    while (!options.signal.aborted && halted === undefined && next < selection.toRun.length) {
      const spec = selection.toRun[next++];
      if (spec === undefined) break;
      await record({ kind: 'episode-start', episode_id: spec.episodeId, task_id: spec.task.task_id });
      options.observer?.episodeStarted?.(spec);
      let result: EpisodeResult;
      try {
        result = options.runEpisode === undefined ? await runEpisode(spec, options.deps, episodeContext) : await options.runEpisode(spec, episodeContext);
      } catch (error) {
        // Only writing the run directory itself fails here (a full disk); the episode reached no
        // outcome, and a resume runs it again.
        const failure = infrastructureFailure(error) ?? { code: 'io' as const, cause: errorMessage(error) };
        noteInfrastructure(spec, failure);
        await warn(`the episode could not be recorded: ${describeInfrastructure(failure)}`, spec.episodeId);
        continue;
      }
      const { end } = result;
      if (end.infrastructure !== undefined) noteInfrastructure(spec, end.infrastructure);
      else if (end.termination_reason !== 'interrupted') {
        finishedById.set(spec.episodeId, { end, trajectory: result.trajectory, instanceReport: result.instanceReport });
        modelTotals.add(end);
      }
      if (end.termination_reason !== 'interrupted') {
        status.status.episodes = counts();
        const model = modelTotals.summary(options.fallbackEnabled ?? false);
        if (model !== undefined) status.status.model = model;
        await writeStatusNow();
      }
      await record({
        kind: 'episode-end',
        episode_id: end.episode_id,
        task_id: end.task_id,
        resolved: end.resolved,
        steps: end.steps,
        total_reward: end.total_reward,
        termination_reason: end.termination_reason,
        duration_ms: end.duration_ms,
        ...(end.infrastructure === undefined ? {} : { infrastructure: end.infrastructure }),
      });
      options.observer?.episodeFinished?.(spec, result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.parallel, selection.toRun.length)) }, worker));
  } finally {
    await withDeadline(Promise.all(tracked), cleanupDeadlineMs, 'sandboxes still closing').catch((error: unknown) => warn(errorMessage(error)));
    if (options.reapContainers) {
      const removed = await reap(options.reapContainers, true);
      if (removed > 0) await warn(`removed ${removed} container(s) of this run that were still there at its end`);
    }
  }

  const finished = episodes.flatMap((e) => finishedById.get(e.episodeId) ?? []);
  const notFinished = episodes.filter((e) => !finishedById.has(e.episodeId));
  const failedByInfrastructure = episodes.flatMap((e) => infrastructure.get(e.episodeId) ?? []);
  const backend = backends.summary();
  const ended = verdict({ interrupted: options.signal.aborted, halted, finished, notFinished: notFinished.length, infrastructure: failedByInfrastructure });
  const report = buildReport({
    run: options.runName,
    agent: options.agent,
    dataset: options.dataset,
    createdAt: new Date(),
    episodes: finished,
    state: ended.state,
    planned: episodes.length,
    backend,
    infrastructure: failedByInfrastructure,
    fallbackEnabled: options.fallbackEnabled ?? false,
  });
  let { state, reason } = ended;
  try {
    await writeReport(layout.report, report);
  } catch (error) {
    writeFailed(error, layout.report);
    const failure = infrastructureFailure(error);
    state = state === 'interrupted' ? state : 'failed';
    reason = `${reason === undefined ? '' : `${reason}; `}report.json could not be written (${failure === undefined ? errorMessage(error) : describeInfrastructure(failure)})`;
  }
  await record({ kind: 'run-end', state, ...(reason === undefined ? {} : { reason }) });
  Object.assign(status.status, { state, ended_at: isoTimestamp(), backend, episodes: counts(), ...(reason === undefined ? {} : { exit_reason: reason }) });
  await writeStatusNow();
  await events.flush();
  return { state, reason, report, finished, notFinished, infrastructure: failedByInfrastructure, resumed: selection.finished.length, warnings, backend };
}

async function reap(reapContainers: (includeLive: boolean) => Promise<number>, includeLive: boolean): Promise<number> {
  try {
    return await reapContainers(includeLive);
  } catch {
    // Without a daemon there are no containers to reap.
    return 0;
  }
}

interface VerdictInput {
  readonly interrupted: boolean;
  readonly halted: InfrastructureFailure | undefined;
  readonly finished: readonly FinishedEpisode[];
  readonly notFinished: number;
  readonly infrastructure: readonly InfrastructureFailed[];
}

function verdict(input: VerdictInput): { state: RolloutResult['state']; reason: string | undefined } {
  const { finished, notFinished, infrastructure } = input;
  if (input.interrupted) {
    const ran = { ran: finished.length, resolved: finished.filter((f) => f.end.resolved).length, planned: finished.length + notFinished };
    return { state: 'interrupted', reason: interruptedSummary(ran) };
  }
  if (input.halted !== undefined) {
    return {
      state: 'failed',
      reason: `stopped because ${describeInfrastructure(input.halted)}: ${notFinished} episode(s) did not reach an outcome; free space and resume the run to run them`,
    };
  }
  if (infrastructure.length > 0) {
    const first = infrastructure[0];
    const why = first === undefined ? '' : ` (first: ${first.task_id}: ${describeInfrastructure(first)})`;
    return {
      state: 'failed',
      reason: `${infrastructure.length} episode(s) reached no outcome because the infrastructure failed${why}; they are not counted, and a resume runs them again`,
    };
  }
  const errors = finished.filter((f) => f.end.termination_reason === 'error');
  if (notFinished > 0) return { state: 'failed', reason: `${notFinished} episode(s) could not be recorded` };
  if (finished.length > 0 && errors.length === finished.length) {
    return { state: 'failed', reason: `every episode ended with an error (first: ${errors[0]?.end.error ?? 'unknown'})` };
  }
  return { state: 'finished', reason: undefined };
}
