/**
 * What a Ray cluster offers for sandboxes: its alive nodes and the `gp_sandbox_slots` each
 * advertises (`ray start --resources`, the number `gp ray slots` prints), read from the dashboard
 * that `--ray ADDRESS` names. The route is the state API's `GET /api/v0/nodes`: it lists alive
 * nodes with their total resources under Ray's own names (the dashboard's `/nodes?view=summary`
 * camel-cases them, and `/api/cluster_status` gives them only as text). Read-only, through the
 * Jobs client's transport (`node:http`, `RAY_AUTH_TOKEN`).
 */
import type { ClusterCapacity } from '../config/index.js';
import { rayNodesReplySchema, sandboxSlotsResource, type RayNodeState } from '../protocol/rayCluster.js';
import { errorMessage } from '../util/errors.js';
import { RayJobsClient, RayJobsError } from './rayJobs.js';

/** Alive nodes only, as many as the state API gives at once (its largest limit). */
export const rayNodesPath = `/api/v0/nodes?limit=10000&filter_keys=state&filter_predicates=${encodeURIComponent('=')}&filter_values=ALIVE`;

export interface SlotNode {
  readonly node_id: string;
  readonly ip: string;
  readonly slots: number;
}

/** The cluster's sandbox slots in all, over how many nodes, and each node's. */
export interface ClusterSlots extends ClusterCapacity {
  readonly perNode: readonly SlotNode[];
}

export type ClusterRead = { readonly ok: true; readonly cluster: ClusterSlots } | { readonly ok: false; readonly message: string };

/** The alive nodes that offer slots (a fractional resource counts its whole slots). */
export function clusterSlotsOf(nodes: readonly RayNodeState[]): ClusterSlots {
  const perNode = nodes
    .filter((n) => n.state === 'ALIVE')
    .map((n) => ({ node_id: n.node_id, ip: n.node_ip, slots: Math.floor(n.resources_total[sandboxSlotsResource] ?? 0) }))
    .filter((n) => n.slots > 0);
  return { slots: perNode.reduce((sum, n) => sum + n.slots, 0), nodes: perNode.length, perNode };
}

export interface ReadClusterOptions {
  readonly token?: string;
  /** Short by default: a preflight must not hold a launch up for long. */
  readonly timeoutMs?: number;
}

/** Reads the cluster's sandbox slots; a value with a message to act on when the dashboard cannot tell. */
export async function readClusterSlots(address: string, options: ReadClusterOptions = {}): Promise<ClusterRead> {
  let client: RayJobsClient;
  try {
    client = new RayJobsClient({ address, token: options.token, timeoutMs: options.timeoutMs ?? 10_000 });
  } catch (error) {
    return { ok: false, message: `${JSON.stringify(address)} is not a Ray dashboard address (${errorMessage(error)}); give --ray http://HOST:8265` };
  }
  const where = `the Ray cluster at ${client.address}`;
  const advice =
    "check that --ray names the head's dashboard (http://HOST:8265, as ray start --head prints it) and that the cluster is up (ray status on the head)";
  try {
    const reply = await client.get(rayNodesPath, rayNodesReplySchema);
    if (!reply.result)
      return { ok: false, message: `cannot read the nodes of ${where}: its state API answered ${JSON.stringify(reply.msg ?? 'no result')}; ${advice}` };
    return { ok: true, cluster: clusterSlotsOf(reply.data.result.result) };
  } catch (error) {
    // A request that got no answer already says what to check (rayJobs.ts).
    const unanswered = error instanceof RayJobsError && error.status === 0;
    return { ok: false, message: `cannot read the nodes of ${where}: ${errorMessage(error)}${unanswered ? '' : `; ${advice}`}` };
  }
}
