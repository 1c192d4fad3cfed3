/**
 * A GRPO group's advantages as Verl 0.9.1 computes them from the group's rewards
 * (docs/upstream-contracts.md#grpo-advantage): `(r - mean) / (std + epsilon)` with the sample
 * standard deviation (divided by n - 1, as `torch.std`) and epsilon 1e-6; `r - mean` when the run
 * turned `norm_adv_by_std_in_grpo` off; a group of one has mean 0 and standard deviation 1.
 *
 * `gp train` runs GRPO over real outcomes (python/graph_planner_verl/real_outcome_grpo.py): Verl's
 * numbers over the members that reached an outcome only. `realOutcomeAdvantages` is that rule, and
 * test/fixtures/grpo-real-outcomes/cases.json holds groups with the numbers the Python estimator
 * gives them, which both sides' tests check.
 */
import type { FailedMemberRule } from '../protocol/noOutcome.js';

/** Verl's default `epsilon` of `compute_grpo_outcome_advantage`, which `compute_advantage` keeps. */
export const grpoEpsilon = 1e-6;

export interface GroupAdvantages {
  /** Over the members that count; null when none does (the group contributes nothing). */
  readonly mean: number | null;
  readonly std: number | null;
  /** One per reward, in order. */
  readonly advantages: number[];
}

export interface AdvantageOptions {
  readonly normByStd: boolean;
  readonly epsilon?: number;
}

export function grpoAdvantages(rewards: readonly number[], options: AdvantageOptions): GroupAdvantages & { mean: number; std: number } {
  const epsilon = options.epsilon ?? grpoEpsilon;
  const n = rewards.length;
  let mean = 0;
  let std = 1;
  if (n > 1) {
    mean = rewards.reduce((a, b) => a + b, 0) / n;
    std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1));
  }
  return { mean, std, advantages: rewards.map((r) => (options.normByStd ? (r - mean) / (std + epsilon) : r - mean)) };
}

/** Which members count in a group under GRPO over real outcomes: a bool per member. */
export function countedMembers(hasOutcome: readonly boolean[], rule: FailedMemberRule): boolean[] {
  const real = hasOutcome.filter(Boolean).length;
  if (real === hasOutcome.length) return [...hasOutcome];
  if (rule === 'drop_group' || real < 2) return hasOutcome.map(() => false);
  return [...hasOutcome];
}

/**
 * GRPO over the members that reached an outcome: a member without one gets 0 and is left out of
 * the mean and standard deviation; a group left with fewer than two outcomes, or any failure under
 * `drop_group`, gets 0 throughout. A group without failures gets exactly `grpoAdvantages`.
 */
export function realOutcomeAdvantages(
  rewards: readonly number[],
  hasOutcome: readonly boolean[],
  options: AdvantageOptions & { readonly rule: FailedMemberRule },
): GroupAdvantages & { counted: boolean[] } {
  const counted = countedMembers(hasOutcome, options.rule);
  const kept = rewards.filter((_, i) => counted[i] === true);
  if (kept.length === 0) return { mean: null, std: null, advantages: rewards.map(() => 0), counted };
  const figures = grpoAdvantages(kept, options);
  let next = 0;
  const advantages = rewards.map((_, i) => (counted[i] === true ? (figures.advantages[next++] ?? 0) : 0));
  return { mean: figures.mean, std: figures.std, advantages, counted };
}
