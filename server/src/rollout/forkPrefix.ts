/**
 * The replayed start of a forked episode (launch/forkLaunch.ts): the parent's steps before the
 * fork's step, executed again in the fork's own sandbox and each checked against its recording
 * as `gp trajectory replay` checks it (episodes/replayCompare.ts). The patch model answers as the
 * recording says (`RecordedPatchModel`) until the prefix ends and the configured one takes over;
 * the agent is told of each step it did not choose (`Agent.prime`), so it goes on from there as
 * if it had taken them. A step that differs from its recording ends the episode with an error
 * that names the step and what differs: what follows would not be a continuation of the parent.
 */
import type { Action, ProtocolError } from '../protocol/actions.js';
import type { Observation } from '../protocol/observation.js';
import type { TrajectoryStep } from '../protocol/runs.js';
import type { Agent } from '../agents/index.js';
import type { EnvOptions, PlannerEnv, StepOutcome } from '../env/index.js';
import { compareStep, type Difference } from '../episodes/index.js';
import type { TrajectoryWriter } from '../runs/index.js';
import type { ForkPrefix } from './plan.js';
import { asRecord, RecordedPatchModel } from './replay.js';
import { settledStep } from './settledStep.js';
import type { EpisodeStop } from './stop.js';

/** A replayed step of a fork's prefix that came out unlike its recording. */
export class ForkDiverged extends Error {
  constructor(
    readonly step: number,
    readonly difference: Difference,
  ) {
    super(
      `the fork's replay of its parent diverged at ${step === 0 ? 'the reset' : `step ${step}`} (${difference.where}): recorded ${difference.recorded}, replayed ${difference.replayed}; the episode was not continued`,
    );
    this.name = 'ForkDiverged';
  }
}

/** The running totals a prefix adds to, shared with the episode's live steps. */
export interface PrefixProgress {
  actions: number;
  lines: number;
  totalReward: number;
  last: StepOutcome | undefined;
  /** Steps replayed so far. */
  replayed: number;
}

/** The patch model of a fork's environment: the recording's answers during the prefix, the configured model after it. */
export class ForkPatchModels {
  private readonly recorded = new RecordedPatchModel();
  private live = false;

  options(base: EnvOptions): EnvOptions {
    return this.recorded.options(base, () => this.live);
  }

  prepare(record: TrajectoryStep): void {
    this.recorded.prepare(record);
  }

  handOver(): void {
    this.live = true;
  }
}

/** Refuses an agent that cannot take in steps it did not choose, before its first step. */
export function checkForkAgent(agent: Agent): void {
  if (agent.prime === undefined) throw new Error(`the ${agent.name} agent cannot continue a recorded episode (it cannot take in steps it did not choose)`);
}

/** Compares the fork's observation after reset with its parent's; throws `ForkDiverged` when they differ. */
export function checkForkReset(fork: ForkPrefix, first: Observation): void {
  const difference = compareStep(asRecord(fork.reset, 0, false, undefined), asRecord(first, 0, false, undefined));
  if (difference !== undefined) throw new ForkDiverged(0, difference);
}

/**
 * Replays the prefix, writing each step as the fork's sandbox gave it (marked `replayed`), and
 * returns the observation the agent acts on first. Time spent is the environment's; the agent's
 * is zero, for it chose nothing.
 */
export async function replayForkPrefix(
  fork: ForkPrefix,
  agent: Agent,
  env: PlannerEnv,
  models: ForkPatchModels,
  writer: TrajectoryWriter,
  stop: EpisodeStop,
  progress: PrefixProgress,
  first: Observation,
): Promise<Observation> {
  let observation = first;
  for (const record of fork.steps) {
    const input: Action | ProtocolError | undefined = record.action ?? record.protocol_error;
    // launch/forkLaunch.ts refuses a prefix with such a step; a hand-made spec is refused here too.
    if (input === undefined) throw new Error(`step ${record.step} of the parent records no action and cannot be replayed`);
    agent.prime?.(observation, {
      ...(record.action === undefined ? {} : { action: record.action }),
      ...(record.protocol_error === undefined ? {} : { protocolError: record.protocol_error }),
      ...(record.response === undefined ? {} : { response: record.response }),
    });
    models.prepare(record);
    const { outcome, envMs } = await settledStep(env, input, stop);
    const difference = compareStep(
      asRecord(record.observation, record.reward, record.done, record.termination_reason),
      asRecord(outcome.observation, outcome.reward, outcome.done, outcome.terminationReason),
    );
    if (difference !== undefined) throw new ForkDiverged(record.step, difference);
    progress.actions += 1;
    progress.lines += 1;
    progress.replayed += 1;
    progress.totalReward += outcome.reward;
    progress.last = outcome;
    await writer.step({
      step: progress.lines,
      ...(record.action === undefined ? {} : { action: record.action }),
      ...(record.response === undefined ? {} : { response: record.response }),
      ...(record.action === undefined && record.protocol_error !== undefined ? { protocol_error: record.protocol_error } : {}),
      observation: outcome.observation,
      reward: outcome.reward,
      done: outcome.done,
      ...(outcome.terminationReason === undefined ? {} : { termination_reason: outcome.terminationReason }),
      timings: { agent_ms: 0, env_ms: envMs, task_commands_ms: outcome.timings.task_commands_ms },
      replayed: true,
    });
    observation = outcome.observation;
  }
  models.handOver();
  return observation;
}
