/**
 * The environment service's HTTP bodies (server/src/cluster/envService.ts): what a trainer's agent
 * loop sends to run an episode in our sandboxes, and what comes back. Episodes are created
 * (idempotent on the client's key), stepped with the model's raw reply text (idempotent on the
 * turn number; the service parses the reply and renders the observation, so the text protocol
 * lives in one place) and closed. Every request carries `Authorization: Bearer <token>`.
 * `envServiceBodies` lists every body: `npm run schemas` emits them as JSON Schemas
 * (schemas/env-service.schema.json) and the Python client's pydantic models from those
 * (python/graph_planner_verl/service_types.py), so both sides of the bridge read one contract.
 */
import { z } from 'zod';
import { terminationReasonSchema } from './observation.js';
import { stepTokensSchema } from './runs.js';

/** POST /episodes */
export const createEpisodeBodySchema = z.object({
  /** The client's own key for this episode: asking again with it returns the same episode. */
  client_key: z.string().min(1).max(200),
  task_id: z.string().min(1),
  /** The GRPO group the episode belongs to (Verl's `uid`), kept in the episode id and events. */
  group_id: z.string().max(200).optional(),
  /** The Ray node the asking rollout worker runs on, so a cluster's front door can keep the episode on that node's sandbox host. */
  worker_node: z.string().max(200).optional(),
  /**
   * The episode's place in its group: how many episodes of the group came before this one. Set only by the front door of a
   * cluster's sandbox hosts when it passes the request on (a group may span hosts); a client
   * leaves it out and the service counts.
   */
  group_member: z.number().int().min(0).optional(),
  /**
   * The episode's id. Set only by the front door of a cluster's sandbox hosts when it passes the
   * request on: the host keeps the name the front door gave, so the episode has one id on both
   * (docs/sandbox-hosts.md). A client leaves it out and the service names the episode.
   */
  episode_id: z.string().min(1).max(300).optional(),
});
export type CreateEpisodeBody = z.infer<typeof createEpisodeBodySchema>;

export const createEpisodeReplySchema = z.object({
  episode_id: z.string(),
  /** The planner's system prompt: the first message of the conversation, before the observation. */
  system_prompt: z.string(),
  /** The observation after reset, as the model reads it. */
  observation: z.string(),
  max_steps: z.number().int(),
  /** The episode's deadline (epoch ms): past it the service closes the episode itself. */
  deadline: z.number(),
});
export type CreateEpisodeReply = z.infer<typeof createEpisodeReplySchema>;

/** POST /episodes/{id}/step */
export const stepBodySchema = z.object({
  /** 1 for the first reply; sending the last turn again returns its answer again. */
  turn: z.number().int().min(1),
  /** The model's raw reply text. */
  reply: z.string().max(1_000_000),
  /**
   * The policy's tokens behind the reply (the prompt it saw, the tokens it sampled, their
   * log-probabilities), recorded into the step as they come. The agent loop sends the first
   * turn's prompt whole and each later one as a change to the turn before (`prompt_delta`), so an
   * episode's bodies grow with its turns, not their square (docs/trainer-bridge.md#tokens).
   */
  tokens: stepTokensSchema.optional(),
});

/**
 * The most bytes a step's body may hold: a reply of a million characters with its tokens, or a
 * whole prompt of a few hundred thousand tokens. A client that sends more is answered 413; the
 * agent loop's bodies are far below it (a 16k-token prompt sent whole is about 100 KB).
 */
export const stepBodyMaxBytes = 16 * 1024 * 1024;
export type StepBody = z.infer<typeof stepBodySchema>;

export const stepReplySchema = z.object({
  turn: z.number().int(),
  observation: z.string(),
  reward: z.number(),
  done: z.boolean(),
  termination_reason: terminationReasonSchema.optional(),
  /** Set when the reply did not parse into an action: what was wrong, as the model is told. */
  protocol_error: z.string().optional(),
});
export type StepReply = z.infer<typeof stepReplySchema>;

/** POST /episodes/{id}/close: ends the episode (a limit's penalty when it was cut short). */
export const closeBodySchema = z.object({
  /** Why the client stops an episode that is not done; `max_steps` by default (its turn budget ran out). */
  reason: z.enum(['max_steps', 'interrupted']).default('max_steps'),
});
export type CloseBody = z.infer<typeof closeBodySchema>;

export const closeReplySchema = z.object({
  episode_id: z.string(),
  /** The episode's return: the sum of its rewards, the close's penalty included (its trajectory's end line's name). */
  total_reward: z.number(),
  resolved: z.boolean(),
  steps: z.number().int(),
  termination_reason: terminationReasonSchema,
});
export type CloseReply = z.infer<typeof closeReplySchema>;

/**
 * GET /episodes/{id}/policy, served only by a service started for `gp train --smoke`: the reply the
 * rule agent would give to the observation the episode waits on. The smoke run's scripted policy
 * tokenises it, so Verl's machinery runs on replies that make progress without a model server.
 */
export const policyReplySchema = z.object({ reply: z.string() });
export type PolicyReply = z.infer<typeof policyReplySchema>;

/** GET /health: alive, and how many episodes are open. */
export const healthReplySchema = z.object({ ok: z.literal(true), open: z.number().int().min(0) });
export type HealthReply = z.infer<typeof healthReplySchema>;

export const serviceErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
export type ServiceError = z.infer<typeof serviceErrorSchema>;

/** The 0600 file in the run directory that tells a client where the service is and its token. */
export const serviceFileSchema = z.object({ url: z.string(), token: z.string(), pid: z.number().int() });
export type ServiceFile = z.infer<typeof serviceFileSchema>;

/** Who writes a body: the client's are read as it may send them (defaults optional), the service's as it sends them. */
export type BodySender = 'client' | 'service';

/**
 * Every body of the service with its route and sender, by the name its JSON Schema definition and
 * its Python model carry. A body missing here is a body the Python client reads untyped, so a new
 * route adds its bodies here.
 */
export const envServiceBodies = {
  CreateEpisodeBody: { route: 'POST /episodes', sender: 'client', schema: createEpisodeBodySchema },
  CreateEpisodeReply: { route: 'POST /episodes', sender: 'service', schema: createEpisodeReplySchema },
  StepBody: { route: 'POST /episodes/{id}/step', sender: 'client', schema: stepBodySchema },
  StepReply: { route: 'POST /episodes/{id}/step', sender: 'service', schema: stepReplySchema },
  CloseBody: { route: 'POST /episodes/{id}/close', sender: 'client', schema: closeBodySchema },
  CloseReply: { route: 'POST /episodes/{id}/close', sender: 'service', schema: closeReplySchema },
  PolicyReply: { route: 'GET /episodes/{id}/policy', sender: 'service', schema: policyReplySchema },
  HealthReply: { route: 'GET /health', sender: 'service', schema: healthReplySchema },
  ErrorReply: { route: 'Any route, answered with a status other than 200', sender: 'service', schema: serviceErrorSchema },
  ServiceFile: { route: 'The service file, env_service.json in the run directory', sender: 'service', schema: serviceFileSchema },
} as const satisfies Record<string, { readonly route: string; readonly sender: BodySender; readonly schema: z.ZodType }>;
