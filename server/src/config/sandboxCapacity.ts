/**
 * The capacity preflight (issue 22): how many episodes a command runs at once, against the sandbox
 * slots a Ray cluster's nodes advertise as the custom resource `gp_sandbox_slots`. How many slots a
 * node offers is `sandbox/slots.ts`'s arithmetic, with what one sandbox counts as asked of its
 * backend's registration (`launch/sandboxSlots.ts` joins the config to both); `gp ray slots` prints
 * the number and the `ray start` argument.
 */
import { finding, type Finding, type KeyPath } from '../protocol/index.js';
import { sandboxSlotsResource } from '../protocol/rayCluster.js';
import type { ExperimentConfig } from './schema.js';

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
    return finding({
      code: 'preflight/sandbox-capacity-unknown',
      severity: 'info',
      message: `${episodes} episodes run at once (${why}); without a Ray address the cluster's sandbox slots are not known, so whether they fit was not checked.`,
      path,
    });
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
