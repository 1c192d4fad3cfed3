/**
 * The trajectory viewer's requests (extension → server). The server reads and keeps the episode
 * (`server/src/episodes/episodeFiles.ts`), so a large trajectory crosses to the editor as a small step
 * list first and each step's full record only when it is shown. Asking again with the number of
 * steps already known returns only the steps appended since; with `episode/changed`, pushed when
 * an open trajectory changes on disk, that is how a running episode is followed without reading it
 * twice.
 */
import { z } from 'zod';
import { sandboxHostRefSchema, trajectoryStepSchema } from './runs.js';
import { stepTextsSchema } from './stepTexts.js';

/**
 * What a step did. Our own steps have the action's kind; a step of another tool's trajectory
 * (`foreignStepSchema`) has who spoke in it: the system, the user, or the agent.
 */
export const stepKindSchema = z.enum(['find', 'expand', 'read', 'memory', 'repair', 'submit', 'noop', 'invalid', 'system', 'user', 'agent']);
export type StepKindName = z.infer<typeof stepKindSchema>;

/** One row of the step list. */
export const stepRowSchema = z.object({
  step: z.number().int(),
  kind: stepKindSchema,
  summary: z.string(),
  /** Null when the trajectory's format records no reward for the step (never a made-up zero). */
  reward: z.number().nullable(),
  /** The return so far; null once any step before it has no reward. */
  cumulative: z.number().nullable(),
  /** Null when the format records no duration for the step. */
  durationMs: z.number().nullable(),
  protocolError: z.string().nullable(),
  fallback: z.string().nullable(),
  error: z.string().nullable(),
  timedOut: z.boolean(),
  /** Candidate patches this step tried (repair steps). */
  candidates: z.number().int(),
  /** Signals of suspected reward hacking the step's submit recorded (server/src/env/hackSignals.ts); absent when none. */
  suspectedHacks: z.number().int().min(1).optional(),
  /** A fork's step replayed from its parent (docs/trajectory-viewer.md#continue-from-here); absent for a step taken live. */
  replayed: z.literal(true).optional(),
});
export type StepRow = z.infer<typeof stepRowSchema>;

export const episodeOutcomeSchema = z.object({
  resolved: z.boolean(),
  terminationReason: z.string(),
  totalReward: z.number(),
  steps: z.number().int(),
  durationMs: z.number(),
  error: z.string().nullable(),
  patch: z.string(),
  /**
   * Why the episode reached no outcome when the machinery under it failed, or its tests could not
   * be graded (`not-gradable: pytest collected no tests …`); null for an outcome. Optional for
   * servers older than it.
   */
  noOutcome: z.string().nullable().optional(),
});

/** The trajectory formats the viewer reads (docs/field-formats.md). */
export const trajectoryFormatNameSchema = z.enum(['graph-planner', 'atif', 'swe-agent', 'mini-swe-agent', 'inspect']);
export type TrajectoryFormatName = z.infer<typeof trajectoryFormatNameSchema>;

/**
 * Which format a trajectory file is in, and what that format (or this file) does not record, so the
 * viewer and `gp trajectory show` say it instead of showing an empty or zero value.
 */
export const episodeFormatSchema = z.object({
  name: trajectoryFormatNameSchema,
  /** The format's own version, as the file states it (`ATIF-v1.7`, `mini-swe-agent-1.1`), or how it was recognised. */
  version: z.string(),
  /** Sentences: `No per-step reward: SWE-agent records none.` */
  lacks: z.array(z.string()),
  /** What the file says of its outcome in its own terms: `exit status: submitted`, `cost $0.02`. */
  facts: z.array(z.string()),
  /** The patch the agent submitted, when the file records one. */
  submission: z.string().nullable(),
  /**
   * A file of many episodes (an Inspect AI log's samples): each one's key and how the viewer names
   * it, and the key of the one shown. Absent for a file of one episode.
   */
  samples: z.array(z.object({ key: z.string().max(1000), label: z.string().max(1000) })).optional(),
  sample: z.string().max(1000).optional(),
});
export type EpisodeFormat = z.infer<typeof episodeFormatSchema>;

const formatNames: Record<TrajectoryFormatName, string> = {
  'graph-planner': 'Graph Planner',
  atif: 'ATIF',
  'swe-agent': 'SWE-agent',
  'mini-swe-agent': 'mini-swe-agent',
  inspect: 'Inspect AI',
};

/** How the viewer's badge and `gp trajectory show` name a file's format: `ATIF-v1.7`, `SWE-agent .traj`. */
export function formatLabel(format: EpisodeFormat): string {
  const name = formatNames[format.name];
  return format.version.startsWith('ATIF') || format.version.startsWith(name) ? format.version : `${name} ${format.version}`;
}

/** What the header shows: the task, the agent and, once it ended, the outcome. */
export const episodeHeaderSchema = z.object({
  /** Absolute path of the trajectory file. */
  file: z.string(),
  episodeId: z.string().nullable(),
  taskId: z.string().nullable(),
  agent: z.string().nullable(),
  backend: z.string().nullable(),
  /** Why `auto` fell back to the local backend, when it did. */
  backendFallback: z.string().nullable(),
  /** The task's Docker image, as the trajectory's start line recorded it. */
  image: z.string().nullable(),
  /** The sandbox host of a Ray cluster that ran the episode and its node, as the start line recorded it; null when it ran in the launching process. */
  sandboxHost: sandboxHostRefSchema.nullable(),
  issue: z.object({ title: z.string(), body: z.string() }).nullable(),
  maxSteps: z.number().int().nullable(),
  startedAt: z.string().nullable(),
  /** Null while the episode runs, or when it was cut short. */
  outcome: episodeOutcomeSchema.nullable(),
  /** No `end` line (yet). */
  cutShort: z.boolean(),
  /** The last line is torn (a crash mid-write). */
  torn: z.boolean(),
  /** Lines that are not valid trajectory records, with their line numbers; for another tool's file, where it breaks its format's rules. */
  problems: z.array(z.string()),
  /** The file's format; absent for our own trajectories (and from servers older than it). */
  format: episodeFormatSchema.optional(),
  /** The episode a fork continues, and the step it went on live from; absent for an episode that ran from its start. */
  fork: z.object({ episodeId: z.string(), trajectory: z.string(), step: z.number().int().min(1) }).optional(),
  /**
   * The run the trajectory belongs to (its folder's `status.json`), read only when the episode has
   * no step or ended in an error, so the viewer can say what happened: whether the run still runs,
   * and why it ended. Absent outside a run folder, and from servers older than it.
   */
  run: z
    .object({
      name: z.string(),
      /** `running` while its process lives; a crashed run reads `interrupted`. */
      state: z.enum(['running', 'finished', 'failed', 'interrupted', 'unknown']),
      /** Why the run ended, as `status.json` says (`exit_reason`). */
      reason: z.string().nullable(),
    })
    .optional(),
});
export type EpisodeHeader = z.infer<typeof episodeHeaderSchema>;

/** Request: the header and the step rows after the first `knownSteps`. */
export const episodeOpenRequest = 'graphPlanner/episode/open';
/** `sample`: which episode of a file of many (an Inspect log's sample key); the first when absent. */
const sampleParam = { sample: z.string().max(1000).optional() };
export const episodeOpenParamsSchema = z.object({ path: z.string(), knownSteps: z.number().int().min(0).default(0), ...sampleParam });
export type EpisodeOpenParams = z.input<typeof episodeOpenParamsSchema>;
export const episodeOpenResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    header: episodeHeaderSchema,
    rows: z.array(stepRowSchema),
    /** False when the file was rewritten (a resumed episode starts over): drop what you had. */
    appended: z.boolean(),
    totalSteps: z.number().int(),
  }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type EpisodeOpenResult = z.infer<typeof episodeOpenResultSchema>;

/** An image or audio part of a message or a result, which the viewer names but does not load. */
export const foreignMediaSchema = z.object({ kind: z.enum(['image', 'audio']), mediaType: z.string(), path: z.string() });

/**
 * A step of another tool's trajectory (ATIF, SWE-agent, mini-swe-agent), as the viewer shows it:
 * who spoke, the message, the reasoning, the tool calls with their arguments, what came back, and
 * the figures the format records. A field the format does not have is null, never a default.
 */
export const foreignStepSchema = z.object({
  type: z.literal('foreign'),
  /** Its place in the viewer's list, from 1. */
  step: z.number().int().min(1),
  source: z.enum(['system', 'user', 'agent']),
  /** Where the step is in its file, as a JSON path (`steps[3]`, `trajectory[0]`, `messages[4]`). */
  origin: z.string(),
  timestamp: z.string().nullable(),
  model: z.string().nullable(),
  message: z.string(),
  reasoning: z.string().nullable(),
  toolCalls: z.array(z.object({ id: z.string().nullable(), name: z.string(), arguments: z.unknown() })),
  results: z.array(z.object({ callId: z.string().nullable(), content: z.string(), subagents: z.array(z.string()) })),
  media: z.array(foreignMediaSchema),
  metrics: z.object({
    promptTokens: z.number().nullable(),
    completionTokens: z.number().nullable(),
    cachedTokens: z.number().nullable(),
    costUsd: z.number().nullable(),
    /** How many token ids and log-probabilities the step carries (the ids themselves stay in the file). */
    promptTokenIds: z.number().int().nullable(),
    completionTokenIds: z.number().int().nullable(),
    logprobs: z.number().int().nullable(),
  }),
  reward: z.number().nullable(),
  /** How long the step's action took, when the format records it (SWE-agent's `execution_time`). */
  durationMs: z.number().nullable(),
  /** The agent's environment state after the step (SWE-agent's open file and working directory). */
  state: z.record(z.string(), z.string()),
  /** ATIF's `is_copied_context`: copied from an earlier trajectory, not this agent's own turn. */
  copiedContext: z.boolean(),
  /** The format's extras for the step, shown as JSON. */
  extra: z.record(z.string(), z.unknown()).nullable(),
  /** Where this step breaks its format's rules. */
  problems: z.array(z.string()),
});
export type ForeignStep = z.infer<typeof foreignStepSchema>;

/** A full step record: one of ours, or one of another tool's trajectory. */
export const episodeStepRecordSchema = z.discriminatedUnion('type', [trajectoryStepSchema, foreignStepSchema]);
export type EpisodeStepRecord = z.infer<typeof episodeStepRecordSchema>;

/** Request: the full records of some steps (the selected one and its neighbours). */
export const episodeStepsRequest = 'graphPlanner/episode/steps';
export const episodeStepsParamsSchema = z.object({ path: z.string(), steps: z.array(z.number().int()).max(200), ...sampleParam });
export const episodeStepsResultSchema = z.object({ steps: z.array(episodeStepRecordSchema) });
export type EpisodeStepsResult = z.infer<typeof episodeStepsResultSchema>;

export const searchFieldSchema = z.enum(['reply', 'thought', 'action', 'observation']);
export const searchMatchSchema = z.object({ step: z.number().int(), field: searchFieldSchema, offset: z.number().int(), preview: z.string() });
export type SearchMatchView = z.infer<typeof searchMatchSchema>;

/** Request: every occurrence of a text in the episode's replies, thoughts, actions and observations. */
export const episodeSearchRequest = 'graphPlanner/episode/search';
export const episodeSearchParamsSchema = z.object({ path: z.string(), query: z.string().max(1000), caseSensitive: z.boolean().default(false), ...sampleParam });
export const episodeSearchResultSchema = z.object({ matches: z.array(searchMatchSchema), truncated: z.boolean() });
export type EpisodeSearchResult = z.infer<typeof episodeSearchResultSchema>;

/**
 * Request: what the episode recorded of one repository file (the lines its reads returned), for
 * a link to a file that is not in the workspace. Lines never read are empty.
 */
export const episodeSourceRequest = 'graphPlanner/episode/source';
export const episodeSourceParamsSchema = z.object({ path: z.string(), file: z.string() });
export const episodeSourceResultSchema = z.object({ text: z.string(), recordedLines: z.number().int() });
export type EpisodeSourceResult = z.infer<typeof episodeSourceResultSchema>;

/**
 * Request: a patch of the episode (a repair step's candidate, or with `step: null` the final patch)
 * rebuilt as whole files before and after, from the pre-images the run recorded. A file whose
 * pre-image is missing comes with `before: null` and the reason in `problem`.
 */
export const episodePatchRequest = 'graphPlanner/episode/patch';
export const episodePatchParamsSchema = z.object({ path: z.string(), step: z.number().int().nullable(), candidate: z.number().int().min(0).nullable() });
export const patchFileImageSchema = z.object({
  oldPath: z.string().nullable(),
  newPath: z.string().nullable(),
  status: z.enum(['modified', 'added', 'deleted', 'renamed']),
  before: z.string().nullable(),
  after: z.string().nullable(),
  problem: z.string().nullable(),
});
export type PatchFileImage = z.infer<typeof patchFileImageSchema>;
export const episodePatchResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    /** `Step 4 · candidate #2 · tests passed`, `Final patch · resolved`. */
    title: z.string(),
    /** Whether the candidate's tests passed (the episode resolved, for the final patch); null when not tried. */
    passed: z.boolean().nullable(),
    diff: z.string(),
    files: z.array(patchFileImageSchema),
  }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type EpisodePatchResult = z.infer<typeof episodePatchResultSchema>;

/** One row of a comparison: a step of each episode (or a gap), and whether both did the same. */
export const alignedRowSchema = z.object({
  left: stepRowSchema.nullable(),
  right: stepRowSchema.nullable(),
  same: z.boolean(),
  /** Each side's thought, tool result and observation, clipped, for the filters (optional for servers older than them). */
  leftTexts: stepTextsSchema.nullable().optional(),
  rightTexts: stepTextsSchema.nullable().optional(),
});
export type AlignedRowView = z.infer<typeof alignedRowSchema>;

/** Request: two episodes side by side, their steps aligned (episodes/episodeAlign.ts). */
export const episodeCompareRequest = 'graphPlanner/episode/compare';
export const episodeCompareParamsSchema = z.object({ left: z.string(), right: z.string() });
export const episodeCompareResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    left: episodeHeaderSchema,
    right: episodeHeaderSchema,
    rows: z.array(alignedRowSchema),
    /** Steps both took the same action in. */
    sameSteps: z.number().int(),
    /** The final patches are byte for byte equal; null until both episodes have ended. */
    samePatch: z.boolean().nullable(),
  }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type EpisodeCompareResult = z.infer<typeof episodeCompareResultSchema>;

/**
 * Extension → compare webview. `alignAt`: the right episode is a fork of the left from this step
 * (docs/trajectory-viewer.md#continue-from-here): the page scrolls to that step's row and marks the
 * steps before it as replayed from the parent. A comparison sent again (a running episode grew) keeps
 * the page where the person scrolled.
 */
export const compareHostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('comparison'), comparison: episodeCompareResultSchema, alignAt: z.number().int().min(1).nullable().optional() }),
]);
export type CompareHostMessage = z.infer<typeof compareHostMessageSchema>;

/**
 * Server → client notification: an open trajectory changed on disk (appended to, or replaced). The
 * server watches each trajectory a viewer has open; the client asks again for the new steps.
 */
export const episodeChangedNotification = 'graphPlanner/episode/changed';
export const episodeChangedSchema = z.object({ path: z.string() });
export type EpisodeChanged = z.infer<typeof episodeChangedSchema>;

/**
 * Request: a viewer opened (`watching: true`) or closed a trajectory. The server watches it while
 * any viewer has it open, and forgets it when the last one closes.
 */
export const episodeWatchRequest = 'graphPlanner/episode/watch';
/** `viewer` identifies the viewer (a random id per panel), so asking twice holds the watch once. */
export const episodeWatchParamsSchema = z.object({ path: z.string(), watching: z.boolean(), viewer: z.string().min(1).max(100) });

/** Extension → viewer webview (the page validates each with this schema). */
export const episodeHostMessageSchema = z.discriminatedUnion('type', [
  /** The header and steps; with `appended`, rows to add after those the page has. */
  z.object({ type: z.literal('episode'), header: episodeHeaderSchema, rows: z.array(stepRowSchema), appended: z.boolean() }),
  /** Full records of steps the page asked for. */
  z.object({ type: z.literal('steps'), steps: z.array(episodeStepRecordSchema) }),
  z.object({ type: z.literal('searchResult'), query: z.string(), matches: z.array(searchMatchSchema), truncated: z.boolean() }),
  /** The trajectory cannot be read (gone, unreadable, the server is down), and why. */
  z.object({ type: z.literal('unavailable'), reason: z.string() }),
  /** Select this step (the viewer was opened at it from the group view or a sample table). */
  z.object({ type: z.literal('selectStep'), step: z.number().int() }),
]);
export type EpisodeHostMessage = z.infer<typeof episodeHostMessageSchema>;
