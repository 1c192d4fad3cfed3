/**
 * Ray's scheduling budget must cover what the run asks of it: every trainer GPU and every planner
 * replica, and four CPUs per rollout worker (rules 6 and 7 of docs/original-system.md#h4-preflight, and the train script's check).
 */
import type { ExperimentConfig } from '../schema.js';
import { finding, type KeyPath } from '../../protocol/index.js';
import { describeGpus, NUM_GPUS, RAY_NUM_GPUS, totalGpus } from './gpus.js';
import { related, setFix, type Rule } from './rule.js';

const RAY_NUM_CPUS: KeyPath = ['resources', 'ray_num_cpus'];
const CPUS_PER_WORKER = 4;

/** GPUs Ray must be able to schedule: every trainer GPU, and a GPU per planner replica. */
export function rayGpusNeeded(config: ExperimentConfig): number {
  return Math.max(totalGpus(config), config.parallel.replicas);
}

/** CPUs Ray must be able to schedule: four per rollout worker. */
export function rayCpusNeeded(config: ExperimentConfig): number {
  return Math.max(1, config.parallel.rollout_workers) * CPUS_PER_WORKER;
}

export const rayGpuRule: Rule = {
  name: 'ray-gpus',
  check(config) {
    const ray = config.resources.ray_num_gpus;
    const total = totalGpus(config);
    const replicas = config.parallel.replicas;
    const need = rayGpusNeeded(config);
    if (ray >= need) return [];
    const rel = [];
    if (ray < total) rel.push(related(NUM_GPUS, `the trainer uses ${describeGpus(config)}`));
    if (ray < replicas) rel.push(related(['parallel', 'replicas'], `${replicas} planner replicas need a GPU each`));
    return [
      finding({
        code: 'preflight/ray-gpu-budget',
        severity: 'error',
        message: `ray_num_gpus is ${ray}, but the run needs ${need} (the larger of its ${total} trainer GPUs and ${replicas} replicas); Ray would never schedule the missing workers. Raise ray_num_gpus to ${need}.`,
        path: RAY_NUM_GPUS,
        related: rel,
        fixes: [setFix(`Raise ray_num_gpus to ${need}`, [[RAY_NUM_GPUS, need]], true)],
      }),
    ];
  },
};

export const rayCpuRule: Rule = {
  name: 'ray-cpus',
  check(config) {
    const workers = config.parallel.rollout_workers;
    const need = rayCpusNeeded(config);
    const cpus = config.resources.ray_num_cpus;
    if (cpus >= need) return [];
    return [
      finding({
        code: 'preflight/ray-cpu-budget',
        severity: 'error',
        message: `ray_num_cpus is ${cpus}, but ${workers} rollout worker${workers === 1 ? '' : 's'} need ${CPUS_PER_WORKER} CPUs each (${need}). Raise ray_num_cpus to ${need} or use fewer rollout workers.`,
        path: RAY_NUM_CPUS,
        related: [related(['parallel', 'rollout_workers'], `${workers} rollout workers`)],
        fixes: [setFix(`Raise ray_num_cpus to ${need}`, [[RAY_NUM_CPUS, need]], true)],
      }),
    ];
  },
};
