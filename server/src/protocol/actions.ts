/**
 * The planner's actions (docs/original-system.md#a1-actions, without its quirks): explore, memory, repair, submit and noop.
 * The model-reply text format (`server/src/agents/replyFormat.ts`) parses model replies into
 * these; the rule agent builds them directly; the environment (`server/src/env/`) executes them;
 * trajectories record them. Every action may carry a free-text `thought`.
 */
import { z } from 'zod';
import { anchorSchema } from './graph.js';

const thought = z.string().optional();

/**
 * Explore the code graph. `find` looks anchors up; `expand` proposes neighbours of the anchors (or
 * of `nodes`) up to `hop` hops away, at most `limit` per anchor; `read` returns the source of
 * `nodes` (at most `limit` of them). Anchors are needed for find, and for expand when no node ids
 * are given; read needs node ids only.
 */
export const exploreActionSchema = z
  .object({
    type: z.literal('explore'),
    thought,
    op: z.enum(['find', 'expand', 'read']).default('find'),
    anchors: z.array(anchorSchema).default([]),
    nodes: z.array(z.string().min(1)).default([]),
    hop: z.number().int().min(0).max(2).default(1),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .superRefine((action, ctx) => {
    if (action.op === 'read' && action.nodes.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['nodes'], message: 'read needs at least one node id in `nodes`' });
    }
    if (action.op === 'find' && action.anchors.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['anchors'], message: 'find needs at least one anchor' });
    }
    if (action.op === 'expand' && action.anchors.length === 0 && action.nodes.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['anchors'], message: 'expand needs at least one anchor or node id' });
    }
  });
export type ExploreAction = z.infer<typeof exploreActionSchema>;

/**
 * Keep or drop working memory. `commit` of `explore` adds the latest expand's candidates (or find's
 * nodes) to the working subgraph; `commit` of `observation` keeps a note of the latest observation.
 * `delete` removes what the record named by `selector` (default: the latest) added.
 */
export const memoryActionSchema = z.object({
  type: z.literal('memory'),
  thought,
  target: z.enum(['explore', 'observation']).default('explore'),
  scope: z.enum(['turn', 'session']).default('turn'),
  intent: z.enum(['commit', 'delete']).default('commit'),
  selector: z.string().optional(),
});
export type MemoryAction = z.infer<typeof memoryActionSchema>;

/** One line-range edit: lines `start..end` (1-based, inclusive) of `path` become `new_text`. */
export const editSchema = z.object({
  path: z.string().min(1),
  start: z.number().int().min(1),
  end: z.number().int().min(1),
  new_text: z.string(),
});
export type Edit = z.infer<typeof editSchema>;

/** A candidate patch: line-range edits (CGM's format) or a unified diff from any other source. */
export const patchCandidateSchema = z.union([
  z.object({ edits: z.array(editSchema).min(1), summary: z.string().optional() }),
  z.object({ diff: z.string().min(1), summary: z.string().optional() }),
]);
export type PatchCandidate = z.infer<typeof patchCandidateSchema>;

/**
 * Repair. Without `patches`, the environment asks the patch model (CGM) for candidates from the
 * plan, the focus nodes and the working memory. With `patches`, those candidates are used as they
 * are. Each candidate is converted to a diff and guarded; with `apply` the candidates are tried in
 * order and the first whose tests pass is kept, and with `apply: false` the candidate diffs are
 * returned and the repository is not touched.
 */
export const repairActionSchema = z.object({
  type: z.literal('repair'),
  thought,
  apply: z.boolean().default(true),
  plan: z.string().default(''),
  focus_ids: z.array(z.string().min(1)).default([]),
  patches: z.array(patchCandidateSchema).optional(),
});
export type RepairAction = z.infer<typeof repairActionSchema>;

/** Run the task's tests, grade them and end the episode. */
export const submitActionSchema = z.object({ type: z.literal('submit'), thought });
export type SubmitAction = z.infer<typeof submitActionSchema>;

/** Do nothing this step (it still counts as a step). */
export const noopActionSchema = z.object({ type: z.literal('noop'), thought });
export type NoopAction = z.infer<typeof noopActionSchema>;

/** Each action's own schema, by action type: for parsing one action's parameters and emitting tool schemas. */
export const actionSchemas = {
  explore: exploreActionSchema,
  memory: memoryActionSchema,
  repair: repairActionSchema,
  submit: submitActionSchema,
  noop: noopActionSchema,
} as const;

export const actionSchema = z.discriminatedUnion('type', [exploreActionSchema, memoryActionSchema, repairActionSchema, submitActionSchema, noopActionSchema]);
export type Action = z.infer<typeof actionSchema>;
export type ActionType = Action['type'];
export const actionTypes = ['explore', 'memory', 'repair', 'submit', 'noop'] as const satisfies readonly ActionType[];

/** The text protocol's error codes (docs/original-system.md#a2-reply-format). */
export const protocolErrorCodes = [
  'invalid-multi-block',
  'missing-function-tag',
  'unknown-action',
  'duplicate-param',
  'unknown-param',
  'extra-text',
  'invalid-json-param',
  'missing-required-param',
  'invalid-param',
] as const;
export const protocolErrorCodeSchema = z.enum(protocolErrorCodes);
export type ProtocolErrorCode = z.infer<typeof protocolErrorCodeSchema>;

/** A reply the protocol could not turn into an action; the environment answers it with an observation. */
export const protocolErrorSchema = z.object({
  code: protocolErrorCodeSchema,
  /** What was wrong, naming the parameter or tag. */
  detail: z.string(),
  /** How to fix the reply, in one sentence a model can follow. */
  hint: z.string(),
});
export type ProtocolError = z.infer<typeof protocolErrorSchema>;
