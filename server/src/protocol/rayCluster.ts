/**
 * What a Ray cluster says about its nodes, and what our per-node Ray job prints back (Ray 2.60).
 * The client is `server/src/cluster/rayCluster.ts`; the job's driver is
 * `python/graph_planner_verl/node_prepull.py`; `test/support/rayJobsPeer.ts` answers with these
 * shapes too.
 */
import { z } from 'zod';
import { prepullResultSchema } from './images.js';

/**
 * The Ray custom resource a node offers sandboxes with: `ray start --resources
 * '{"gp_sandbox_slots": N}'` (`gp ray slots` prints N). The Python driver spells it too.
 */
export const sandboxSlotsResource = 'gp_sandbox_slots';

/**
 * One node of `GET /api/v0/nodes` (the dashboard's state API): only the fields we read. Its
 * `resources_total` keeps Ray's own resource names; the dashboard's `/nodes?view=summary` camel-cases
 * them (`gpSandboxSlots`), so it is not used.
 */
export const rayNodeStateSchema = z.looseObject({
  node_id: z.string().min(1),
  node_ip: z.string(),
  state: z.string(),
  is_head_node: z.boolean().optional(),
  resources_total: z.record(z.string(), z.number()),
});
export type RayNodeState = z.infer<typeof rayNodeStateSchema>;

/** `GET /api/v0/nodes?limit=…&filter_keys=state&filter_predicates==&filter_values=ALIVE` */
export const rayNodesReplySchema = z.looseObject({
  result: z.boolean(),
  msg: z.string().nullish(),
  data: z.looseObject({
    result: z.looseObject({
      total: z.number().int().nonnegative(),
      num_after_truncation: z.number().int().nonnegative().optional(),
      result: z.array(rayNodeStateSchema),
      partial_failure_warning: z.string().nullish(),
    }),
  }),
});
export type RayNodesReply = z.infer<typeof rayNodesReplySchema>;

/** The lines `node_prepull.py` prints, one per node, after this prefix. */
export const nodePrepullLinePrefix = 'gp-node-prepull ';

/**
 * What `gp images prepull --json` did on one node: its results, or why none came back (the
 * command could not run, or printed something that is not its JSON).
 */
export const nodePrepullLineSchema = z.object({
  node_id: z.string().min(1),
  ip: z.string(),
  slots: z.number().nonnegative(),
  exit_code: z.number().int(),
  results: z.array(prepullResultSchema).nullable(),
  error: z.string().nullable(),
});
export type NodePrepullLine = z.infer<typeof nodePrepullLineSchema>;
