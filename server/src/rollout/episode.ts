/**
 * One episode (ARCHITECTURE.md §3, "An episode's step"): open the task's sandbox, open the environment on it, reset,
 * then let the agent act until the environment says done. Every step is appended to the trajectory
 * as it happens, so a crash loses at most the step in flight. The episode deadline covers the agent
 * too; an interrupt or the deadline ends the episode through `env.abort`. An exception from the
 * agent or the environment ends this episode with reason `error` and never the run; when the
 * exception is the infrastructure's (infrastructure.ts) the end line says so, and the episode is no
 * outcome of its task. The sandbox is closed on every path.
 */
import { basename, resolve } from 'node:path';
import {
  maxRecordedGraphEdges,
  trajectorySchemaVersion,
  type InfrastructureFailure,
  type SandboxHostRef,
  type TrainingGroup,
  type TrajectoryEnd,
} from '../protocol/runs.js';
import type { BackendChoice } from '../protocol/backendChoice.js';
import type { Observation, TerminationReason } from '../protocol/observation.js';
import type { AgentFactory, Agent } from '../agents/index.js';
import type { EnvOptions, PlannerEnv, StepOutcome } from '../env/index.js';
import { runLayout, TrajectoryWriter, writeInstanceReport } from '../runs/index.js';
import { backendChoiceOf, type Sandbox } from '../sandbox/index.js';
import type { TaskEntry } from '../tasks/index.js';
import { gradeInstance, gradePassed } from '../testing/index.js';
import { withDeadline } from '../util/deadline.js';
import type { EpisodeSpec } from './plan.js';
import { EpisodeStop, Stopped, type StopReason } from './stop.js';
import { checkForkAgent, checkForkReset, ForkDiverged, ForkPatchModels, replayForkPrefix } from './forkPrefix.js';
import { settledStep } from './settledStep.js';
import { infrastructureFailure } from './infrastructure.js';
import { addModelStep, emptyModelUsage, isModelDecision } from './modelFigures.js';
import type { ModelUsage } from '../protocol/modelUsage.js';
import { errorMessage } from '../util/errors.js';
import { isoTimestamp } from '../util/time.js';

/** What an episode needs from the outside; tests pass scripted doubles. */
export interface EpisodeDeps {
  /** Opens the task's sandbox, labelled with the run name. */
  openSandbox(spec: EpisodeSpec): Promise<Sandbox>;
  envOptions(task: TaskEntry): EnvOptions;
  openEnv(task: TaskEntry, sandbox: Sandbox, options: EnvOptions): Promise<PlannerEnv>;
  makeAgent: AgentFactory;
}

export interface EpisodeContext {
  readonly runDir: string;
  /** Aborted when the run is interrupted. */
  readonly signal: AbortSignal;
  /** Work that outlives the episode (closing a sandbox that opened after it stopped); the run awaits it. */
  track(work: Promise<unknown>): void;
  /** Told which backend the episode's sandbox opened on, as soon as it opened. */
  sandboxOpened?(choice: BackendChoice): void;
  /** The sandbox host running the episode (docs/sandbox-hosts.md), written into its trajectory. */
  readonly sandboxHost?: SandboxHostRef;
  /** A training episode's GRPO group, written into its trajectory's start line. */
  readonly training?: TrainingGroup;
  /** Records a warning about an episode in the run's events (a lost sandbox host, and what became of its episode). */
  warn?(message: string, episodeId: string): Promise<void>;
}

export interface EpisodeResult {
  readonly end: TrajectoryEnd;
  /** Relative to the run directory. */
  readonly trajectory: string;
  /** SWE-bench's per-instance report, relative to the run directory, when the task is graded that way. */
  readonly instanceReport: string | undefined;
}

/** How long the environment gets to end an episode from outside, to compute the patch, and to close. */
const abortDeadlineMs = 10_000;
const patchDeadlineMs = 30_000;
const closeDeadlineMs = 60_000;

interface Progress {
  /** Actions the environment executed. */
  actions: number;
  /** Step lines written (actions, plus a last line when the episode was ended from outside). */
  lines: number;
  totalReward: number;
  last: StepOutcome | undefined;
  reason: TerminationReason | undefined;
  error: string | undefined;
  infrastructure: InfrastructureFailure | undefined;
  /** A model agent's calls and replies so far (undefined for agents without a model). */
  model: ModelUsage | undefined;
  /** Steps a fork replayed from its parent. */
  replayed: number;
  /** A fork's replayed step that differed from its parent's recording. */
  forkDivergence: ForkDiverged | undefined;
}

/**
 * The task file as an absolute path with the task's line, from the spec's `file:line` (the file as
 * the person named it) and its folder; nothing when the source is not in that shape.
 */
function taskFileOf(spec: EpisodeSpec): { task_file?: { path: string; line: number } } {
  const m = /^(.*):(\d+)$/.exec(spec.source);
  const line = Number(m?.[2]);
  if (m === null || !(line >= 1)) return {};
  return { task_file: { path: resolve(spec.baseDir, basename(m[1] ?? '')), line } };
}

export async function runEpisode(spec: EpisodeSpec, deps: EpisodeDeps, episodeContext: EpisodeContext): Promise<EpisodeResult> {
  const layout = runLayout(episodeContext.runDir);
  const startedAt = Date.now();
  const progress: Progress = {
    actions: 0,
    lines: 0,
    totalReward: 0,
    last: undefined,
    reason: undefined,
    error: undefined,
    infrastructure: undefined,
    model: undefined,
    replayed: 0,
    forkDivergence: undefined,
  };
  let sandbox: Sandbox | undefined;
  let env: PlannerEnv | undefined;
  let writer: TrajectoryWriter | undefined;
  let stop: EpisodeStop | undefined;
  try {
    const configured = deps.envOptions(spec.task);
    // A fork's environment hears the recording's patch model while its prefix replays.
    const forkModels = spec.fork === undefined ? undefined : new ForkPatchModels();
    const options = forkModels?.options(configured) ?? configured;
    stop = new EpisodeStop(episodeContext.signal, options.limits.episodeTimeoutMs);
    // A sandbox still opening when the episode stops is closed once it opens; the run waits for that.
    sandbox = await stop.race(deps.openSandbox(spec), (opening) => episodeContext.track(opening.then((late) => late.close())));
    const choice = backendChoiceOf(sandbox);
    episodeContext.sandboxOpened?.(choice);
    env = await stop.race(deps.openEnv(spec.task, sandbox, options));
    const first = await stop.race(env.reset());
    const agent = deps.makeAgent(spec.task);
    if (spec.fork !== undefined) checkForkAgent(agent);
    writer = await TrajectoryWriter.begin(layout.trajectory(spec.episodeId), {
      schema_version: trajectorySchemaVersion,
      episode_id: spec.episodeId,
      task_id: spec.task.task_id,
      agent: agent.name,
      backend: choice.backend,
      ...(choice.fallback === undefined ? {} : { backend_fallback: choice.fallback }),
      ...(sandbox.spec.image === undefined ? {} : { image: sandbox.spec.image }),
      ...(episodeContext.sandboxHost === undefined ? {} : { sandbox_host: episodeContext.sandboxHost }),
      ...(episodeContext.training === undefined ? {} : { training: episodeContext.training }),
      ...(spec.fork === undefined ? {} : { fork: spec.fork.parent }),
      ...taskFileOf(spec),
      max_steps: env.maxSteps,
      rewards: options.rewards,
      started_at: isoTimestamp(new Date(startedAt)),
      observation: first,
    });
    // The start line is written first, so a fork whose reset differs still names its parent.
    if (spec.fork !== undefined) checkForkReset(spec.fork, first);
    const live =
      spec.fork === undefined || forkModels === undefined ? first : await replayForkPrefix(spec.fork, agent, env, forkModels, writer, stop, progress, first);
    await actUntilDone(agent, env, writer, stop, progress, live);
  } catch (error) {
    if (error instanceof Stopped) await endFromOutside(env, writer, error.reason, progress);
    else {
      progress.reason = 'error';
      progress.error = errorMessage(error);
      progress.infrastructure = infrastructureFailure(error);
      if (error instanceof ForkDiverged) progress.forkDivergence = error;
    }
  } finally {
    stop?.dispose();
  }
  try {
    // A step cut short from outside may still be writing its records; they land before the end line.
    await env?.settled?.().catch(() => undefined);
    const end = await endLine(spec, env, sandbox, progress, startedAt);
    const instanceReport = await writeInstanceReportFor(spec, end, episodeContext.runDir);
    if (writer) await writer.end(end);
    else await TrajectoryWriter.endOnly(layout.trajectory(spec.episodeId), end);
    return { end, trajectory: layout.trajectoryRelative(spec.episodeId), instanceReport };
  } finally {
    if (sandbox) await closeSandbox(sandbox, episodeContext);
  }
}

async function actUntilDone(agent: Agent, env: PlannerEnv, writer: TrajectoryWriter, stop: EpisodeStop, progress: Progress, first: Observation): Promise<void> {
  let observation = first;
  for (;;) {
    const agentStarted = performance.now();
    const decision = await stop.race(agent.act(observation, stop.signal));
    const agentMs = performance.now() - agentStarted;
    if (isModelDecision(decision)) progress.model = addModelStep(progress.model ?? emptyModelUsage, decision);
    const input = decision.action ?? decision.protocolError;
    if (input === undefined) throw new Error(`agent ${agent.name} returned neither an action nor a protocol error`);
    const { outcome, envMs } = await settledStep(env, input, stop);
    progress.actions += 1;
    progress.lines += 1;
    progress.totalReward += outcome.reward;
    progress.last = outcome;
    await writer.step({
      step: progress.lines,
      ...(decision.action === undefined ? {} : { action: decision.action }),
      ...(decision.response === undefined ? {} : { response: decision.response }),
      ...(decision.action === undefined && decision.protocolError !== undefined ? { protocol_error: decision.protocolError } : {}),
      ...(decision.fallbackReason === undefined ? {} : { fallback_reason: decision.fallbackReason }),
      ...(decision.model === undefined ? {} : { model: decision.model }),
      ...(decision.tokens === undefined ? {} : { tokens: decision.tokens }),
      observation: outcome.observation,
      reward: outcome.reward,
      done: outcome.done,
      ...(outcome.terminationReason === undefined ? {} : { termination_reason: outcome.terminationReason }),
      timings: { agent_ms: agentMs, env_ms: envMs, task_commands_ms: outcome.timings.task_commands_ms },
    });
    observation = outcome.observation;
    if (outcome.done) {
      progress.reason = outcome.terminationReason ?? 'submitted';
      return;
    }
  }
}

/**
 * Ends the episode through the environment, which applies the limit's penalty, and records that as
 * a last step line without an action. Before the environment existed there is nothing to record.
 */
async function endFromOutside(env: PlannerEnv | undefined, writer: TrajectoryWriter | undefined, reason: StopReason, progress: Progress): Promise<void> {
  progress.reason = reason;
  if (reason === 'interrupted') progress.error = 'the run was interrupted';
  if (env === undefined || writer === undefined) return;
  try {
    const outcome = await withDeadline(env.abort(reason), abortDeadlineMs, 'the environment did not end the episode');
    progress.lines += 1;
    progress.totalReward += outcome.reward;
    progress.last = outcome;
    await writer.step({
      step: progress.lines,
      observation: outcome.observation,
      reward: outcome.reward,
      done: true,
      termination_reason: reason,
      timings: { agent_ms: 0, env_ms: outcome.timings.env_ms, task_commands_ms: outcome.timings.task_commands_ms },
    });
  } catch (error) {
    progress.error = `${progress.error ?? reason}; ending the episode failed: ${errorMessage(error)}`;
    // Ending it grades it; a grade the infrastructure cut short is no outcome either.
    const infrastructure = infrastructureFailure(error);
    if (infrastructure !== undefined && reason !== 'interrupted') {
      progress.reason = 'error';
      progress.infrastructure = infrastructure;
    }
  }
}

async function endLine(
  spec: EpisodeSpec,
  env: PlannerEnv | undefined,
  sandbox: Sandbox | undefined,
  progress: Progress,
  startedAt: number,
): Promise<TrajectoryEnd> {
  const last = progress.last?.observation.last;
  const submit = last?.kind === 'submit' ? last : undefined;
  const grade = submit?.grade ?? env?.grade;
  // Tests that never ran, or a log that contradicts its command, say nothing about the patch: the
  // episode reaches no outcome (a resume runs it again; training masks it), never a zero.
  if (grade?.kind === 'invalid' && progress.infrastructure === undefined && progress.reason !== 'interrupted') {
    progress.reason = 'error';
    progress.error = `not gradable: ${grade.reason}`;
    progress.infrastructure = { code: 'not-gradable', cause: grade.reason, ...(grade.rule === undefined ? {} : { rule: grade.rule }) };
  }
  let patch = submit?.patch ?? '';
  // An interrupted episode runs again on resume, so Ctrl-C does not wait behind a step in flight for its diff.
  const diff = progress.reason === 'interrupted' ? undefined : (env?.patch() ?? sandbox?.diff());
  if (diff !== undefined) {
    try {
      patch = await withDeadline(diff, patchDeadlineMs, 'no diff');
    } catch {
      // The sandbox may be gone (that can be why the episode ended); the last known patch stands.
    }
  }
  // The graph's edges at the nodes the episode was shown, while the graph is still in memory (the code-graph view counts hops with them).
  const recorded = env?.graphEdges?.(maxRecordedGraphEdges);
  return {
    type: 'end',
    episode_id: spec.episodeId,
    task_id: spec.task.task_id,
    resolved: submit?.resolved ?? (grade !== undefined && gradePassed(grade)),
    steps: progress.actions,
    total_reward: progress.totalReward,
    termination_reason: progress.reason ?? 'error',
    duration_ms: Date.now() - startedAt,
    patch,
    ...(grade === undefined ? {} : { grade }),
    ...(progress.error === undefined ? {} : { error: progress.error }),
    ...(progress.infrastructure === undefined ? {} : { infrastructure: progress.infrastructure }),
    ...(progress.model === undefined ? {} : { model: progress.replayed === 0 ? progress.model : { ...progress.model, replayed_steps: progress.replayed } }),
    ...(progress.forkDivergence === undefined ? {} : { fork_divergence: { step: progress.forkDivergence.step, ...progress.forkDivergence.difference } }),
    ...(submit?.suspected_hacks === undefined ? {} : { suspected_hacks: submit.suspected_hacks.length }),
    ...(recorded === undefined || recorded.edges.length === 0
      ? {}
      : { graph_edges: recorded.edges, ...(recorded.truncated ? { graph_edges_truncated: true as const } : {}) }),
  };
}

/**
 * SWE-bench leaves a report for every instance it evaluated: the grade's report when the tests
 * ran, and one that says the patch was not evaluated otherwise. An interrupted episode will run
 * again, so it gets none; so does one the infrastructure failed.
 */
async function writeInstanceReportFor(spec: EpisodeSpec, end: TrajectoryEnd, runDir: string): Promise<string | undefined> {
  if (end.grade?.kind === 'swebench') return writeInstanceReport(runDir, spec.episodeId, end.grade.report);
  const graded = spec.task.FAIL_TO_PASS !== undefined || spec.task.PASS_TO_PASS !== undefined;
  // An interrupted episode, or one the infrastructure failed, runs again: neither was evaluated.
  if (!graded || end.termination_reason === 'interrupted' || end.infrastructure !== undefined) return undefined;
  const report = gradeInstance({
    patch: end.patch === '' ? null : end.patch,
    patchApplied: false,
    tests: new Map(),
    gold: { FAIL_TO_PASS: [], PASS_TO_PASS: [] },
  });
  return writeInstanceReport(runDir, spec.episodeId, report);
}

async function closeSandbox(sandbox: Sandbox, episodeContext: EpisodeContext): Promise<void> {
  const closing = sandbox.close();
  try {
    await withDeadline(closing, closeDeadlineMs, 'the sandbox did not close');
  } catch {
    // The run waits for it (and reaps the run's containers) before it ends.
    episodeContext.track(closing);
  }
}
