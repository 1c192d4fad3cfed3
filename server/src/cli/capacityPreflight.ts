/**
 * The capacity preflight of a launch (issue 22): the episodes a command runs at once against the
 * sandbox slots its Ray cluster's nodes advertise (config/sandboxCapacity.ts's finding, the
 * cluster read by cluster/rayCluster.ts). Only the CLI asks the cluster: the editor's diagnostics
 * never touch the network. A cluster that cannot be asked is a warning, never a refusal: the
 * preflight advises, and the launch itself reaches Ray or says why not.
 */
import { capacityFinding, locate, type LocatedFinding, type Resolution } from '../config/index.js';
import { readClusterSlots, type ClusterRead } from '../cluster/index.js';
import { formatConfigFinding } from './configFindings.js';
import type { Io } from './output.js';

export type CapacityCommand = 'train' | 'eval' | 'rollout';
export const capacityCommands: readonly CapacityCommand[] = ['train', 'eval', 'rollout'];

/** The capacity finding of a resolved config against a cluster (undefined: none named), located in the YAML or on its flag. */
export function locatedCapacityFinding(resolution: Resolution, command: CapacityCommand, cluster: ClusterRead | undefined): LocatedFinding | undefined {
  if (resolution.config === undefined || (cluster !== undefined && !cluster.ok)) return undefined;
  const found = capacityFinding(resolution.config, command, cluster?.cluster);
  return found === undefined ? undefined : locate(resolution.source, found, resolution.applied);
}

/** The warning printed when the cluster could not be asked; the launch goes on. */
export function unreadableClusterLine(message: string): string {
  return `warning: ${message}${/[.?!]$/.test(message) ? '' : '.'} The sandbox capacity (episodes at once against the cluster's sandbox slots) was not checked; going on.`;
}

export interface CapacityPreflightOptions {
  /** The label findings are printed with: the config file, or `gp train` without one. */
  readonly label: string;
  readonly resolution: Resolution;
  readonly command: CapacityCommand;
  /** The `--ray` address, when the command runs on a cluster. */
  readonly ray: string | undefined;
  /** Without `--ray`: print the note that the capacity is not known (gp train; a local rollout's fit is rollout.parallel). */
  readonly noteWhenUnknown: boolean;
  /** Replaced in tests. */
  readonly read?: (address: string) => Promise<ClusterRead>;
}

/** Prints the capacity finding as every preflight finding is printed (configFindings.ts), or why there is none. */
export async function printCapacityPreflight(options: CapacityPreflightOptions, io: Io): Promise<void> {
  const { label, resolution, command, ray } = options;
  if (ray === undefined && !options.noteWhenUnknown) return;
  const cluster = ray === undefined ? undefined : await (options.read ?? readClusterSlots)(ray);
  if (cluster !== undefined && !cluster.ok) {
    io.err(unreadableClusterLine(cluster.message));
    return;
  }
  const found = locatedCapacityFinding(resolution, command, cluster);
  if (found !== undefined) io.err(formatConfigFinding(label, resolution, found));
}
