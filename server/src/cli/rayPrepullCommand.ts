/**
 * `gp images prepull … --ray ADDRESS`: the pre-pull on every node of a Ray cluster that offers
 * sandboxes (cluster/rayPrepull.ts runs it as one Ray job), and a summary per node: images pulled,
 * present, failed and build-only, and each failure. Exit 0 when every node answered and no image
 * failed, 1 otherwise, 130 when interrupted.
 */
import type { NodePrepullLine } from '../protocol/rayCluster.js';
import { adapterDir, cliCommand, trainerPython, readClusterSlots, runRayPrepull, type SlotNode } from '../cluster/index.js';
import { installInterrupt } from './interrupt.js';
import { plural, type Io } from './output.js';

export interface ClusterPrepullRequest {
  readonly ray: string;
  /** The node-side prepull's arguments: absolute files, images and options. */
  readonly args: readonly string[];
  readonly json: boolean;
}

function nodeName(node: { node_id: string; ip: string }): string {
  return `node ${node.node_id.slice(0, 12)} (${node.ip})`;
}

/** One node's answer as a person reads it: a count line, then each failed image. */
export function nodeSummary(line: NodePrepullLine): string[] {
  if (line.results === null) return [`${nodeName(line)}: could not pre-pull: ${line.error ?? `exit code ${line.exit_code}`}`];
  const count = (status: string) => line.results?.filter((r) => r.status === status).length ?? 0;
  const head = `${nodeName(line)}: ${plural(line.results.length, 'image')}: ${count('pulled')} pulled, ${count('present')} already present, ${count('failed')} failed, ${count('build-only')} build-only`;
  const failures = line.results
    .filter((r) => r.status === 'failed')
    .map((r) => `  ${r.image}: failed: ${r.error ?? 'unknown error'} (${plural(r.attempts, 'attempt')})`);
  return [head, ...failures];
}

/** Whether the whole cluster is ready: every node answered and no image failed anywhere. */
export function clusterPrepullOk(nodes: readonly NodePrepullLine[], unanswered: readonly SlotNode[]): boolean {
  return unanswered.length === 0 && nodes.length > 0 && nodes.every((n) => n.results !== null && n.results.every((r) => r.status !== 'failed'));
}

export async function prepullOnCluster(request: ClusterPrepullRequest, io: Io): Promise<number> {
  const adapter = adapterDir();
  const cli = cliCommand();
  if (adapter === undefined || cli === undefined) {
    io.err(
      'gp images prepull --ray: the Python adapter (python/graph_planner_verl) or dist/cli.js is not part of this installation; run gp from a built clone of the repository.',
    );
    return 2;
  }
  const cluster = await readClusterSlots(request.ray);
  if (!cluster.ok) {
    io.err(`gp images prepull --ray: ${cluster.message}.`);
    return 1;
  }
  if (cluster.cluster.nodes === 0) {
    io.err(
      'gp images prepull --ray: no alive node of the cluster offers sandboxes (none has the Ray resource gp_sandbox_slots); start each node that runs sandboxes with the --resources argument `gp ray slots` prints.',
    );
    return 1;
  }
  const say = request.json ? io.err : io.out;
  say(`Pre-pulling on ${plural(cluster.cluster.nodes, 'node')} that offer sandboxes (${plural(cluster.cluster.slots, 'slot')}).`);
  const interrupt = installInterrupt({ onFirst: () => io.err('Interrupted: stopping the Ray job.') });
  try {
    const result = await runRayPrepull({
      ray: request.ray,
      nodes: cluster.cluster.perNode,
      python: trainerPython(undefined),
      adapterDir: adapter,
      cli,
      args: request.args,
      signal: interrupt.signal,
      log: (line) => io.err(line),
      onNode: (line) => {
        if (!request.json) nodeSummary(line).forEach((l) => io.out(l));
      },
    });
    for (const node of result.unanswered) say(`${nodeName(node)}: no answer (${result.reason})`);
    if (request.json) io.out(JSON.stringify({ nodes: result.nodes, unanswered: result.unanswered }, null, 2));
    else {
      const failed = result.nodes.reduce((n, node) => n + (node.results?.filter((r) => r.status === 'failed').length ?? 0), 0);
      io.out(
        `Pre-pull on ${plural(cluster.cluster.nodes, 'node')}: ${result.nodes.filter((n) => n.results !== null).length} answered, ${result.nodes.filter((n) => n.results === null).length + result.unanswered.length} could not pre-pull; ${plural(failed, 'image')} failed.`,
      );
    }
    if (result.state === 'interrupted') return 130;
    return clusterPrepullOk(result.nodes, result.unanswered) ? 0 : 1;
  } finally {
    interrupt.dispose();
  }
}
