/**
 * The Agent Trajectory Interchange Format (ATIF), every version from v1.0 to v1.8, as Harbor's
 * reference models define it (docs/field-formats.md §1: the schema, the version table and its
 * source). One schema holds the newest shape with every object strict (Harbor forbids unknown
 * keys); a check on top of it holds each file to its own `schema_version`: a field that arrived in
 * a later version, a content array before v1.6, a missing `session_id` before v1.7. The reader
 * (`formats/atifRead.ts`) reports every issue with its JSON path and shows what it can;
 * `gp trajectory export --format atif` (`formats/atifExport.ts`) writes `atifExportVersion` and checks
 * each export against the same schema before writing it.
 */
import { z } from 'zod';
import { trajectoryEndSchema, trajectoryStartSchema, trajectoryStepSchema } from './runs.js';

export const atifVersions = ['ATIF-v1.0', 'ATIF-v1.1', 'ATIF-v1.2', 'ATIF-v1.3', 'ATIF-v1.4', 'ATIF-v1.5', 'ATIF-v1.6', 'ATIF-v1.7', 'ATIF-v1.8'] as const;
export type AtifVersion = (typeof atifVersions)[number];

/**
 * What `gp trajectory export` writes: the oldest version that carries every field we write
 * (`trajectory_id` and `llm_call_count` arrived in v1.7); v1.8 added only audio, which we never
 * write, and a reader that knows v1.7 but not v1.8 can still read our exports.
 */
export const atifExportVersion = 'ATIF-v1.7' satisfies AtifVersion;

/** The minor version of `ATIF-v1.N`, or undefined for anything else. */
export function atifMinor(version: unknown): number | undefined {
  return typeof version === 'string' && (atifVersions as readonly string[]).includes(version) ? Number(version.slice('ATIF-v1.'.length)) : undefined;
}

const extra = z.record(z.string(), z.unknown()).nullish();
const count = z.number().int().min(0).nullish();

const imageTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
/** Harbor normalises these common aliases on read (docs/field-formats.md, the v1.8 row). */
const audioAliases: Record<string, string> = {
  'audio/mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/x-flac': 'audio/flac',
  'audio/m4a': 'audio/mp4',
  'audio/x-m4a': 'audio/mp4',
  'audio/x-aiff': 'audio/aiff',
};
const audioTypes = ['audio/wav', 'audio/mpeg', 'audio/mp4', 'audio/aac', 'audio/ogg', 'audio/flac', 'audio/webm', 'audio/aiff'] as const;

export const atifContentPartSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('image'), source: z.strictObject({ media_type: z.enum(imageTypes), path: z.string() }) }),
  z.strictObject({
    type: z.literal('audio'),
    source: z.strictObject({
      media_type: z.preprocess((v) => (typeof v === 'string' ? (audioAliases[v] ?? v) : v), z.enum(audioTypes)),
      path: z.string(),
      duration_sec: z.number().min(0).nullish(),
    }),
  }),
]);
export type AtifContentPart = z.infer<typeof atifContentPartSchema>;

/** A message or a result's content: text, or (since v1.6) a list of text, image and (v1.8) audio parts. */
const contentSchema = z.union([z.string(), z.array(atifContentPartSchema)]);

export const atifToolCallSchema = z.strictObject({
  tool_call_id: z.string(),
  function_name: z.string(),
  /** A JSON object, possibly empty; a list or a string is not arguments. */
  arguments: z.record(z.string(), z.unknown()),
  extra,
});

export const atifSubagentRefSchema = z.strictObject({
  trajectory_id: z.string().nullish(),
  session_id: z.string().nullish(),
  trajectory_path: z.string().nullish(),
  extra,
});

export const atifObservationSchema = z.strictObject({
  results: z.array(
    z.strictObject({
      source_call_id: z.string().nullish(),
      content: contentSchema.nullish(),
      subagent_trajectory_ref: z.array(atifSubagentRefSchema).nullish(),
      extra,
    }),
  ),
});

export const atifMetricsSchema = z.strictObject({
  prompt_tokens: count,
  completion_tokens: count,
  cached_tokens: count,
  cost_usd: z.number().min(0).nullish(),
  prompt_token_ids: z.array(z.number().int()).nullish(),
  completion_token_ids: z.array(z.number().int()).nullish(),
  logprobs: z.array(z.number()).nullish(),
  extra,
});

/** ISO 8601 as Python's `datetime.fromisoformat` reads it: a date, optionally a time, `Z` or an offset. */
const isoTimestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/, 'is not an ISO 8601 time stamp');

export const atifStepSchema = z.strictObject({
  step_id: z.number().int().min(1),
  timestamp: isoTimestamp.nullish(),
  source: z.enum(['system', 'user', 'agent']),
  model_name: z.string().nullish(),
  reasoning_effort: z.union([z.string(), z.number()]).nullish(),
  message: contentSchema,
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(atifToolCallSchema).nullish(),
  observation: atifObservationSchema.nullish(),
  metrics: atifMetricsSchema.nullish(),
  is_copied_context: z.boolean().nullish(),
  llm_call_count: z.number().int().min(0).nullish(),
  extra,
});
export type AtifStep = z.infer<typeof atifStepSchema>;

export const atifAgentSchema = z.strictObject({
  name: z.string(),
  version: z.string(),
  model_name: z.string().nullish(),
  tool_definitions: z.array(z.record(z.string(), z.unknown())).nullish(),
  extra,
});

export const atifFinalMetricsSchema = z.strictObject({
  total_prompt_tokens: count,
  total_completion_tokens: count,
  total_cached_tokens: count,
  total_cost_usd: z.number().min(0).nullish(),
  total_steps: count,
  extra,
});

interface AtifShape {
  schema_version: AtifVersion;
  session_id?: string | null | undefined;
  trajectory_id?: string | null | undefined;
  agent: z.infer<typeof atifAgentSchema>;
  steps: AtifStep[];
  notes?: string | null | undefined;
  final_metrics?: z.infer<typeof atifFinalMetricsSchema> | null | undefined;
  continued_trajectory_ref?: string | null | undefined;
  extra?: Record<string, unknown> | null | undefined;
  subagent_trajectories?: AtifShape[] | null | undefined;
}

const trajectoryObject: z.ZodType<AtifShape> = z.lazy(() =>
  z.strictObject({
    schema_version: z.enum(atifVersions),
    session_id: z.string().nullish(),
    trajectory_id: z.string().nullish(),
    agent: atifAgentSchema,
    steps: z.array(atifStepSchema).min(1),
    notes: z.string().nullish(),
    final_metrics: atifFinalMetricsSchema.nullish(),
    continued_trajectory_ref: z.string().nullish(),
    extra,
    subagent_trajectories: z.array(trajectoryObject).nullish(),
  }),
);

/**
 * A whole ATIF document, held to the rules of the version it names. The rules run even when the
 * shape has problems (zod would skip them), so a reader hears of every violation at once.
 */
export const atifTrajectorySchema = trajectoryObject.superRefine(
  (t, ctx) => {
    for (const issue of atifRuleIssues(t)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  },
  { when: () => true },
);
export type AtifTrajectory = AtifShape;

export interface AtifIssue {
  readonly path: (string | number)[];
  readonly message: string;
}

/** Fields (by name inside their object) that arrived after v1.0, with the minor version that added them. */
const rootSince: Record<string, number> = { extra: 1, trajectory_id: 7, subagent_trajectories: 7 };
const stepSince: Record<string, number> = { is_copied_context: 5, llm_call_count: 7 };
const metricsSince: Record<string, number> = { completion_token_ids: 3, prompt_token_ids: 4 };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const present = (o: Obj | undefined, key: string): boolean => o !== undefined && o[key] !== undefined && o[key] !== null;

/**
 * The rules the shape cannot say: step order, call ids, agent-only fields, embedded subagents, and
 * each version's own shape. Written against any value (a field of the wrong type is the shape's
 * issue, not these rules'), so it runs on a file whose shape is broken too.
 */
export function atifRuleIssues(value: unknown, at: (string | number)[] = []): AtifIssue[] {
  const t = obj(value);
  if (t === undefined) return [];
  const issues: AtifIssue[] = [];
  const version = typeof t['schema_version'] === 'string' ? t['schema_version'] : 'no known version';
  const minor = atifMinor(t['schema_version']) ?? 8;
  const add = (path: (string | number)[], message: string): void => void issues.push({ path: [...at, ...path], message });
  const late = (path: (string | number)[], since: number): void => add(path, `${String(path.at(-1))} arrived in ATIF-v1.${since}; this file says ${version}`);
  for (const [field, since] of Object.entries(rootSince)) if (minor < since && present(t, field)) late([field], since);
  if (minor < 7 && !present(t, 'session_id')) add(['session_id'], `session_id is required before ATIF-v1.7; this file says ${version}`);
  const subIds = new Set<string>();
  list(t['subagent_trajectories']).forEach((sub, i) => {
    const id = obj(sub)?.['trajectory_id'];
    if (typeof id !== 'string') add(['subagent_trajectories', i, 'trajectory_id'], 'an embedded subagent trajectory needs a trajectory_id');
    else if (subIds.has(id)) add(['subagent_trajectories', i, 'trajectory_id'], `trajectory_id ${id} is used by an earlier embedded subagent`);
    else subIds.add(id);
    issues.push(...atifRuleIssues(sub, [...at, 'subagent_trajectories', i]));
  });
  list(t['steps']).forEach((step, i) => {
    for (const x of stepIssues(obj(step), i, minor, version)) add(['steps', i, ...x.path], x.message);
  });
  return issues;
}

function stepIssues(step: Obj | undefined, index: number, minor: number, version: string): AtifIssue[] {
  if (step === undefined) return [];
  const issues: AtifIssue[] = [];
  const add = (path: (string | number)[], message: string): void => void issues.push({ path, message });
  const late = (path: (string | number)[], since: number): void => add(path, `${String(path.at(-1))} arrived in ATIF-v1.${since}; this file says ${version}`);
  const source = step['source'];
  if (typeof step['step_id'] === 'number' && step['step_id'] !== index + 1)
    add(['step_id'], `step ids count from 1 in order; expected ${index + 1}, got ${step['step_id']}`);
  if (source === 'system' || source === 'user') {
    for (const key of ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics']) {
      if (present(step, key)) add([key], `${key} is for agent steps only (this step's source is ${source})`);
    }
  }
  if (minor < 2 && source === 'system' && present(step, 'observation'))
    add(['observation'], `an observation on a system step arrived in ATIF-v1.2; this file says ${version}`);
  for (const [field, since] of Object.entries(stepSince)) if (minor < since && present(step, field)) late([field], since);
  const metrics = obj(step['metrics']);
  for (const [field, since] of Object.entries(metricsSince)) if (minor < since && present(metrics, field)) late(['metrics', field], since);
  if (step['llm_call_count'] === 0 && source === 'agent') {
    for (const key of ['metrics', 'reasoning_content'])
      if (present(step, key)) add([key], `llm_call_count 0 says no model was called, so ${key} must be absent`);
  }
  issues.push(...contentIssues(step['message'], ['message'], minor, version));
  const calls = new Set<unknown>();
  list(step['tool_calls']).forEach((c, i) => {
    const call = obj(c);
    calls.add(call?.['tool_call_id']);
    if (minor < 7 && present(call, 'extra')) late(['tool_calls', i, 'extra'], 7);
  });
  list(obj(step['observation'])?.['results']).forEach((raw, i) => {
    const r = obj(raw);
    const at = ['observation', 'results', i];
    const callId = r?.['source_call_id'];
    if (typeof callId === 'string' && !calls.has(callId)) add([...at, 'source_call_id'], `names no tool call of this step (${callId})`);
    if (minor < 7 && present(r, 'extra')) late([...at, 'extra'], 7);
    issues.push(...contentIssues(r?.['content'], [...at, 'content'], minor, version));
    list(r?.['subagent_trajectory_ref']).forEach((rawRef, j) => {
      const ref = obj(rawRef);
      const refAt = [...at, 'subagent_trajectory_ref', j];
      if (ref === undefined) return;
      if (minor < 7) {
        if (typeof ref['session_id'] !== 'string')
          add([...refAt, 'session_id'], `a subagent reference needs a session_id before ATIF-v1.7; this file says ${version}`);
        if (present(ref, 'trajectory_id')) late([...refAt, 'trajectory_id'], 7);
      } else if (typeof ref['trajectory_id'] !== 'string' && typeof ref['trajectory_path'] !== 'string') {
        add(refAt, 'a subagent reference needs a trajectory_id or a trajectory_path');
      }
    });
  });
  return issues;
}

function contentIssues(content: unknown, path: (string | number)[], minor: number, version: string): AtifIssue[] {
  if (!Array.isArray(content)) return [];
  if (minor < 6) return [{ path, message: `a list of content parts arrived in ATIF-v1.6; this file says ${version} (text only)` }];
  if (minor < 8)
    return content.flatMap((part, i) =>
      obj(part)?.['type'] === 'audio' ? [{ path: [...path, i, 'type'], message: `audio content arrived in ATIF-v1.8; this file says ${version}` }] : [],
    );
  return [];
}

/**
 * The key under which our own exports keep our records in ATIF's `extra` objects (the root's holds
 * the start and end lines, each agent step's its step record), so that reading our export back
 * loses nothing the trajectory viewer shows. Other tools ignore it, as ATIF's extras are theirs to
 * ignore.
 */
export const atifOwnKey = 'graph_planner';

export const atifOwnEpisodeSchema = z.object({
  start: trajectoryStartSchema.optional(),
  end: trajectoryEndSchema.optional(),
  /** The source trajectory's last line was torn. */
  torn: z.boolean(),
  /** The source trajectory's invalid lines, as its reader reported them. */
  problems: z.array(z.string()),
});

export const atifOwnStepSchema = z.object({ record: trajectoryStepSchema });
