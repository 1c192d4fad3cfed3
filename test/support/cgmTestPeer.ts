/**
 * TEST PEER — not a model. A scripted stand-in for the CGM service (docs/original-system.md#d3-cgm-formats) on 127.0.0.1
 * (random port): `GET /healthz` answers `{"ok": true}`; `POST /generate` validates the body with
 * the engine's own `cgmGenerateRequestSchema` and answers as the real service does — 400 when the
 * body is invalid or `plan.targets` is empty, 502 "CGM produced no edits" for an empty patch —
 * otherwise with the next reply of the test's script. It checks the bearer token when one is
 * configured and records every request. It never generates a patch itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cgmGenerateRequestSchema, type CgmGenerateRequest } from '../../server/src/protocol/modelApi.js';
import { closeServer, holdBack, listen, readBody, sendJson, sendRaw, unauthorized, type RecordedRequest } from './openaiTestPeer.js';

export type ScriptedCgmReply = { delayMs?: number } & (
  | { kind: 'patch'; edits: unknown[]; summary?: string }
  | { kind: 'status'; status: number; body?: unknown; retryAfter?: string }
  /** Any JSON body with status 200 (or the one given), e.g. one without `patch`. */
  | { kind: 'json'; body: unknown; status?: number }
  | { kind: 'raw'; body: string; status?: number }
);

export interface RecordedCgmRequest extends RecordedRequest {
  /** The body as a generate request, when it matched the schema. */
  generate: CgmGenerateRequest | undefined;
}

export interface CgmTestPeer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The generate route: `http://127.0.0.1:<port>/generate`. */
  endpoint: string;
  requests: RecordedCgmRequest[];
  push(...replies: ScriptedCgmReply[]): void;
  /** Forgets the script and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

async function answer(res: ServerResponse, reply: ScriptedCgmReply, request: CgmGenerateRequest): Promise<void> {
  if (!(await holdBack(res, reply.delayMs))) return;
  switch (reply.kind) {
    case 'patch':
      if (reply.edits.length === 0) return sendJson(res, 502, { detail: 'CGM produced no edits' });
      return sendJson(res, 200, {
        patch: { edits: reply.edits, ...(reply.summary !== undefined ? { summary: reply.summary } : {}) },
        ...(reply.summary !== undefined ? { summary: reply.summary } : {}),
        metadata: { constraints: request.constraints },
      });
    case 'status':
      return sendJson(
        res,
        reply.status,
        reply.body ?? { detail: `scripted HTTP ${reply.status}` },
        reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : {},
      );
    case 'json':
      return sendJson(res, reply.status ?? 200, reply.body);
    case 'raw':
      return sendRaw(res, reply.status ?? 200, reply.body);
  }
}

export async function startCgmTestPeer(options: { script?: ScriptedCgmReply[]; apiKey?: string } = {}): Promise<CgmTestPeer> {
  const script = [...(options.script ?? [])];
  const requests: RecordedCgmRequest[] = [];
  const { server, url } = await listen(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/healthz') return sendJson(res, 200, { ok: true });
    const body = await readBody(req);
    const parsed = cgmGenerateRequestSchema.safeParse(body);
    requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      body,
      generate: parsed.success ? parsed.data : undefined,
    });
    if (req.method !== 'POST' || req.url !== '/generate') return sendJson(res, 404, { detail: 'Not Found' });
    if (unauthorized(req, options.apiKey)) return sendJson(res, 401, { detail: 'invalid token' });
    if (!parsed.success) return sendJson(res, 400, { detail: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
    if (parsed.data.plan.targets.length === 0) return sendJson(res, 400, { detail: 'plan.targets must not be empty' });
    const reply = script.shift();
    if (reply === undefined) return sendJson(res, 500, { detail: 'test peer script exhausted' });
    await answer(res, reply, parsed.data);
  });
  return {
    url,
    endpoint: `${url}/generate`,
    requests,
    push: (...replies) => script.push(...replies),
    reset: () => {
      script.length = 0;
      requests.length = 0;
    },
    close: () => closeServer(server),
  };
}
