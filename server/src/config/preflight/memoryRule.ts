/**
 * The GPU memory estimate for each locally served model whose `config.json` is on disk: an info
 * finding with the estimate when it fits `backends.max_gpu_memory`, a warning when it does not.
 * A model folder that does not exist is left to pathsExistRule.
 */
import { join } from 'node:path';
import type { ExperimentConfig } from '../schema.js';
import { finding, type Finding, type Fix, type KeyPath } from '../../protocol/index.js';
import {
  DEFAULT_GPU_MEMORY_BYTES,
  estimateGpuMemory,
  formatGiB,
  formatParameters,
  parseMemorySize,
  parseModelShape,
  type EstimateOptions,
  type MemoryEstimate,
  type ModelShape,
} from '../memoryEstimate.js';
import { readJson, resolvePath } from './files.js';
import { isLocal, totalGpus } from './gpus.js';
import { related, setFix, type DiskRule } from './rule.js';

type Role = 'planner' | 'cgm';

/**
 * CGM's prompt limit is not part of the experiment schema; this is the original's default
 * (`cgm.max_input_tokens`, see docs/original-system.md#h5-runtime-defaults).
 */
const CGM_INPUT_TOKENS = 8192;
const MAX_MEMORY: KeyPath = ['backends', 'max_gpu_memory'];
const DTYPE: KeyPath = ['backends', 'dtype'];

function roleKeys(role: Role) {
  return role === 'planner'
    ? { model: 'planner_model', tp: 'tensor_parallel_planner', label: 'Planner' }
    : { model: 'cgm_model', tp: 'tensor_parallel_cgm', label: 'CGM' };
}

function options(config: ExperimentConfig, role: Role, tensorParallel: number): EstimateOptions {
  const { parallel_agents: agents, replicas } = config.parallel;
  if (role === 'planner') {
    return {
      dtype: config.backends.dtype,
      tensorParallel,
      contextTokens: config.planner_sampling.max_input_tokens + config.planner_sampling.max_new_tokens,
      // Agents spread their requests over the planner replicas.
      sequences: Math.ceil(agents / replicas),
    };
  }
  return {
    dtype: config.backends.dtype,
    tensorParallel,
    contextTokens: CGM_INPUT_TOKENS + config.cgm_generation.max_new_tokens,
    sequences: agents * config.cgm_generation.num_return_sequences,
  };
}

/** The smallest tensor parallel size above the current one that fits and the run can use. */
function fittingTensorParallel(config: ExperimentConfig, role: Role, shape: ModelShape, budget: number, current: number) {
  const total = totalGpus(config);
  for (let tp = current + 1; tp <= total; tp++) {
    // The planner's TP must divide the GPU count (tp-not-divisor); CGM's need not.
    if (role === 'planner' && total % tp !== 0) continue;
    if (estimateGpuMemory(shape, options(config, role, tp)).totalBytes <= budget) return tp;
  }
  return undefined;
}

function describeEstimate(label: string, e: MemoryEstimate, config: ExperimentConfig, tp: number): string {
  return `${label} (${formatParameters(e.parameters)} parameters, ${config.backends.dtype}, tensor parallel ${tp}) needs about ${formatGiB(e.totalBytes)} per GPU: ${formatGiB(e.weightBytes)} weights + ${formatGiB(e.kvCacheBytes)} KV cache + ${formatGiB(e.overheadBytes)} runtime overhead`;
}

async function estimateFor(config: ExperimentConfig, role: Role, baseDir: string): Promise<Finding[]> {
  if (!isLocal(config, role)) return [];
  const keys = roleKeys(role);
  const modelPath: KeyPath = ['paths', keys.model];
  const tpPath: KeyPath = ['parallel', keys.tp];
  const folder = resolvePath(baseDir, role === 'planner' ? config.paths.planner_model : config.paths.cgm_model);
  const read = await readJson(join(folder, 'config.json'));
  if (read.kind === 'missing') return [];
  const shape = read.kind === 'ok' ? parseModelShape(read.value) : { ok: false as const, reason: read.reason };
  if (!shape.ok) {
    return [
      finding({
        code: 'preflight/memory-estimate-unavailable',
        severity: 'info',
        message: `No GPU memory estimate for the ${keys.label.toLowerCase()}: ${join(folder, 'config.json')}: ${shape.reason}.`,
        path: modelPath,
      }),
    ];
  }
  const tp = role === 'planner' ? config.parallel.tensor_parallel_planner : config.parallel.tensor_parallel_cgm;
  const budgetText = config.backends.max_gpu_memory;
  const budget = (budgetText === null ? undefined : parseMemorySize(budgetText)) ?? DEFAULT_GPU_MEMORY_BYTES;
  const estimate = estimateGpuMemory(shape.shape, options(config, role, tp));
  const rel = [
    related(tpPath, `split across ${tp} GPU${tp === 1 ? '' : 's'}`),
    related(DTYPE, `${config.backends.dtype} weights`),
    related(MAX_MEMORY, `${formatGiB(budget)} per GPU${budgetText === null ? ' (the default)' : ''}`),
  ];
  const summary = describeEstimate(keys.label, estimate, config, tp);
  if (estimate.totalBytes <= budget) {
    return [
      finding({
        code: 'preflight/gpu-memory-estimate',
        severity: 'info',
        message: `${summary}, within the ${formatGiB(budget)} of one GPU.`,
        path: modelPath,
        related: rel,
      }),
    ];
  }
  const fixes: Fix[] = [];
  const better = fittingTensorParallel(config, role, shape.shape, budget, tp);
  if (better !== undefined) fixes.push(setFix(`Set ${keys.tp} to ${better}`, [[tpPath, better]], true));
  return [
    finding({
      code: 'preflight/gpu-memory-exceeded',
      severity: 'warning',
      message: `${summary}, more than the ${formatGiB(budget)} of one GPU. Raise ${keys.tp}, use a 16-bit dtype, or set max_gpu_memory if your GPUs are larger.`,
      path: modelPath,
      related: rel,
      fixes,
    }),
  ];
}

export const memoryEstimateRule: DiskRule = {
  name: 'memory-estimate',
  async check(config, baseDir) {
    const [planner, cgm] = await Promise.all([estimateFor(config, 'planner', baseDir), estimateFor(config, 'cgm', baseDir)]);
    return [...planner, ...cgm];
  },
};
