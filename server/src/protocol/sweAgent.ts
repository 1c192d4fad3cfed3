/**
 * The trajectory files of SWE-agent (`.traj`) and mini-swe-agent (`.traj.json`), as those projects
 * write them (docs/field-formats.md §3 and §4, with the commits read). The trajectory viewer reads
 * them (`formats/sweAgentRead.ts`, `formats/miniSweAgentRead.ts`) and never writes them. Both projects
 * add keys between versions, so objects are loose: a key we do not know is kept, not an error; a
 * key we rely on with the wrong type is.
 */
import { z } from 'zod';

/** An OpenAI-style chat message, as both projects keep their conversation. */
export const chatMessageSchema = z.looseObject({
  role: z.string(),
  /** Text, or a list of parts (`{type: "text", text}` …); null for a message that only calls tools. */
  content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
  tool_calls: z.array(z.looseObject({ id: z.string().nullish(), function: z.looseObject({ name: z.string(), arguments: z.unknown() }).optional() })).nullish(),
  tool_call_id: z.string().nullish(),
  extra: z.record(z.string(), z.unknown()).nullish(),
});

/** One entry of SWE-agent's `trajectory` (`sweagent/types.py`, `TrajectoryStep`); `query` and `extra_info` are newer. */
export const sweAgentStepSchema = z.looseObject({
  action: z.string(),
  observation: z.string(),
  response: z.string(),
  thought: z.string(),
  execution_time: z.number().min(0),
  state: z.record(z.string(), z.unknown()),
  query: z.array(z.unknown()).optional(),
  extra_info: z.record(z.string(), z.unknown()).optional(),
});

/** A `.traj` file (`sweagent/agent/agents.py`, `get_trajectory_data`); a demonstration has only `history`. */
export const sweAgentTrajectorySchema = z
  .looseObject({
    environment: z.string().optional(),
    trajectory: z.array(sweAgentStepSchema).optional(),
    history: z
      .array(chatMessageSchema.extend({ message_type: z.string().optional(), thought: z.string().optional(), action: z.string().nullish() }))
      .optional(),
    info: z
      .looseObject({
        exit_status: z.string().nullish(),
        submission: z.string().nullish(),
        model_stats: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
    /** The run's config: a JSON string in current SWE-agent, an object in older files. */
    replay_config: z.union([z.string(), z.record(z.string(), z.unknown()), z.null()]).optional(),
  })
  .refine((t) => t.trajectory !== undefined || t.history !== undefined, { message: 'a SWE-agent trajectory has a "trajectory" or a "history" list' });

/** mini-swe-agent's current shape (`trajectory_format: "mini-swe-agent-1.1"`); the oldest files are a bare list of messages. */
export const miniSweAgentTrajectorySchema = z.union([
  z.array(chatMessageSchema),
  z.looseObject({
    info: z
      .looseObject({
        exit_status: z.string().nullish(),
        submission: z.string().nullish(),
        mini_version: z.string().optional(),
        model_stats: z.record(z.string(), z.unknown()).optional(),
        config: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
    messages: z.array(chatMessageSchema),
    trajectory_format: z.string().optional(),
  }),
]);
