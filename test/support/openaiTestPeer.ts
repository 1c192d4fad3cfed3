/**
 * TEST PEER — not a model. A scripted OpenAI-compatible HTTP server on 127.0.0.1 (random port)
 * that answers `POST /v1/chat/completions` with the next reply of a script the test wrote: a
 * content reply, tool calls, an HTTP error status (with a body and Retry-After), a malformed body,
 * each optionally after a delay (longer than a client's timeout, to test timeouts). It checks the
 * bearer token when one is configured (401 otherwise), validates every request body with the
 * engine's own `chatRequestSchema` (400 when it does not match), and records every request so a
 * test can assert what the client sent. It never generates anything itself.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatRequestSchema, type ChatRequest } from '../../server/src/protocol/modelApi.js';

/** One scripted answer. `delayMs` holds the answer back (the client may time out meanwhile). */
export type ScriptedChatReply = { delayMs?: number } & (
  | {
      kind: 'content';
      content: string;
      /** More choices, for `n` > 1. */ moreChoices?: string[];
      /** Why generation ended (default `stop`). */ finishReason?: string;
      /** The usage the answer reports (default 11 prompt and 7 completion tokens). */ usage?: { prompt_tokens: number; completion_tokens: number };
    }
  | { kind: 'tool-calls'; calls: Array<{ name: string; arguments: string }>; content?: string }
  | { kind: 'status'; status: number; body?: unknown; retryAfter?: string }
  | { kind: 'raw'; status?: number; body: string }
);

export interface RecordedRequest {
  method: string;
  path: string;
  /** The Authorization header as received, or undefined when none was sent. */
  authorization: string | undefined;
  /** The parsed JSON body (whatever it was). */
  body: unknown;
}

export interface RecordedChatRequest extends RecordedRequest {
  /** The body as a chat request, when it matched the schema. */
  chat: ChatRequest | undefined;
}

export interface OpenAiTestPeer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The base URL a chat client is given: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** Every request received, in order. */
  requests: RecordedChatRequest[];
  /** Appends replies to the script. */
  push(...replies: ScriptedChatReply[]): void;
  /** Forgets the script and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Helpers shared with the CGM test peer
// ---------------------------------------------------------------------------------------------

export async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function sendRaw(res: ServerResponse, status: number, body: string): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
}

/** Waits `ms`, or until the client hangs up (then resolves false). */
export function holdBack(res: ServerResponse, ms: number | undefined): Promise<boolean> {
  if (ms === undefined || ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    res.once('close', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

/** Whether a request lacks the configured key (an API answers 401 then); false when no key is configured. */
export function unauthorized(req: IncomingMessage, apiKey: string | undefined): boolean {
  return apiKey !== undefined && req.headers.authorization !== `Bearer ${apiKey}`;
}

export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => sendJson(res, 500, { error: { message: `test peer failed: ${String(error)}` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

// ---------------------------------------------------------------------------------------------
// The chat peer
// ---------------------------------------------------------------------------------------------

function completion(model: string, choices: Array<Record<string, unknown>>, usage = { prompt_tokens: 11, completion_tokens: 7 }): Record<string, unknown> {
  return {
    id: 'chatcmpl-test-peer',
    object: 'chat.completion',
    created: 0,
    model,
    choices,
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

async function answer(res: ServerResponse, reply: ScriptedChatReply, model: string): Promise<void> {
  if (!(await holdBack(res, reply.delayMs))) return;
  switch (reply.kind) {
    case 'content': {
      const contents = [reply.content, ...(reply.moreChoices ?? [])];
      const choices = contents.map((content, index) => ({ index, message: { role: 'assistant', content }, finish_reason: reply.finishReason ?? 'stop' }));
      return sendJson(res, 200, completion(model, choices, reply.usage));
    }
    case 'tool-calls': {
      const toolCalls = reply.calls.map((c, i) => ({ id: `call_${i}`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      const message = { role: 'assistant', content: reply.content ?? null, tool_calls: toolCalls };
      return sendJson(res, 200, completion(model, [{ index: 0, message, finish_reason: 'tool_calls' }]));
    }
    case 'status': {
      const headers: Record<string, string> = reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : {};
      if (typeof reply.body === 'string') {
        if (!res.destroyed) {
          res.writeHead(reply.status, { 'content-type': 'text/plain', ...headers });
          res.end(reply.body);
        }
        return;
      }
      return sendJson(res, reply.status, reply.body ?? { error: { message: `scripted HTTP ${reply.status}` } }, headers);
    }
    case 'raw':
      return sendRaw(res, reply.status ?? 200, reply.body);
  }
}

/** Starts the chat test peer with a script; `apiKey` makes it demand `Authorization: Bearer <apiKey>`. */
export async function startOpenAiTestPeer(options: { script?: ScriptedChatReply[]; apiKey?: string } = {}): Promise<OpenAiTestPeer> {
  const script = [...(options.script ?? [])];
  const requests: RecordedChatRequest[] = [];
  const { server, url } = await listen(async (req, res) => {
    const body = await readBody(req);
    const parsed = chatRequestSchema.safeParse(body);
    requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      body,
      chat: parsed.success ? parsed.data : undefined,
    });
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return sendJson(res, 404, { error: { message: `no route ${req.method ?? ''} ${req.url ?? ''}` } });
    if (unauthorized(req, options.apiKey)) return sendJson(res, 401, { error: { message: 'Incorrect API key provided' } });
    if (!parsed.success)
      return sendJson(res, 400, {
        error: { message: `invalid chat request: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` },
      });
    const reply = script.shift();
    if (reply === undefined) return sendJson(res, 500, { error: { message: 'test peer script exhausted' } });
    await answer(res, reply, parsed.data.model);
  });
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    push: (...replies) => script.push(...replies),
    reset: () => {
      script.length = 0;
      requests.length = 0;
    },
    close: () => closeServer(server),
  };
}
