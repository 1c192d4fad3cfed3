/**
 * `gp images prepull --ray ADDRESS`: a dataset's images pulled (or found present) on every node of
 * a Ray cluster that offers sandboxes, as one Ray job. Its driver
 * (python/graph_planner_verl/node_prepull.py) pins one task to each alive node with
 * `gp_sandbox_slots` and runs our own `gp images prepull … --json` there against the node's
 * Docker; it prints one `gp-node-prepull {json}` line per node, read here as the job's log
 * arrives. Ray places the tasks; we only ask for one per node and read the answers.
 */
import { randomBytes } from 'node:crypto';
import { nodePrepullLinePrefix, nodePrepullLineSchema, type NodePrepullLine } from '../protocol/rayCluster.js';
import { errorMessage } from '../util/errors.js';
import type { SlotNode } from './rayCluster.js';
import { RayJobsClient } from './rayJobs.js';
import { launchRayJob, shellCommand } from './jobLaunch.js';

export interface RayPrepullOptions {
  readonly ray: string;
  /** The nodes expected to answer (those the cluster's state API listed with slots). */
  readonly nodes: readonly SlotNode[];
  readonly python: string;
  readonly adapterDir: string;
  /** How a node starts our CLI: the node executable and `dist/cli.js`. */
  readonly cli: readonly string[];
  /** The node-side prepull's arguments (absolute files, images, options), without `--json`. */
  readonly args: readonly string[];
  readonly signal?: AbortSignal;
  /** The driver's other lines (and Ray's), for the person. */
  readonly log: (line: string) => void;
  /** Each node's answer as it comes. */
  readonly onNode?: (line: NodePrepullLine) => void;
  readonly pollMs?: number;
}

export interface RayPrepullResult {
  readonly state: 'finished' | 'failed' | 'interrupted';
  readonly reason: string;
  readonly nodes: readonly NodePrepullLine[];
  /** Expected nodes that sent no line (the job failed, or the node went away). */
  readonly unanswered: readonly SlotNode[];
}

/** A driver line: a node's answer, a malformed one (said why), or not ours. */
export function parseNodePrepullLine(line: string): { kind: 'node'; node: NodePrepullLine } | { kind: 'malformed'; message: string } | { kind: 'other' } {
  if (!line.startsWith(nodePrepullLinePrefix)) return { kind: 'other' };
  let value: unknown;
  try {
    value = JSON.parse(line.slice(nodePrepullLinePrefix.length));
  } catch (error) {
    return { kind: 'malformed', message: `a node's prepull line is not JSON (${errorMessage(error)})` };
  }
  const parsed = nodePrepullLineSchema.safeParse(value);
  if (!parsed.success)
    return {
      kind: 'malformed',
      message: `a node's prepull line is not what node_prepull.py prints (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''})`,
    };
  return { kind: 'node', node: parsed.data };
}

export async function runRayPrepull(options: RayPrepullOptions): Promise<RayPrepullResult> {
  const nodes: NodePrepullLine[] = [];
  const onLine = (line: string): void => {
    const parsed = parseNodePrepullLine(line);
    if (parsed.kind === 'node') {
      nodes.push(parsed.node);
      options.onNode?.(parsed.node);
    } else options.log(parsed.kind === 'malformed' ? `warning: ${parsed.message}` : line);
  };
  // A prepull belongs to no run: a fresh id per submission.
  const submissionId = `gp-prepull-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  let handle;
  try {
    handle = await launchRayJob({
      client: new RayJobsClient({ address: options.ray }),
      submissionId,
      entrypoint: shellCommand([options.python, '-m', 'graph_planner_verl.node_prepull', JSON.stringify({ cli: options.cli, args: options.args })]),
      envVars: { PYTHONPATH: options.adapterDir },
      metadata: { gp_command: 'images prepull' },
      onLine,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    });
  } catch (error) {
    return { state: 'failed', reason: `the Ray job could not be submitted: ${errorMessage(error)}`, nodes, unanswered: options.nodes };
  }
  options.log(`prepull: ${handle.where}`);
  const job = handle;
  const onAbort = (): void => void job.stop();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const end = await job.ended;
  options.signal?.removeEventListener('abort', onAbort);
  const answered = new Set(nodes.map((n) => n.node_id));
  const unanswered = options.nodes.filter((n) => !answered.has(n.node_id));
  if (options.signal?.aborted === true) return { state: 'interrupted', reason: 'interrupted: the Ray job was stopped', nodes, unanswered };
  return {
    state: end.ok ? 'finished' : 'failed',
    reason: end.ok ? `${nodes.length} node(s) answered` : `the Ray job failed: ${end.reason}`,
    nodes,
    unanswered,
  };
}
