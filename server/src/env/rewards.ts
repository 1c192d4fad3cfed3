/**
 * Rewards and termination (ARCHITECTURE.md §4.4–4.5; the original's, docs/original-system.md#b4-rewards-and-termination, with its sign defect fixed): penalties are
 * non-negative magnitudes that are subtracted, so a failed or timed-out episode never earns more
 * than a solved one.
 */
import type { TerminationReason } from '../protocol/observation.js';
import type { RewardSettings } from './types.js';

/** Reasons that count as hitting a limit, which costs the timeout penalty on top of the failure penalty. */
const limitReasons: ReadonlySet<TerminationReason> = new Set(['max_steps', 'repo_op_limit', 'step_timeout', 'episode_timeout']);

export interface StepVerdict {
  done: boolean;
  /** Whether the episode ended with a fix (a submit whose tests passed). */
  resolved: boolean;
  reason?: TerminationReason;
  /**
   * The reward a Harbor task's verifier wrote for the submit that ended the episode
   * (docs/field-formats.md, "Running a Harbor task"); absent for tasks graded by their tests.
   */
  verifierReward?: number;
}

/**
 * The reward of one step. A step that does not end the episode costs `step_penalty`. The last
 * step earns `reward_scale` when resolved, otherwise loses `failure_penalty`, and also loses
 * `timeout_penalty` when a limit ended it; a submit a Harbor verifier graded earns `reward_scale`
 * times the verifier's reward instead. An interrupted episode (Ctrl-C) earns nothing either
 * way: it says nothing about the agent.
 */
export function stepReward(rewards: RewardSettings, verdict: StepVerdict): number {
  if (!verdict.done) return -rewards.step_penalty;
  if (verdict.reason === 'interrupted') return 0;
  // A verifier's reward is the episode's payoff as it stands, partial rewards included, so it
  // replaces both the resolved payoff and the failure penalty.
  if (verdict.reason === 'submitted' && verdict.verifierReward !== undefined) return rewards.reward_scale * verdict.verifierReward;
  if (verdict.resolved) return rewards.reward_scale;
  let reward = -rewards.failure_penalty;
  if (verdict.reason !== undefined && limitReasons.has(verdict.reason)) reward -= rewards.timeout_penalty;
  return reward;
}

export interface LimitState {
  steps: number;
  repoOps: number;
  maxSteps: number;
  repoOpLimit: number | null;
}

/** Which limit, if any, ends the episode after a step that did not end it by itself. */
export function limitReached(state: LimitState): TerminationReason | undefined {
  if (state.repoOpLimit !== null && state.repoOps >= state.repoOpLimit) return 'repo_op_limit';
  if (state.steps >= state.maxSteps) return 'max_steps';
  return undefined;
}
