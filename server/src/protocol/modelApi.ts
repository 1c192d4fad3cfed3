/**
 * The bodies the engine exchanges with model endpoints: the subset of OpenAI chat completions the
 * model agent and CGM chat mode use, and the CGM service's `/generate` request and response (spec
 * D.3). The clients in `server/src/agents/` validate every response with these; the test peers
 * validate every request with them. Responses are loose objects: servers add fields we ignore.
 */
import { z } from 'zod';

/** A tool the model may call; `parameters` is a JSON Schema object. */
export const chatToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()) }),
});
export type ChatTool = z.infer<typeof chatToolSchema>;

/** One tool call in an assistant message; `arguments` is a JSON string. */
export const chatToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ChatToolCall = z.infer<typeof chatToolCallSchema>;

export const chatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(chatToolCallSchema).optional() }),
  z.object({ role: z.literal('tool'), content: z.string(), tool_call_id: z.string() }),
]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/**
 * Structured output: the reply constrained to a JSON Schema. OpenAI, vLLM and SGLang take
 * `json_schema` with the schema under `json_schema.schema`; llama-cpp-python's server takes
 * `json_object` with the schema beside the type, and turns it into a grammar.
 */
export const responseFormatSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({ name: z.string().min(1), schema: z.record(z.string(), z.unknown()), strict: z.boolean().optional() }),
  }),
  z.object({ type: z.literal('json_object'), schema: z.record(z.string(), z.unknown()).optional() }),
]);
export type ResponseFormat = z.infer<typeof responseFormatSchema>;

/** `POST <base>/chat/completions`: what the engine sends. */
export const chatRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: z.number().int().min(1).optional(),
  n: z.number().int().min(1).optional(),
  stop: z.array(z.string()).optional(),
  tools: z.array(chatToolSchema).optional(),
  tool_choice: z.enum(['auto', 'required', 'none']).optional(),
  response_format: responseFormatSchema.optional(),
  stream: z.literal(false).optional(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

export const chatUsageSchema = z.looseObject({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0).optional(),
});
export type ChatUsage = z.infer<typeof chatUsageSchema>;

/** The answer. Some servers omit `type` and `id` on tool calls, or send a null content. */
export const chatResponseSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        index: z.number().int().optional(),
        message: z.looseObject({
          role: z.string().optional(),
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.looseObject({
                id: z.string().optional(),
                type: z.string().optional(),
                function: z.looseObject({ name: z.string(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish() }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: chatUsageSchema.nullish(),
});
export type ChatResponse = z.infer<typeof chatResponseSchema>;

/** An error body: OpenAI's `{error: {message}}`, FastAPI's `{detail}`, or a bare `{message}`. */
export const errorBodySchema = z.union([
  z.looseObject({ error: z.union([z.looseObject({ message: z.string() }), z.string()]) }),
  z.looseObject({ detail: z.unknown() }),
  z.looseObject({ message: z.string() }),
]);

/** One focus window as a CGM plan target. */
export const cgmPlanTargetSchema = z.object({
  path: z.string().min(1),
  start: z.number().int().min(1),
  end: z.number().int().min(1),
  id: z.string(),
  confidence: z.number().min(0).max(1),
  why: z.string(),
});

/** `POST <cgm endpoint>` (the CGM service's `/generate`): what the engine sends. */
export const cgmGenerateRequestSchema = z.object({
  issue: z.object({ title: z.string(), body: z.string() }),
  plan: z.object({
    targets: z.array(cgmPlanTargetSchema),
    budget: z.record(z.string(), z.unknown()),
    priority_tests: z.array(z.string()),
  }),
  plan_text: z.string(),
  /** The focus windows' text, one chunk per window. */
  subgraph: z.array(z.object({ path: z.string(), start: z.number().int(), end: z.number().int(), text: z.string() })),
  /** The same windows as line lists. */
  snippets: z.array(z.object({ path: z.string(), start: z.number().int(), end: z.number().int(), snippet: z.array(z.string()) })),
  constraints: z.looseObject({ max_edits: z.number().int().min(1), one_file_per_patch: z.boolean() }),
  model_config: z.object({ model: z.string(), temperature: z.number().optional(), max_tokens: z.number().int().optional() }).optional(),
});
export type CgmGenerateRequest = z.infer<typeof cgmGenerateRequestSchema>;

/** The service's answer. Edits are read leniently (aliases, defaults) by `server/src/agents/cgmReply.ts`. */
export const cgmGenerateResponseSchema = z.looseObject({
  patch: z.looseObject({ edits: z.array(z.unknown()), summary: z.string().nullish() }),
  summary: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
export type CgmGenerateResponse = z.infer<typeof cgmGenerateResponseSchema>;
