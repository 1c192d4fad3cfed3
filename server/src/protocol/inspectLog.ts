/**
 * Inspect AI's evaluation log (docs/trajectory-formats.md, "Inspect AI logs"), the parts we write
 * and read, as `inspect_ai.log` (0.3.285, pinned in python/requirements.txt) defines them: an
 * `EvalLog` whose `eval` says what ran, whose `results` hold each scorer's metrics and whose
 * `samples` hold one `EvalSample` per attempt of a dataset sample (`id` and `epoch`), with its chat
 * `messages`, `scores` and `metadata`. A `.json` log is that object; a `.eval` log is a zip of
 * `header.json` (the log without samples), `samples/<id>_epoch_<n>.json` and `summaries.json`.
 *
 * Inspect's models accept and drop fields they do not know, and later versions add fields, so
 * every object here is loose: a field Inspect added stays where it was and a missing optional one
 * is simply absent. `gp runs export --format inspect` (formats/inspectExport.ts) checks what it
 * writes against these schemas; the viewer's reader (formats/inspectRead.ts) reports, with its
 * path, whatever breaks them.
 */
import { z } from 'zod';

const record = z.record(z.string(), z.unknown());

/** A message's content: a string, or a list of parts (`text`, `reasoning`, `image`, `tool_use`, …). */
export const inspectContentSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional(), reasoning: z.string().optional() })),
]);

export const inspectToolCallSchema = z.looseObject({
  id: z.string(),
  function: z.string(),
  arguments: record,
  type: z.string().optional(),
  parse_error: z.string().nullish(),
});

const messageBase = { id: z.string().nullish(), content: inspectContentSchema, source: z.string().nullish(), metadata: record.nullish() };

export const inspectMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ ...messageBase, role: z.literal('system') }),
  z.looseObject({ ...messageBase, role: z.literal('user'), tool_call_id: z.array(z.string()).nullish() }),
  z.looseObject({ ...messageBase, role: z.literal('assistant'), tool_calls: z.array(inspectToolCallSchema).nullish(), model: z.string().nullish() }),
  z.looseObject({
    ...messageBase,
    role: z.literal('tool'),
    tool_call_id: z.string().nullish(),
    function: z.string().nullish(),
    error: z.looseObject({ type: z.string(), message: z.string() }).nullish(),
  }),
]);
export type InspectMessage = z.infer<typeof inspectMessageSchema>;

/** A score's value: Inspect's `Value` (a letter such as "C"/"I", a number, a boolean, or a list or map of them). */
const scoreValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.union([z.string(), z.number(), z.boolean()])), record]);

export const inspectScoreSchema = z.looseObject({
  value: scoreValue,
  answer: z.string().nullish(),
  explanation: z.string().nullish(),
  metadata: record.nullish(),
});

export const inspectUsageSchema = z.looseObject({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0),
});

export const inspectErrorSchema = z.looseObject({ message: z.string(), traceback: z.string(), traceback_ansi: z.string() });

export const inspectOutputSchema = z.looseObject({
  model: z.string().optional(),
  choices: z.array(z.looseObject({ message: inspectMessageSchema, stop_reason: z.string().optional() })).optional(),
  completion: z.string().optional(),
  usage: inspectUsageSchema.nullish(),
});

export const inspectSampleSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  epoch: z.number().int().min(1),
  input: z.union([z.string(), z.array(inspectMessageSchema)]),
  target: z.union([z.string(), z.array(z.string())]),
  messages: z.array(inspectMessageSchema).optional(),
  output: inspectOutputSchema.optional(),
  scores: z.record(z.string(), inspectScoreSchema).nullish(),
  metadata: record.optional(),
  model_usage: z.record(z.string(), inspectUsageSchema).optional(),
  started_at: z.string().nullish(),
  completed_at: z.string().nullish(),
  total_time: z.number().nullish(),
  working_time: z.number().nullish(),
  uuid: z.string().nullish(),
  error: inspectErrorSchema.nullish(),
  events: z.array(z.unknown()).optional(),
});
export type InspectSample = z.infer<typeof inspectSampleSchema>;

/** One line of `summaries.json`: a sample without its messages and events, for listing. */
export const inspectSampleSummarySchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  epoch: z.number().int().min(1),
  input: z.union([z.string(), z.array(inspectMessageSchema)]),
  target: z.union([z.string(), z.array(z.string())]),
  scores: z.record(z.string(), inspectScoreSchema).nullish(),
  error: z.string().nullish(),
  completed: z.boolean().optional(),
});
export type InspectSampleSummary = z.infer<typeof inspectSampleSummarySchema>;

export const inspectEvalSpecSchema = z.looseObject({
  eval_id: z.string().optional(),
  run_id: z.string().optional(),
  created: z.string(),
  task: z.string(),
  task_id: z.string().optional(),
  task_version: z.union([z.number(), z.string()]).optional(),
  dataset: z.looseObject({ name: z.string().nullish(), samples: z.number().int().nullish(), sample_ids: z.array(z.union([z.string(), z.number()])).nullish() }),
  model: z.string(),
  config: record,
  packages: z.record(z.string(), z.string()).optional(),
  metadata: record.nullish(),
});

export const inspectEvalScoreSchema = z.looseObject({
  name: z.string(),
  scorer: z.string(),
  scored_samples: z.number().int().nullish(),
  unscored_samples: z.number().int().nullish(),
  metrics: z.record(z.string(), z.looseObject({ name: z.string(), value: z.number() })),
});

export const inspectLogStatuses = ['started', 'success', 'cancelled', 'error'] as const;

export const inspectLogSchema = z.looseObject({
  version: z.number().int(),
  status: z.enum(inspectLogStatuses),
  eval: inspectEvalSpecSchema,
  plan: record.optional(),
  results: z.looseObject({ total_samples: z.number().int(), completed_samples: z.number().int(), scores: z.array(inspectEvalScoreSchema) }).nullish(),
  stats: z
    .looseObject({ started_at: z.string().optional(), completed_at: z.string().optional(), model_usage: z.record(z.string(), inspectUsageSchema).optional() })
    .optional(),
  error: inspectErrorSchema.nullish(),
  samples: z.array(inspectSampleSchema).nullish(),
});
export type InspectLog = z.infer<typeof inspectLogSchema>;

/** The `.eval` zip's members: the log without samples, the samples one file each, their summaries. */
export const inspectEvalMembers = { header: 'header.json', summaries: 'summaries.json', samplesDir: 'samples/' } as const;

/** A sample's key, as Inspect names its member (`<id>_epoch_<n>`): the viewer and `--sample` choose samples by it. */
export function inspectSampleKey(id: string | number, epoch: number): string {
  return `${String(id)}_epoch_${epoch}`;
}

/**
 * The member names a sample may have in a `.eval` zip: Inspect writes `samples/<id>_epoch_<n>.json`
 * with the id as it is; we write the id with every character outside `[A-Za-z0-9._-]`
 * percent-encoded, so that a task id holding `/` or a backslash names no folder of the zip and two
 * ids never share a member.
 */
export function inspectSampleMembers(id: string | number, epoch: number): { readonly inspect: string; readonly ours: string } {
  const encoded = String(id).replace(/[^A-Za-z0-9._-]/g, (c) =>
    encodeURIComponent(c).replace(/[!'()*]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`),
  );
  return {
    inspect: `${inspectEvalMembers.samplesDir}${inspectSampleKey(id, epoch)}.json`,
    ours: `${inspectEvalMembers.samplesDir}${encoded}_epoch_${epoch}.json`,
  };
}

/** The key under a sample's `metadata` (and the log's `eval.metadata`) where our own records ride. */
export const inspectOwnKey = 'graph_planner';
/** The scorer our exports name: an episode's outcome as our environment graded it. */
export const inspectScorerName = 'graph_planner/resolved';
