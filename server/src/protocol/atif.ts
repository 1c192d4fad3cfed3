/**
 * The Agent Trajectory Interchange Format (ATIF v1.4), the published shape other trajectory tools
 * read (docs/trajectory-formats.md names its source). `gp trajectory export --format atif` writes
 * it; the schema checks every export before it is written, with the format's own rules: step ids
 * count from 1, only agent steps carry model fields, user steps no observation, and each
 * observation result names a tool call of its own step.
 */
import { z } from 'zod';

export const atifSchemaVersion = 'ATIF-v1.4';

const extra = z.record(z.string(), z.unknown()).optional();

export const atifToolCallSchema = z.object({
  tool_call_id: z.string().min(1),
  function_name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});

export const atifMetricsSchema = z.object({
  prompt_tokens: z.number().int().min(0).optional(),
  completion_tokens: z.number().int().min(0).optional(),
  cached_tokens: z.number().int().min(0).optional(),
  cost_usd: z.number().min(0).optional(),
  prompt_token_ids: z.array(z.number().int()).optional(),
  completion_token_ids: z.array(z.number().int()).optional(),
  logprobs: z.array(z.number()).optional(),
  extra,
});

export const atifObservationSchema = z.object({
  results: z.array(
    z.object({
      source_call_id: z.string().nullable().optional(),
      content: z.string().optional(),
      subagent_trajectory_ref: z.array(z.object({ session_id: z.string(), trajectory_path: z.string().optional(), extra })).optional(),
    }),
  ),
});

export const atifStepSchema = z
  .object({
    step_id: z.number().int().min(1),
    timestamp: z.iso.datetime({ offset: true }).optional(),
    source: z.enum(['system', 'user', 'agent']),
    model_name: z.string().optional(),
    reasoning_effort: z.union([z.string(), z.number()]).optional(),
    message: z.string(),
    reasoning_content: z.string().optional(),
    tool_calls: z.array(atifToolCallSchema).optional(),
    observation: atifObservationSchema.optional(),
    metrics: atifMetricsSchema.optional(),
    extra,
  })
  .superRefine((step, ctx) => {
    if (step.source !== 'agent') {
      for (const key of ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'] as const) {
        if (step[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is for agent steps only` });
      }
    }
    if (step.source === 'user' && step.observation !== undefined) ctx.addIssue({ code: 'custom', path: ['observation'], message: 'a user step carries no observation' });
    const calls = new Set((step.tool_calls ?? []).map((c) => c.tool_call_id));
    for (const [i, r] of (step.observation?.results ?? []).entries()) {
      if (typeof r.source_call_id === 'string' && !calls.has(r.source_call_id)) {
        ctx.addIssue({ code: 'custom', path: ['observation', 'results', i, 'source_call_id'], message: `names no tool call of this step (${r.source_call_id})` });
      }
    }
  });
export type AtifStep = z.infer<typeof atifStepSchema>;

export const atifTrajectorySchema = z
  .object({
    schema_version: z.literal(atifSchemaVersion),
    session_id: z.string().min(1),
    agent: z.object({ name: z.string().min(1), version: z.string().min(1), model_name: z.string().optional(), extra }),
    steps: z.array(atifStepSchema),
    notes: z.string().optional(),
    final_metrics: z
      .object({
        total_prompt_tokens: z.number().int().min(0).optional(),
        total_completion_tokens: z.number().int().min(0).optional(),
        total_cached_tokens: z.number().int().min(0).optional(),
        total_cost_usd: z.number().min(0).optional(),
        total_steps: z.number().int().min(0).optional(),
        extra,
      })
      .optional(),
    extra,
  })
  .superRefine((t, ctx) => {
    t.steps.forEach((s, i) => {
      if (s.step_id !== i + 1) ctx.addIssue({ code: 'custom', path: ['steps', i, 'step_id'], message: `step ids count from 1 in order; expected ${i + 1}, got ${s.step_id}` });
    });
  });
export type AtifTrajectory = z.infer<typeof atifTrajectorySchema>;
