/**
 * Which training episodes reached no outcome, read from how they ended. Our agent loop hands Verl
 * such an episode with every response token masked and reward 0 (python/graph_planner_verl/
 * agent_loop.py, `_failed`), and GRPO over real outcomes leaves it out of its group
 * (python/graph_planner_verl/real_outcome_grpo.py, docs/training.md#failed-members). The agent
 * loop fails a sample when the service refuses its step or close: the service refuses a close
 * whose episode the infrastructure failed (its end line names the failure), and the agent loop
 * closes every other failed episode with `interrupted`, which no training episode that reached an
 * outcome ends with (its loop closes it with `max_steps`, and the episode's own end wins).
 */
import type { TerminationReason } from './observation.js';
import type { InfrastructureFailure } from './runs.js';

/** What an episode's end says about its outcome. */
export interface EndedHow {
  readonly termination_reason: TerminationReason | string;
  readonly infrastructure?: Pick<InfrastructureFailure, 'code'> | undefined;
}

/**
 * Why the episode reached no outcome, as a short reason a person reads (`host-lost`,
 * `not-gradable`, … or `interrupted`); null when it reached one.
 */
export function noOutcomeReason(end: EndedHow): string | null {
  if (end.infrastructure !== undefined) return end.infrastructure.code;
  return end.termination_reason === 'interrupted' ? 'interrupted' : null;
}

/** What GRPO over real outcomes does with a member that reached no outcome (`training.failed_members`). */
export const failedMemberRules = ['exclude', 'drop_group'] as const;
export type FailedMemberRule = (typeof failedMemberRules)[number];

/**
 * The estimator `training.adv_estimator: grpo` runs as under `gp train`: Verl's GRPO over the
 * group members that reached an outcome, registered through Verl's estimator registry
 * (python/graph_planner_verl/real_outcome_grpo.py). Runs written before it trained with Verl's
 * plain `grpo`; their resolved config has no `training.failed_members`.
 */
export const realOutcomeEstimator = 'grpo_real_outcomes';
