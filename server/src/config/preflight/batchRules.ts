/**
 * Verl's batch invariants (docs/upstream-contracts.md#verl-batch-invariants): a step's prompts split into whole
 * mini-batches, and a step's episodes (train_batch_size × rollout_n) split evenly across the GPUs,
 * which is FSDP's minimal batch. Fixes propose the nearest value that satisfies every batch rule.
 */
import type { ExperimentConfig } from '../schema.js';
import { finding, type KeyPath } from '../../protocol/index.js';
import { gcd, lcm, nearestDivisor, nearestPositiveMultiple } from './arith.js';
import { describeGpus, NUM_GPUS, totalGpus } from './gpus.js';
import { related, setFix, type Rule } from './rule.js';

const TRAIN_BATCH: KeyPath = ['training', 'train_batch_size'];
const MINI_BATCH: KeyPath = ['training', 'ppo_mini_batch_size'];
const ROLLOUT_N: KeyPath = ['training', 'rollout_n'];
const ESTIMATOR: KeyPath = ['training', 'adv_estimator'];

export const miniBatchRule: Rule = {
  name: 'mini-batch',
  check(config) {
    const { train_batch_size: train, ppo_mini_batch_size: mini, rollout_n: n } = config.training;
    // A null mini-batch means one update per step, which always divides.
    if (mini === null) return [];
    const rel = [related(TRAIN_BATCH, `${train} tasks per step`)];
    if (mini > train) {
      return [
        finding({
          code: 'preflight/mini-batch-exceeds-batch',
          severity: 'error',
          message: `ppo_mini_batch_size (${mini}) is larger than train_batch_size (${train}); Verl cannot take a mini-batch bigger than the step's batch. Lower it to ${train} or less.`,
          path: MINI_BATCH,
          related: rel,
          fixes: [
            setFix(`Set ppo_mini_batch_size to ${train}`, [[MINI_BATCH, train]], true),
            setFix('Use one update per step: set ppo_mini_batch_size to null', [[MINI_BATCH, null]]),
          ],
        }),
      ];
    }
    if (train % mini === 0) return [];
    const nearest = nearestDivisor(train, mini);
    return [
      finding({
        code: 'preflight/mini-batch-not-divisor',
        severity: 'error',
        message: `train_batch_size × rollout_n (${train * n}) is not divisible by ppo_mini_batch_size × rollout_n (${mini * n}); Verl splits each step into whole mini-batches. Use a divisor of ${train} such as ${nearest}.`,
        path: MINI_BATCH,
        related: rel,
        fixes: [setFix(`Set ppo_mini_batch_size to ${nearest}`, [[MINI_BATCH, nearest]], true)],
      }),
    ];
  },
};

export const gpuBatchRule: Rule = {
  name: 'gpu-batch',
  check(config) {
    const { train_batch_size: train, ppo_mini_batch_size: mini, rollout_n: n } = config.training;
    const total = totalGpus(config);
    // Without GPUs there is no FSDP split to divide by.
    if (total === 0 || (train * n) % total === 0) return [];
    // train × n is a multiple of total exactly when train is a multiple of total / gcd(n, total);
    // the proposal also stays a multiple of the mini-batch so the fix does not break that rule.
    const trainStep = lcm(total / gcd(n, total), mini ?? 1);
    const trainFix = nearestPositiveMultiple(trainStep, train);
    const nFix = nearestPositiveMultiple(total / gcd(train, total), n);
    return [
      finding({
        code: 'preflight/batch-not-divisible-by-gpus',
        severity: 'error',
        message: `train_batch_size × rollout_n (${train} × ${n} = ${train * n} episodes) must be divisible by the ${describeGpus(config)}, which is Verl's minimal batch for FSDP. Set train_batch_size to ${trainFix} or rollout_n to ${nFix}.`,
        path: TRAIN_BATCH,
        related: [related(ROLLOUT_N, `${n} episodes per task`), related(NUM_GPUS, `${total} GPUs in all`)],
        fixes: [setFix(`Set train_batch_size to ${trainFix}`, [[TRAIN_BATCH, trainFix]], true), setFix(`Set rollout_n to ${nFix}`, [[ROLLOUT_N, nFix]])],
      }),
    ];
  },
};

/** Estimators whose advantage is an episode's reward against its group's mean. */
const GROUP_ESTIMATORS: ReadonlySet<ExperimentConfig['training']['adv_estimator']> = new Set(['grpo', 'rloo']);

export const groupSizeRule: Rule = {
  name: 'group-size',
  check(config) {
    const { adv_estimator: estimator, rollout_n: n, train_batch_size: train } = config.training;
    if (!GROUP_ESTIMATORS.has(estimator) || n !== 1) return [];
    // The smallest group above one that keeps train × n divisible by the GPUs.
    const total = Math.max(1, totalGpus(config));
    const step = total / gcd(train, total);
    const proposal = step >= 2 ? step : step * Math.ceil(2 / step);
    return [
      finding({
        code: 'preflight/group-size-one',
        severity: 'warning',
        message: `${estimator.toUpperCase()} compares each episode with the other episodes of its task, but rollout_n is 1, so every advantage is zero and the policy never learns. Sample at least 2 episodes per task.`,
        path: ROLLOUT_N,
        related: [related(ESTIMATOR, `${estimator} needs a group of episodes per task`)],
        fixes: [setFix(`Set rollout_n to ${proposal}`, [[ROLLOUT_N, proposal]], true)],
      }),
    ];
  },
};
