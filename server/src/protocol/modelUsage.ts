/**
 * What a model agent's replies cost and how they fared, at three levels: one step (the call that
 * produced the reply), one episode (in the trajectory's end line and the task's outcome) and one
 * run (in `report.json`). A rollout whose steps a fallback agent took must say so: the run's
 * figures count the steps the model's own replies drove, the replies that failed to parse and
 * why, the steps the fallback took, and the resolved episodes that needed it.
 */
import { z } from 'zod';

const count = z.number().int().min(0);

/** The model call behind one step, as the chat endpoint reported it. */
export const modelCallSchema = z.object({
  /** Tokens of the prompt the server read (absent when it reported no usage). */
  prompt_tokens: count.optional(),
  /** Tokens the model generated. */
  completion_tokens: count.optional(),
  /** Wall time of the call, retries included: the model's generation as the agent waited for it. */
  generation_ms: z.number().min(0),
  /** Attempts the call took (1 when the first answered). */
  attempts: z.number().int().min(1),
  /** Why generation ended: `stop` (a stop string or the end of turn), `length` (the token limit), … */
  finish_reason: z.string().optional(),
  /** Messages of the conversation left out to fit the model's context window. */
  trimmed_messages: count.optional(),
});
export type ModelCall = z.infer<typeof modelCallSchema>;

/** One episode of a model agent: its calls, its replies' fate and their cost. */
export const modelUsageSchema = z.object({
  /** Steps whose action came from the model's own reply. */
  model_steps: count,
  /** Replies that did not parse, by protocol error code (whether a fallback then took the step or not). */
  parse_failures: z.record(z.string(), count),
  /** Steps the fallback agent took, for a reply that did not parse or a call the endpoint refused. */
  fallback_steps: count,
  /** Calls made to the endpoint (one per step that asked the model). */
  calls: count,
  prompt_tokens: count,
  completion_tokens: count,
  /** Summed wall time of the calls. */
  generation_ms: z.number().min(0),
  /** A fork's steps replayed from its parent, which no model of this episode took (rollout/forkPrefix.ts). */
  replayed_steps: count.optional(),
});
export type ModelUsage = z.infer<typeof modelUsageSchema>;

/**
 * A run's model figures (`report.json`). `resolved_by_model_alone` counts resolved episodes in
 * which no step was the fallback's; `resolved_with_fallback` the others, which a fallback padded.
 */
export const modelSummarySchema = modelUsageSchema.extend({
  /** Whether a fallback agent could take steps in this run (`rollout.fallback_to_rule`). */
  fallback_enabled: z.boolean(),
  /** Steps of the episodes summed, the model's, the fallback's and the protocol errors' (a fork's replayed steps are not counted). */
  steps: count,
  /** Replies that failed to parse, over the calls that came back. */
  parse_failure_rate: z.number().min(0).max(1),
  /** Steps driven by the model's own replies, over all steps. */
  model_step_share: z.number().min(0).max(1),
  resolved_by_model_alone: count,
  resolved_with_fallback: count,
});
export type ModelSummary = z.infer<typeof modelSummarySchema>;
