/**
 * Tensor parallelism, replicas and workflow concurrency against the GPUs a run has. Unlike the
 * original (rule 2 of docs/original-system.md#h4-preflight), planner and CGM may share GPUs
 * (ARCHITECTURE.md §4.6): a single-GPU debug run with both models on GPU 0 is reported as
 * information, never rejected.
 */
import type { ExperimentConfig } from '../schema.js';
import { finding, type Finding, type Fix, type KeyPath } from '../../protocol/index.js';
import { nearestDivisor } from './arith.js';
import { describeGpus, gpusPerNodeFor, isLocal, NUM_GPUS, NUM_NODES, raiseGpusFix, totalGpus } from './gpus.js';
import { related, setFix, type Rule } from './rule.js';

const TP_PLANNER: KeyPath = ['parallel', 'tensor_parallel_planner'];
const TP_CGM: KeyPath = ['parallel', 'tensor_parallel_cgm'];
const REPLICAS: KeyPath = ['parallel', 'replicas'];
const WORKFLOW: KeyPath = ['parallel', 'workflow_parallel'];
const MAP_PLANNER: KeyPath = ['backends', 'device_map_planner'];
const MAP_CGM: KeyPath = ['backends', 'device_map_cgm'];

function gpuRelated(config: ExperimentConfig) {
  const out = [related(NUM_GPUS, `GPUs per node: ${config.resources.num_gpus}`)];
  if (config.resources.num_nodes > 1) out.push(related(NUM_NODES, `${config.resources.num_nodes} nodes`));
  return out;
}

/** One model's tensor parallel size against the total GPU count. */
function checkTensorParallel(config: ExperimentConfig, role: 'planner' | 'cgm'): Finding[] {
  if (!isLocal(config, role)) return [];
  const path = role === 'planner' ? TP_PLANNER : TP_CGM;
  const key = role === 'planner' ? 'tensor_parallel_planner' : 'tensor_parallel_cgm';
  const tp = role === 'planner' ? config.parallel.tensor_parallel_planner : config.parallel.tensor_parallel_cgm;
  const total = totalGpus(config);
  // Verl splits the cluster into rollout groups of the planner's TP size; CGM is served on its own.
  const divisor = role === 'planner' ? tp : 1;
  if (tp > total) {
    const fixes: Fix[] = [];
    if (total >= 1) fixes.push(setFix(`Lower ${key} to ${total}`, [[path, total]], true));
    fixes.push(raiseGpusFix(config, gpusPerNodeFor(config, tp, divisor), total === 0));
    return [
      finding({
        code: 'preflight/tp-exceeds-gpus',
        severity: 'error',
        message: `${key} is ${tp}, but the run has ${describeGpus(config)}; one ${role === 'planner' ? 'planner' : 'CGM'} replica cannot be split across more GPUs than exist. Lower ${key} or add GPUs.`,
        path,
        related: gpuRelated(config),
        fixes,
      }),
    ];
  }
  if (role === 'planner' && total % tp !== 0) {
    const nearest = nearestDivisor(total, tp);
    return [
      finding({
        code: 'preflight/tp-not-divisor',
        severity: 'error',
        message: `Verl needs the total GPU count to be a multiple of tensor_parallel_planner, but ${describeGpus(config)} is not divisible by ${tp}. Use a divisor of ${total} such as ${nearest}.`,
        path,
        related: gpuRelated(config),
        fixes: [setFix(`Set ${key} to ${nearest}`, [[path, nearest]], true), raiseGpusFix(config, gpusPerNodeFor(config, total, tp))],
      }),
    ];
  }
  return [];
}

export const tensorParallelRule: Rule = {
  name: 'tensor-parallel',
  check: (config) => [...checkTensorParallel(config, 'planner'), ...checkTensorParallel(config, 'cgm')],
};

/** Device indices both maps name; empty when either map is unset. */
function overlap(a: readonly number[], b: readonly number[]): number[] {
  const inB = new Set(b);
  return [...new Set(a.filter((i) => inB.has(i)))].sort((x, y) => x - y);
}

/**
 * Planner plus CGM needing more GPUs than the run has is fine when they share devices (their maps
 * overlap, or a map is unset and the trainer places them together); it is an error only when the
 * maps put them on separate GPUs that do not exist.
 */
export const sharedDevicesRule: Rule = {
  name: 'shared-devices',
  check(config) {
    if (!isLocal(config, 'planner') || !isLocal(config, 'cgm')) return [];
    const { tensor_parallel_planner: tpP, tensor_parallel_cgm: tpC } = config.parallel;
    const total = totalGpus(config);
    // When either model alone exceeds the GPUs, tp-exceeds-gpus already says so.
    if (tpP + tpC <= total || tpP > total || tpC > total) return [];
    const mapP = config.backends.device_map_planner;
    const mapC = config.backends.device_map_cgm;
    const shared = overlap(mapP, mapC);
    const rel = [
      related(TP_PLANNER, `planner tensor parallel ${tpP}`),
      ...gpuRelated(config),
      ...(mapP.length > 0 ? [related(MAP_PLANNER, 'planner GPUs')] : []),
      ...(mapC.length > 0 ? [related(MAP_CGM, 'CGM GPUs')] : []),
    ];
    if (shared.length > 0 || mapP.length === 0 || mapC.length === 0) {
      const where = shared.length > 0 ? `GPU ${shared.join(', ')}` : 'the same GPUs';
      return [
        finding({
          code: 'preflight/shared-devices',
          severity: 'info',
          message: `Planner (TP ${tpP}) and CGM (TP ${tpC}) need ${tpP + tpC} GPUs on their own but the run has ${describeGpus(config)}, so they share ${where}. That is fine for a debug run; each model gets only part of the memory.`,
          path: TP_CGM,
          related: rel,
        }),
      ];
    }
    return [
      finding({
        code: 'preflight/tp-sum-exceeds-gpus',
        severity: 'error',
        message: `The device maps put planner (TP ${tpP}) and CGM (TP ${tpC}) on separate GPUs, which needs ${tpP + tpC} GPUs, but the run has ${describeGpus(config)}. Add GPUs, or let the maps overlap so the models share GPUs.`,
        path: TP_CGM,
        related: rel,
        fixes: [raiseGpusFix(config, gpusPerNodeFor(config, tpP + tpC, tpP), true)],
      }),
    ];
  },
};

export const replicasRule: Rule = {
  name: 'replicas',
  check(config) {
    const { replicas, tensor_parallel_planner: tp } = config.parallel;
    const total = totalGpus(config);
    // A planner that does not fit once is reported by tp-exceeds-gpus; one finding is enough.
    if (!isLocal(config, 'planner') || tp > total || replicas * tp <= total) return [];
    const fit = Math.floor(total / tp);
    return [
      finding({
        code: 'preflight/replicas-exceed-gpus',
        severity: 'error',
        message: `${replicas} planner replicas × tensor_parallel_planner ${tp} need ${replicas * tp} GPUs, but the run has ${describeGpus(config)}. Lower replicas to ${fit} or add GPUs.`,
        path: REPLICAS,
        related: [related(TP_PLANNER, `each replica uses ${tp} GPUs`), ...gpuRelated(config)],
        fixes: [setFix(`Lower replicas to ${fit}`, [[REPLICAS, fit]], true), raiseGpusFix(config, gpusPerNodeFor(config, replicas * tp, tp))],
      }),
    ];
  },
};

export const workflowParallelRule: Rule = {
  name: 'workflow-parallel',
  check(config) {
    const { workflow_parallel: workflow, parallel_agents: agents, rollout_workers: workers } = config.parallel;
    const need = Math.max(agents, workers);
    if (workflow >= need) return [];
    return [
      finding({
        code: 'preflight/workflow-parallel-too-low',
        severity: 'error',
        message: `workflow_parallel is ${workflow}, fewer than the ${need} tasks that parallel_agents (${agents}) and rollout_workers (${workers}) keep in flight; agents and workers would sit idle. Raise workflow_parallel to at least ${need}.`,
        path: WORKFLOW,
        related: [
          related(['parallel', 'parallel_agents'], `${agents} agents step episodes at once`),
          related(['parallel', 'rollout_workers'], `${workers} rollout workers`),
        ],
        fixes: [setFix(`Raise workflow_parallel to ${need}`, [[WORKFLOW, need]], true)],
      }),
    ];
  },
};
