/**
 * A GRPO group's advantages as Verl 0.9.1 computes them from the group's rewards
 * (docs/upstream-contracts.md#grpo-advantage): `(r - mean) / (std + epsilon)` with the sample
 * standard deviation (divided by n - 1, as `torch.std`) and epsilon 1e-6; `r - mean` when the run
 * turned `norm_adv_by_std_in_grpo` off; a group of one has mean 0 and standard deviation 1.
 */

/** Verl's default `epsilon` of `compute_grpo_outcome_advantage`, which `compute_advantage` keeps. */
export const grpoEpsilon = 1e-6;

export interface GroupAdvantages {
  readonly mean: number;
  readonly std: number;
  /** One per reward, in order. */
  readonly advantages: number[];
}

export function grpoAdvantages(rewards: readonly number[], options: { readonly normByStd: boolean; readonly epsilon?: number }): GroupAdvantages {
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
