/**
 * A client for OpenAI-compatible chat completions (vLLM, SGLang, TGI, llama.cpp, hosted APIs):
 * `POST <baseUrl>/chat/completions`, the answer validated with `chatResponseSchema`, retries as
 * `retry.ts` describes. The API key is passed in by the caller (read from the environment variable
 * the config names) and only ever goes into the Authorization header.
 */
import { chatResponseSchema, type ChatMessage, type ChatRequest, type ChatTool, type ChatUsage, type ResponseFormat } from '../protocol/modelApi.js';
import { ModelClientError, postJson } from './retry.js';

export interface ChatClientOptions {
  /** Base URL including the API prefix, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <key>` when given. */
  apiKey?: string;
  temperature: number;
  topP: number;
  maxTokens: number;
  /**
   * Stop strings. Servers drop the matched string from the reply, so `</function>` here would cut
   * the terminator the reply text format requires.
   */
  stop?: string[];
  /**
   * Sampling fields beyond OpenAI's that this server takes (llama.cpp's `repeat_penalty`, `top_k`),
   * sent as they are. Only for a server known to accept them: OpenAI refuses unknown fields.
   */
  extraBody?: Record<string, number>;
  /** Time limit of one attempt. */
  timeoutMs: number;
  /** Attempts after the first (timeouts, network errors, 429, 5xx). */
  retries: number;
  /** First backoff between attempts; it doubles with each retry. */
  backoffMs: number;
  /** Longest backoff, and the cap on a server's Retry-After (default 30 s). */
  maxBackoffMs?: number;
  fetch?: typeof fetch;
}

export interface ToolCall {
  /** The server's id for the call (generated when the server sent none). */
  id: string;
  name: string;
  /** The arguments as the server sent them: a JSON string. */
  arguments: string;
}

export interface ChatChoice {
  content: string;
  toolCalls: ToolCall[];
  finishReason?: string;
}

export interface ChatCompletion extends ChatChoice {
  /** Every choice (more than one when `n` > 1); the fields above are the first's. */
  choices: ChatChoice[];
  usage?: ChatUsage;
  latencyMs: number;
  attempts: number;
}

export interface CompleteOptions {
  tools?: ChatTool[];
  /** Completions to sample (OpenAI's `n`). */
  n?: number;
  /** Stop strings of this call, added to the client's own. */
  stop?: readonly string[];
  /** Constrain the reply to a JSON Schema (structured output). */
  responseFormat?: ResponseFormat;
  signal?: AbortSignal;
}

export interface ChatClient {
  readonly model: string;
  complete(messages: readonly ChatMessage[], options?: CompleteOptions): Promise<ChatCompletion>;
}

function endpointUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

export function createChatClient(options: ChatClientOptions): ChatClient {
  let generatedIds = 0;
  const url = endpointUrl(options.baseUrl);
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  return {
    model: options.model,
    async complete(messages, call = {}) {
      const stop = [...new Set([...(options.stop ?? []), ...(call.stop ?? [])])];
      const request: ChatRequest = {
        ...options.extraBody,
        model: options.model,
        messages: [...messages],
        temperature: options.temperature,
        top_p: options.topP,
        max_tokens: options.maxTokens,
        ...(call.n !== undefined && call.n > 1 ? { n: call.n } : {}),
        ...(stop.length > 0 ? { stop } : {}),
        ...(call.tools && call.tools.length > 0 ? { tools: call.tools, tool_choice: 'auto' as const } : {}),
        ...(call.responseFormat ? { response_format: call.responseFormat } : {}),
      };
      const answer = await postJson(url, request, {
        what: 'chat endpoint',
        headers,
        timeoutMs: options.timeoutMs,
        retries: options.retries,
        backoffMs: options.backoffMs,
        ...(options.maxBackoffMs !== undefined ? { maxBackoffMs: options.maxBackoffMs } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      const parsed = chatResponseSchema.safeParse(answer.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected shape';
        throw new ModelClientError(
          'bad-response',
          `chat endpoint ${url} answered with a body that is not a chat completion (${where})`,
          answer.attempts,
          answer.status,
          url,
        );
      }
      const choices: ChatChoice[] = parsed.data.choices.map((choice) => ({
        content: choice.message.content ?? '',
        toolCalls: (choice.message.tool_calls ?? []).map((tc) => ({
          id: tc.id ?? `call_${++generatedIds}`,
          name: tc.function.name,
          arguments: typeof tc.function.arguments === 'string' ? tc.function.arguments : JSON.stringify(tc.function.arguments ?? {}),
        })),
        ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
      }));
      // The schema requires at least one choice.
      const first = choices[0] as ChatChoice;
      return {
        ...first,
        choices,
        ...(parsed.data.usage ? { usage: parsed.data.usage } : {}),
        latencyMs: answer.latencyMs,
        attempts: answer.attempts,
      };
    },
  };
}
