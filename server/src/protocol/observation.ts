/**
 * What the environment returns after each action: a structured result per action kind, the state
 * of working memory, and the observation as a whole (with `text`, the rendering a model reads,
 * which names the node ids it may cite). The environment (`server/src/env/`) builds these; agents,
 * trajectories and the webview read them.
 */
import { z } from 'zod';
import { protocolErrorSchema } from './actions.js';
import { candidateSchema, graphNodeSchema, spanSchema } from './graph.js';
import { testGradeSchema, testStatusSchema } from './testReport.js';

/** Source lines of one node, numbered from `start`. */
export const snippetSchema = z.object({
  node_id: z.string(),
  path: z.string(),
  start: z.number().int().min(1),
  end: z.number().int().min(1),
  /** The lines `start..end`, without numbers, joined by `\n`. */
  text: z.string(),
});
export type Snippet = z.infer<typeof snippetSchema>;

/** A step that could not do what was asked, with a code and what to do instead. */
export const stepErrorSchema = z.object({ code: z.string(), message: z.string() });
export type StepError = z.infer<typeof stepErrorSchema>;

/** Sizes of working memory and their limits. */
export const memorySizeSchema = z.object({ nodes: z.number().int(), edges: z.number().int(), note_tokens: z.number().int() });
export type MemorySize = z.infer<typeof memorySizeSchema>;

/** One test command's outcome as an observation shows it. */
export const testSummarySchema = z.object({
  passed: z.boolean(),
  counts: z.record(testStatusSchema, z.number().int().min(0)),
  /** Tests that failed or errored (at most 20 names). */
  failing: z.array(z.string()),
  /** The last lines of the output, for a model to read (at most 2,000 characters). */
  tail: z.string(),
  duration_ms: z.number().min(0),
  /**
   * Why the run could not be graded, when it could not (the grade's reason: a runner tampered with,
   * a log that contradicts its command); its counts then say nothing about the patch.
   */
  not_gradable: z.string().optional(),
});
export type TestSummary = z.infer<typeof testSummarySchema>;

/**
 * A file as it was before a candidate patch, stored once per content hash in the run directory
 * (`preimages/<sha256>`, runs/preimageStore.ts), so the patch can be shown as a whole-file diff
 * after its sandbox is gone. `sha256` is null when the file did not exist (the patch adds it);
 * `skipped` says why the content was not kept (too large, unreadable).
 */
export const preimageSchema = z.object({
  path: z.string(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  skipped: z.string().optional(),
});
export type Preimage = z.infer<typeof preimageSchema>;

/** What trying one repair candidate did. */
export const candidateOutcomeSchema = z.object({
  index: z.number().int().min(0),
  summary: z.string().optional(),
  diff: z.string(),
  /** Set when the candidate was refused before it touched the repository (guard, bad edits, apply). */
  error: stepErrorSchema.optional(),
  tests: testSummarySchema.optional(),
  /** The files the diff touches as they were before it; absent in trajectories from before they were recorded. */
  preimages: z.array(preimageSchema).optional(),
});
export type CandidateOutcome = z.infer<typeof candidateOutcomeSchema>;

/**
 * The kinds of suspected reward hacking a submitted patch is checked for (env/hackSignals.ts,
 * docs/agents.md, "Suspected reward hacking"): it changes a file the grader reads, or its added code reaches for the
 * test runner's internals, runs git, opens the network, or reads the process's environment whole.
 */
export const suspectedHackKinds = ['grader-surface', 'runner-internals', 'git', 'network', 'process-env'] as const;
export type SuspectedHackKind = (typeof suspectedHackKinds)[number];

/** Most signals one submit records; a patch with more is as suspect with fewer shown. */
export const maxSuspectedHacks = 20;

/** One piece of evidence that a patch may be gaming the grader. */
export const suspectedHackSchema = z.object({
  kind: z.enum(suspectedHackKinds),
  /** The file it is in, relative to the repository root. */
  path: z.string().max(4096),
  /** The line in the patched file (1-based), for evidence found in an added line. */
  line: z.number().int().min(1).optional(),
  /** The offending text, on one line with control characters escaped, cut at 200 characters. */
  evidence: z.string().max(400),
  /** Why it counts, in words (the rule that matched). */
  rule: z.string().max(400),
});
export type SuspectedHack = z.infer<typeof suspectedHackSchema>;

export const actionResultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('find'), nodes: z.array(graphNodeSchema), unmatched: z.array(z.string()) }),
  z.object({ kind: z.literal('expand'), candidates: z.array(candidateSchema), unmatched: z.array(z.string()) }),
  z.object({ kind: z.literal('read'), snippets: z.array(snippetSchema), missing: z.array(z.string()) }),
  z.object({
    kind: z.literal('memory'),
    ok: z.boolean(),
    intent: z.enum(['commit', 'delete']),
    target: z.enum(['explore', 'observation']),
    added: z.object({ nodes: z.number().int(), edges: z.number().int(), notes: z.number().int() }),
    removed: z.object({ nodes: z.number().int(), edges: z.number().int(), notes: z.number().int() }),
    /** The record a later delete can name as its selector. */
    tag: z.string().optional(),
    size: memorySizeSchema,
    limits: memorySizeSchema,
    error: stepErrorSchema.optional(),
  }),
  z.object({
    kind: z.literal('repair'),
    apply: z.boolean(),
    /** Whether a candidate was kept in the repository. */
    applied: z.boolean(),
    /** The kept candidate's index, when one was kept. */
    kept: z.number().int().min(0).optional(),
    /**
     * How many candidates the action or the patch model proposed; more than `candidates` when the
     * limit of candidates per repair cut the rest. Absent in trajectories from before it was
     * recorded, when `candidates` also stopped at the kept one.
     */
    proposed: z.number().int().min(0).optional(),
    /** Every proposed candidate within the limit, in the order proposed: `index` is its place in the action's list. */
    candidates: z.array(candidateOutcomeSchema),
    /** The repository's diff against the base commit after this step. */
    diff: z.string(),
    /** Where the candidates came from: the action's own patches, or the patch model. */
    source: z.enum(['action', 'patch-model']),
    error: stepErrorSchema.optional(),
  }),
  z.object({
    kind: z.literal('submit'),
    resolved: z.boolean(),
    tests: testSummarySchema,
    grade: testGradeSchema,
    patch: z.string(),
    /** Files the graded patch changes that the grader depends on (env/guard.ts), when there are any. */
    protected_paths: z.array(z.string()).optional(),
    /**
     * What in the graded patch looks like an attempt on the reward rather than a fix (env/hackSignals.ts),
     * when anything does; at most `maxSuspectedHacks`. A flag for people: it never changes the reward.
     */
    suspected_hacks: z.array(suspectedHackSchema).max(maxSuspectedHacks).optional(),
  }),
  z.object({ kind: z.literal('noop') }),
  z.object({ kind: z.literal('protocol-error'), error: protocolErrorSchema }),
  z.object({ kind: z.literal('error'), error: stepErrorSchema }),
]);
export type ActionResult = z.infer<typeof actionResultSchema>;

/** A note kept in working memory. */
export const memoryNoteSchema = z.object({ id: z.number().int().min(1), scope: z.enum(['turn', 'session']), text: z.string() });
export type MemoryNote = z.infer<typeof memoryNoteSchema>;

export const observationSchema = z.object({
  task_id: z.string(),
  /** Steps taken so far (0 after reset). */
  step: z.number().int().min(0),
  max_steps: z.number().int().min(1),
  issue: z.object({ title: z.string(), body: z.string() }),
  /** The failing frame the task names, when it names one. */
  failure_frame: z.object({ path: z.string(), line: z.number().int().optional(), function: z.string().optional() }).optional(),
  /**
   * Node ids the issue points at (failure frame, pasted tracebacks, paths and symbols it names,
   * then what searching its whole text finds), strongest first: starting points, not answers.
   */
  hints: z.array(z.string()).optional(),
  /**
   * The retrievers whose lists were fused into `hints` (graph/rank.ts): `anchors` (failure frame,
   * tracebacks, paths, symbols), `bm25` (the whole issue text over names, docstrings and
   * identifiers), `text` (over whole files), `embeddings` (when a model is there).
   */
  hint_retrievers: z.array(z.enum(['anchors', 'bm25', 'text', 'embeddings'])).optional(),
  /** The result of the last action; absent after reset. */
  last: actionResultSchema.optional(),
  memory: z.object({
    /** Nodes in the working subgraph, most recently added last (ids the model may cite). */
    nodes: z.array(z.object({ id: z.string(), kind: z.string(), path: z.string(), span: spanSchema })),
    edges: z.number().int().min(0),
    notes: z.array(memoryNoteSchema),
    size: memorySizeSchema,
    limits: memorySizeSchema,
  }),
  done: z.boolean(),
  /** The observation rendered for a model; it names every node id the model may cite. */
  text: z.string(),
});
export type Observation = z.infer<typeof observationSchema>;

/** Why an episode ended. */
export const terminationReasons = ['submitted', 'max_steps', 'repo_op_limit', 'step_timeout', 'episode_timeout', 'interrupted', 'error'] as const;
export const terminationReasonSchema = z.enum(terminationReasons);
export type TerminationReason = z.infer<typeof terminationReasonSchema>;

/** Time spent in one step, in milliseconds. */
export const stepTimingsSchema = z.object({
  /** The agent choosing the action (model calls included). */
  agent_ms: z.number().min(0),
  /** The environment executing it, everything included. */
  env_ms: z.number().min(0),
  /** Of `env_ms`, time in sandbox commands the task itself runs (tests). */
  task_commands_ms: z.number().min(0),
});
export type StepTimings = z.infer<typeof stepTimingsSchema>;
