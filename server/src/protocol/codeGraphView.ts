/**
 * The code-graph view of an episode (extension → server), and the localisation recall of a run's
 * episodes for its metrics page. The sandbox is gone when an episode is looked at, so the server
 * builds the graph from what the trajectory recorded (the nodes its observations named, the edges
 * its expansions walked, the containment its node ids spell) and marks the nodes of the task's gold
 * patch, each with the evidence it was found by (`server/src/graphView/codeGraphView.ts`). The server
 * lays the subgraph out; the page only draws it. The page's own messages are in
 * `codeGraphWebview.ts` (zod/mini, as the other pages').
 */
import { z } from 'zod';
import { edgeKinds, nodeKindSchema, spanSchema } from './graph.js';
import { stepKindSchema } from './episodeView.js';

/** A step number, 0 standing for the observation after reset. */
const stepAt = z.number().int().min(0).nullable();

/**
 * How a gold node was found. `diff-header`: a file the gold patch edits (its `---` line).
 * `pre-image`: the definition around a changed line, parsing the file as the run kept it before a
 * repair (the base commit's text). `repository`: the same, parsing the task's local repository
 * whose file holds the hunk's lines where the patch says. `recorded-span`: the innermost node the
 * trajectory recorded whose span holds a changed line (no source to parse). `hunk-header`: the
 * definition git named after the hunk's `@@`, the nearest one above the hunk, which may not be the
 * one the change is in: the weakest.
 */
export const goldEvidences = ['diff-header', 'pre-image', 'repository', 'recorded-span', 'hunk-header'] as const;
export const goldEvidenceSchema = z.enum(goldEvidences);
export type GoldEvidence = z.infer<typeof goldEvidenceSchema>;

/** One node of the drawn subgraph, placed by the server (x, y: its centre). */
export const codeGraphNodeSchema = z.object({
  id: z.string(),
  kind: nodeKindSchema,
  name: z.string(),
  path: z.string(),
  /** Null when the trajectory recorded only the id (a hint, a gold node it never met). */
  span: spanSchema.nullable(),
  /** The first step at which the agent met the node in each way; null when it never did. */
  seen: stepAt,
  found: stepAt,
  expanded: stepAt,
  read: stepAt,
  remembered: stepAt,
  edited: stepAt,
  /** How the node was found to be gold; null for a node the gold patch does not touch. */
  gold: goldEvidenceSchema.nullable(),
  /** On a file: nodes of the file the episode met that are left out of the drawing. */
  hidden: z.number().int().min(0),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type CodeGraphNode = z.infer<typeof codeGraphNodeSchema>;

/**
 * An edge the episode knows of. `id`: containment read from the node ids (`method:p#A.f` is in
 * `class:p#A`, which is in `file:p`). `expand`: an expansion reached the node one hop from its
 * anchor along an edge of this kind (`related` when the expansion's reason was not an edge kind).
 */
export const codeGraphEdgeSchema = z.object({
  src: z.string(),
  dst: z.string(),
  kind: z.enum([...edgeKinds, 'related']),
  evidence: z.enum(['id', 'expand']),
  /** The route the layout drew, start to end. */
  points: z.array(z.object({ x: z.number(), y: z.number() })),
});
export type CodeGraphEdge = z.infer<typeof codeGraphEdgeSchema>;

/**
 * One step of the episode as the view steps through it. `distance`: the fewest known edges from a
 * node the agent has seen by this step to a gold node (0 once it has seen one); null when no known
 * path joins them, which the view says as "unknown", never a guess. Null too when there is no gold.
 */
export const codeGraphStepSchema = z.object({
  step: z.number().int().min(0),
  kind: z.union([stepKindSchema, z.literal('reset')]),
  summary: z.string(),
  /** Nodes seen so far. */
  seen: z.number().int().min(0),
  distance: z.number().int().min(0).nullable(),
});
export type CodeGraphStep = z.infer<typeof codeGraphStepSchema>;

/** How many gold items the episode saw, read and edited, of `gold`. */
export const recallCountsSchema = z.object({
  gold: z.number().int().min(0),
  seen: z.number().int().min(0),
  read: z.number().int().min(0),
  edited: z.number().int().min(0),
});
export type RecallCounts = z.infer<typeof recallCountsSchema>;

/** An episode's localisation against its gold patch: files, and functions (classes and methods included). */
export const episodeRecallSchema = z.object({ files: recallCountsSchema, functions: recallCountsSchema });
export type EpisodeRecall = z.infer<typeof episodeRecallSchema>;

/** The gold patch as the view uses it, or why there is none. */
export const goldSummarySchema = z.object({
  /** Where the patch came from (`gold_predictions_tasks.jsonl` beside the task file); null when none was found. */
  source: z.string().nullable(),
  files: z.array(z.string()),
  functions: z.array(z.object({ id: z.string(), evidence: goldEvidenceSchema })),
  /** Why there is no gold, or what could not be mapped; null when all went well. */
  note: z.string().nullable(),
});
export type GoldSummary = z.infer<typeof goldSummarySchema>;

/** Request: the code-graph view of one trajectory. */
export const episodeCodeGraphRequest = 'graphPlanner/episode/codeGraph';
export const episodeCodeGraphParamsSchema = z.object({
  path: z.string(),
  /** Most nodes to draw (the server's default keeps a long episode readable; at most 1,000). */
  limit: z.number().int().min(1).max(1000).optional(),
});
export const episodeCodeGraphSchema = z.object({
  file: z.string(),
  taskId: z.string().nullable(),
  episodeId: z.string().nullable(),
  nodes: z.array(codeGraphNodeSchema),
  edges: z.array(codeGraphEdgeSchema),
  steps: z.array(codeGraphStepSchema),
  width: z.number(),
  height: z.number(),
  gold: goldSummarySchema,
  /** Null when there is no gold to score against. */
  recall: episodeRecallSchema.nullable(),
  /** Nodes left out of the drawing to keep it readable (the farthest from what the episode did). */
  omitted: z.number().int().min(0),
  /** Nodes of the subgraph, drawn or not. */
  total: z.number().int().min(0),
});
export type EpisodeCodeGraph = z.infer<typeof episodeCodeGraphSchema>;
export const episodeCodeGraphResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), graph: episodeCodeGraphSchema }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type EpisodeCodeGraphResult = z.infer<typeof episodeCodeGraphResultSchema>;

/** Extension → the code-graph panel's page, and the trajectory viewer's page for its code-graph pane. */
export const codeGraphHostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('graph'), graph: episodeCodeGraphSchema }),
  /** The trajectory viewer selected a step: show the graph as it was then. */
  z.object({ type: z.literal('step'), step: z.number().int().min(0) }),
  /** There is no graph to show, and why (named apart from the viewer's own `unavailable`, whose page shows a pane too). */
  z.object({ type: z.literal('graphUnavailable'), reason: z.string() }),
]);
export type CodeGraphHostMessage = z.infer<typeof codeGraphHostMessageSchema>;

/** Mean recall over the episodes of a group that had gold, as fractions in [0, 1]. */
export const meanRecallSchema = z.object({ seen: z.number(), read: z.number(), edited: z.number() });

/** One group of a run's episodes: a training step's sampled episodes, or a whole rollout. */
export const localisationGroupSchema = z.object({
  /** The training step; null for a run that is not a training run (one group). */
  step: z.number().int().nullable(),
  episodes: z.number().int().min(0),
  /** Episodes with gold files to score (the means are over these). */
  scoredFiles: z.number().int().min(0),
  /** Episodes with gold functions to score. */
  scoredFunctions: z.number().int().min(0),
  files: meanRecallSchema,
  functions: meanRecallSchema,
});
export type LocalisationGroup = z.infer<typeof localisationGroupSchema>;

/** Request: localisation recall of a run's episodes against their gold patches, per training step. */
export const runLocalisationRequest = 'graphPlanner/runs/localisation';
export const runLocalisationParamsSchema = z.object({ dir: z.string() });
export const runLocalisationResultSchema = z.object({
  groups: z.array(localisationGroupSchema),
  /** Episodes read, and of them those without gold (no gold patch found for their task). */
  episodes: z.number().int().min(0),
  withoutGold: z.number().int().min(0),
  /** Trajectories that could not be read, and why. */
  problems: z.array(z.string()),
});
export type RunLocalisationResult = z.infer<typeof runLocalisationResultSchema>;

/** Extension → metrics page: the localisation chart's data (the page's other messages are in metricsView.ts). */
export const localisationPageMessageSchema = z.object({ type: z.literal('localisation'), result: runLocalisationResultSchema });
export type LocalisationPageMessage = z.infer<typeof localisationPageMessageSchema>;
