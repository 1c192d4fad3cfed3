/**
 * The patch model (CGM) behind the environment's `PatchModel` interface, two ways:
 * - `createCgmHttpModel`: the CGM service's own protocol (docs/original-system.md#d3-cgm-formats), `POST <endpoint>` (e.g.
 *   `http://127.0.0.1:30001/generate`) with the issue, plan targets, plan text, focus windows and
 *   constraints; the answer's `patch.edits` are the candidate.
 * - `createCgmChatModel`: any OpenAI-compatible chat endpoint serving a CGM checkpoint, with the
 *   CGM prompts; each returned choice is read leniently (`cgmReply.ts`) into a candidate.
 * Failures throw; the environment turns them into a step error the planner sees.
 */
import type { PatchRequest, PatchModel } from '../env/index.js';
import type { PatchCandidate } from '../protocol/actions.js';
import { cgmGenerateResponseSchema, type CgmGenerateRequest } from '../protocol/modelApi.js';
import { candidateFromPayload, parseCgmReply } from './cgmReply.js';
import type { ResponseFormat } from '../protocol/modelApi.js';
import type { StructuredOutput } from './jsonReply.js';
import type { ChatClient } from './openaiClient.js';
import { cgmSystemPrompt, cgmUserPrompt } from './prompts.js';
import { ModelClientError, postJson } from './retry.js';

export interface CgmHttpOptions {
  /** The full URL of the generate route, e.g. `http://127.0.0.1:30001/generate`. */
  endpoint: string;
  apiKey?: string;
  /** Sent as `model_config` when given. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
  timeoutMs: number;
  retries: number;
  backoffMs?: number;
  fetch?: typeof fetch;
}

/** The CGM service's request body for a patch request. */
export function cgmGenerateBody(request: PatchRequest, modelConfig?: { model: string; temperature?: number; maxTokens?: number }): CgmGenerateRequest {
  return {
    issue: { title: request.issue.title, body: request.issue.body },
    plan: {
      targets: request.focus.map((f) => ({ path: f.node.path, start: f.start, end: f.end, id: f.node.id, confidence: 1, why: 'planner-focus' })),
      budget: {},
      priority_tests: [],
    },
    plan_text: request.plan,
    subgraph: request.focus.map((f) => ({ path: f.node.path, start: f.start, end: f.end, text: f.text })),
    snippets: request.focus.map((f) => ({ path: f.node.path, start: f.start, end: f.end, snippet: f.text.split('\n') })),
    constraints: { max_edits: request.constraints.max_edits, one_file_per_patch: request.constraints.one_file },
    ...(modelConfig
      ? {
          model_config: {
            model: modelConfig.model,
            ...(modelConfig.temperature !== undefined ? { temperature: modelConfig.temperature } : {}),
            ...(modelConfig.maxTokens !== undefined ? { max_tokens: modelConfig.maxTokens } : {}),
          },
        }
      : {}),
  };
}

export function createCgmHttpModel(options: CgmHttpOptions): PatchModel {
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const modelConfig = options.model
    ? {
        model: options.model,
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      }
    : undefined;
  return {
    name: `cgm ${options.endpoint}`,
    async generate(request, signal) {
      const answer = await postJson(options.endpoint, cgmGenerateBody(request, modelConfig), {
        what: 'CGM endpoint',
        headers,
        signal,
        timeoutMs: options.timeoutMs,
        retries: options.retries,
        backoffMs: options.backoffMs ?? 500,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      const parsed = cgmGenerateResponseSchema.safeParse(answer.body);
      if (!parsed.success) {
        throw new ModelClientError(
          'bad-response',
          `CGM endpoint ${options.endpoint} answered without a patch.edits list`,
          answer.attempts,
          answer.status,
          options.endpoint,
        );
      }
      const one = candidateFromPayload(parsed.data, { maxEdits: request.constraints.max_edits, fallbackSummary: request.plan, defaultSummary: 'codefuse-cgm' });
      if (!one.ok)
        throw new ModelClientError(
          'bad-response',
          `CGM endpoint ${options.endpoint} produced no usable edits: ${one.reason}`,
          answer.attempts,
          answer.status,
          options.endpoint,
        );
      return [one.candidate];
    },
  };
}

export interface CgmChatOptions {
  /** A chat client pointed at the endpoint serving CGM (its sampling settings are CGM's). */
  client: ChatClient;
  /** Candidates to sample per repair (OpenAI's `n`; default 1). */
  n?: number;
  /** Constrain each reply to `cgmPatchSchema` (structured output), in the server's dialect. */
  structuredOutput?: StructuredOutput;
}

/**
 * The JSON Schema of a CGM reply as the CGM prompt asks for it: a `patch` with an `edits` array of
 * line-range replacements. A server that does structured output holds a small model to it.
 */
export const cgmPatchSchema: Record<string, unknown> = {
  type: 'object',
  properties: {
    patch: {
      type: 'object',
      properties: {
        edits: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: {
              path: { type: 'string' },
              start: { type: 'integer', minimum: 1 },
              end: { type: 'integer', minimum: 1 },
              new_text: { type: 'string' },
            },
            required: ['path', 'start', 'end', 'new_text'],
            additionalProperties: false,
          },
        },
        summary: { type: 'string' },
      },
      required: ['edits'],
      additionalProperties: false,
    },
  },
  required: ['patch'],
  additionalProperties: false,
};

function cgmResponseFormat(dialect: StructuredOutput): ResponseFormat {
  return dialect === 'json_schema'
    ? { type: 'json_schema', json_schema: { name: 'cgm_patch', schema: cgmPatchSchema, strict: true } }
    : { type: 'json_object', schema: cgmPatchSchema };
}

export function createCgmChatModel(options: CgmChatOptions): PatchModel {
  return {
    name: `cgm chat ${options.client.model}`,
    async generate(request, signal) {
      const messages = [
        { role: 'system' as const, content: cgmSystemPrompt },
        { role: 'user' as const, content: cgmUserPrompt(request) },
      ];
      const completion = await options.client.complete(messages, {
        signal,
        ...(options.n !== undefined ? { n: options.n } : {}),
        ...(options.structuredOutput === undefined ? {} : { responseFormat: cgmResponseFormat(options.structuredOutput) }),
      });
      const candidates: PatchCandidate[] = [];
      const reasons: string[] = [];
      for (const choice of completion.choices) {
        const parsed = parseCgmReply(choice.content, { maxEdits: request.constraints.max_edits, fallbackSummary: request.plan, defaultSummary: 'cgm-chat' });
        if (parsed.ok) candidates.push(...parsed.candidates);
        else reasons.push(parsed.reason);
      }
      if (candidates.length === 0) {
        throw new Error(`CGM (${options.client.model}) replied without a usable patch: ${reasons[0] ?? 'no reply'}`);
      }
      return candidates;
    },
  };
}
