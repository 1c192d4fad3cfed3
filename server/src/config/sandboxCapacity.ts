/**
 * How many sandboxes a machine can hold, and how many a run asks for at once (issue 22's capacity
 * arithmetic). A node advertises its slots to Ray as the custom resource `gp_sandbox_slots`
 * (`gp ray slots` prints the number and the `ray start` argument); the capacity preflight compares
 * them with the episodes a command runs at once. A node keeps some CPU and memory for itself, its
 * Docker daemon and the trainer's processes; the rest is shared out in slots.
 *
 * A slot is sized by what a sandbox uses steadily, not by its limits. `sandbox.memory` is a hard
 * limit a sandbox may really fill, so memory divides by it. `sandbox.cpus` is Docker's `--cpus`: a
 * cap on bursts (a test run, an install), not a reservation, and a task instance uses about one
 * CPU core steadily (issue 22), so for slots a sandbox counts as min(1, `sandbox.cpus`) cores: a
 * 2-core machine with the default limit of 2 offers one slot, not none. Pure arithmetic, so the
 * preflight, the hosts and `gp ray slots` agree on one answer.
 */
import { finding, type Finding, type KeyPath } from '../protocol/index.js';
import { sandboxSlotsResource } from '../protocol/rayCluster.js';
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

/** What one slot stands for: min(1, `sandbox.cpus`) cores, and `sandbox.memory` (undefined: not counted). */
export function slotShare(sandbox: ExperimentConfig['sandbox']): { readonly cpus: number; readonly memoryBytes: number | undefined } {
  const memory = sandbox.memory === null ? undefined : parseMemorySize(sandbox.memory);
  return { cpus: Math.min(1, sandbox.cpus ?? 1), memoryBytes: memory === undefined || memory <= 0 ? undefined : memory };
}

export interface SlotCount {
  readonly slots: number;
  /** Which resource ran out first (`override` when the count was given). */
  readonly limitedBy: 'cpus' | 'memory' | 'override';
}

/**
 * Sandboxes that fit on a node at once: what is left after its reserve, divided by one sandbox's
 * share of CPU (at most one core, see above) and its memory limit, whichever runs out first. A
 * sandbox with no CPU limit (null) counts as one core; with no memory limit, as using no memory,
 * since nothing bounds it. `override` wins.
 */
export function sandboxSlots(node: NodeResources, sandbox: ExperimentConfig['sandbox'], override?: number): SlotCount {
  if (override !== undefined) return { slots: Math.max(0, Math.floor(override)), limitedBy: 'override' };
  const reserve = nodeReserve(node);
  const share = slotShare(sandbox);
  const byCpu = Math.floor(Math.max(0, node.cpus - reserve.cpus) / share.cpus);
  const byMemory = share.memoryBytes === undefined ? Number.POSITIVE_INFINITY : Math.floor(Math.max(0, node.memoryBytes - reserve.memoryBytes) / share.memoryBytes);
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
  if (cluster.nodes === 0) {
    return finding({
      code: 'preflight/sandbox-capacity',
      severity: 'warning',
      message: `${episodes} episodes run at once (${why}), but no node of the cluster offers sandbox slots (none has the Ray resource ${sandboxSlotsResource}). Start each node that runs sandboxes with the --resources argument \`gp ray slots\` prints.`,
      path,
    });
  }
  return finding({
    code: 'preflight/sandbox-capacity',
    severity: 'warning',
    message: `${episodes} episodes run at once (${why}), but the cluster offers ${cluster.slots} sandbox slot${cluster.slots === 1 ? '' : 's'} on ${cluster.nodes} node${cluster.nodes === 1 ? '' : 's'}: ${episodes - cluster.slots} wait for a slot each time, so a step takes about ${Math.ceil(episodes / Math.max(1, cluster.slots))} rounds of episodes. Add nodes, lower sandbox.cpus or sandbox.memory, or run fewer episodes at once.`,
    path,
  });
}
