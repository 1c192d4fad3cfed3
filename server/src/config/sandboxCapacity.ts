/**
 * How many sandboxes a machine can hold, and how many a run asks for at once (issue 22's capacity
 * arithmetic; the sandbox hosts that will advertise these slots to Ray are planned). A sandbox
 * takes the config's `sandbox.cpus` and `sandbox.memory` (docs/kubernetes.md has the same sum
 * for a cluster's quota); a node keeps some of each for itself, its Docker daemon and the trainer's
 * processes. Pure arithmetic, so the preflight, the hosts and the editor agree on one answer.
 */
import { finding, type Finding, type KeyPath } from '../protocol/index.js';
import { parseMemorySize } from './memoryEstimate.js';
import type { ExperimentConfig } from './schema.js';

export interface NodeResources {
  readonly cpus: number;
  readonly memoryBytes: number;
}

/** What a node keeps for itself: one CPU and 2 GiB, or an eighth of each on a large machine. */
export function nodeReserve(node: NodeResources): NodeResources {
  return { cpus: Math.max(1, node.cpus / 8), memoryBytes: Math.max(2 * 1024 ** 3, node.memoryBytes / 8) };
}

export interface SlotCount {
  readonly slots: number;
  /** Which resource ran out first (`override` when the count was given). */
  readonly limitedBy: 'cpus' | 'memory' | 'override';
}

/**
 * Sandboxes that fit on a node at once: what is left after its reserve, divided by one sandbox's
 * CPUs and memory, whichever runs out first. A sandbox with no CPU or memory limit (null) counts
 * as one CPU, or as using no memory, since nothing stops it taking more. `override` wins.
 */
export function sandboxSlots(node: NodeResources, sandbox: ExperimentConfig['sandbox'], override?: number): SlotCount {
  if (override !== undefined) return { slots: Math.max(0, Math.floor(override)), limitedBy: 'override' };
  const reserve = nodeReserve(node);
  const cpuEach = sandbox.cpus ?? 1;
  const byCpu = Math.floor(Math.max(0, node.cpus - reserve.cpus) / cpuEach);
  const memoryEach = sandbox.memory === null ? undefined : parseMemorySize(sandbox.memory);
  const byMemory = memoryEach === undefined || memoryEach <= 0 ? Number.POSITIVE_INFINITY : Math.floor(Math.max(0, node.memoryBytes - reserve.memoryBytes) / memoryEach);
  return byMemory < byCpu ? { slots: byMemory, limitedBy: 'memory' } : { slots: byCpu, limitedBy: 'cpus' };
}

/**
 * Episodes a command runs at once: a training step samples `rollout_n` episodes of each of its
 * `train_batch_size` tasks together; a rollout or an evaluation runs `rollout.parallel`.
 */
export function concurrentEpisodes(config: ExperimentConfig, command: 'train' | 'eval' | 'rollout'): { episodes: number; why: string } {
  if (command === 'train') {
    const { train_batch_size: batch, rollout_n: group } = config.training;
    return { episodes: batch * group, why: `training.train_batch_size ${batch} × training.rollout_n ${group}` };
  }
  return { episodes: config.rollout.parallel, why: `rollout.parallel ${config.rollout.parallel}` };
}

/** What a cluster offers: its sandbox slots and over how many nodes (from Ray's resources). */
export interface ClusterCapacity {
  readonly slots: number;
  readonly nodes: number;
}

/**
 * The capacity preflight: a warning when a command asks for more episodes at once than the
 * cluster has sandbox slots (the rest wait for a slot, and the step takes that much longer), with
 * the numbers; a note when no cluster was named, so the sum could not be made.
 */
export function capacityFinding(config: ExperimentConfig, command: 'train' | 'eval' | 'rollout', cluster: ClusterCapacity | undefined): Finding | undefined {
  const { episodes, why } = concurrentEpisodes(config, command);
  const path: KeyPath = command === 'train' ? ['training', 'train_batch_size'] : ['rollout', 'parallel'];
  if (cluster === undefined) {
    return finding({ code: 'preflight/sandbox-capacity-unknown', severity: 'info', message: `${episodes} episodes run at once (${why}); without a Ray address the cluster's sandbox slots are not known, so whether they fit was not checked.`, path });
  }
  if (episodes <= cluster.slots) return undefined;
  return finding({
    code: 'preflight/sandbox-capacity',
    severity: 'warning',
    message: `${episodes} episodes run at once (${why}), but the cluster offers ${cluster.slots} sandbox slot${cluster.slots === 1 ? '' : 's'} on ${cluster.nodes} node${cluster.nodes === 1 ? '' : 's'}: ${episodes - cluster.slots} wait for a slot each time, so a step takes about ${Math.ceil(episodes / Math.max(1, cluster.slots))} rounds of episodes. Add nodes, lower sandbox.cpus or sandbox.memory, or run fewer episodes at once.`,
    path,
  });
}
