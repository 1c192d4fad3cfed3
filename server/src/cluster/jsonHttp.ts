/**
 * Our JSON-over-HTTP services (the environment service, a sandbox host, the hosts' registry) and
 * their clients share one error shape: an `HttpError` (util/httpError.ts) with its status, a code
 * and a message, which the servers answer as `{ error: { code, message } }` (protocol/envService.ts
 * `serviceErrorSchema`) and the host client turns back into one (`HostHttpError`). Here too:
 * listening and the URL a client can reach, one router that checks the bearer token (in constant
 * time) and answers a request no route takes in that shape, a body read with a size cap and
 * checked with its zod schema, and a JSON answer. One copy, so the three servers refuse, cap and
 * answer alike; the retry policy of their clients is util/retryPolicy.ts.
 *
 * The router is a dozen lines here rather than a library such as find-my-way: the three servers
 * have ten routes between them, each a few fixed segments and at most one parameter, so a scan
 * of the declared routes costs less than a radix tree's bookkeeping and adds no dependency.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { ZodType } from 'zod';
import type { ServiceError } from '../protocol/envService.js';
import { errorMessage } from '../util/errors.js';
import { ForeignHttpError, HttpError } from '../util/httpError.js';

export { HttpError };

/**
 * The status and body a server answers a failed request with: an `HttpError`'s own (a sandbox
 * host's `HostHttpError` is passed on as it came, so the front door's client sees one service),
 * anything else a 500 `internal`, a `ForeignHttpError` too (its status is another server's answer).
 */
function errorReply(error: unknown): { status: number; body: ServiceError } {
  if (error instanceof HttpError && !(error instanceof ForeignHttpError) && error.status !== undefined)
    return { status: error.status, body: { error: { code: error.code, message: error.message } } };
  return { status: 500, body: { error: { code: 'internal', message: errorMessage(error) } } };
}

/** Listens on `host:port` (0: any free port) and returns the URL a client can reach it at. */
export async function listenJson(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  // A wildcard address is where the server listens, not where a client can reach it: name the machine instead.
  const reachable = host === '0.0.0.0' || host === '::' ? hostname() : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${address.port}`;
}

/** A route: a method, a path whose `:name` segments are parameters (percent-decoded), and its answer. */
export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** The answer, sent as JSON with 200; a handler that sent its own (to act after it is sent) returns nothing. */
  readonly answer: (req: IncomingMessage, params: Readonly<Record<string, string>>, res: ServerResponse) => unknown;
}

export interface JsonRouterOptions {
  /** Tried in order; the first whose method and path match answers. */
  readonly routes: readonly Route[];
  readonly token: string;
  /** What a request without the token is told (401). */
  readonly unauthorised: string;
  /** The error for a request no route takes (each service says 404 or 405 as it always has). */
  readonly miss: (method: string, path: string) => Error;
  /** Called with a failed request's error and its status before the answer is sent (a header, a log line). */
  readonly failed?: (error: unknown, status: number, req: IncomingMessage, res: ServerResponse) => void;
}

/** A server's request handler: the token checked, the request routed, any failure answered in the one error shape. */
export function jsonRouter(options: JsonRouterOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const routes = options.routes.map((route) => ({ route, segments: route.path.split('/').filter(Boolean) }));
  return async (req, res) => {
    try {
      if (!bearerMatches(req, options.token)) throw new HttpError(401, 'unauthorised', options.unauthorised);
      const method = req.method ?? '?';
      const path = new URL(req.url ?? '/', 'http://service').pathname;
      const parts = path.split('/').filter(Boolean);
      for (const { route, segments } of routes) {
        const params = route.method === method ? matchPath(segments, parts) : undefined;
        if (params === undefined) continue;
        const value = await route.answer(req, params, res);
        if (!res.headersSent) send(res, 200, value);
        return;
      }
      throw options.miss(method, path);
    } catch (error) {
      const { status, body } = errorReply(error);
      options.failed?.(error, status, req, res);
      send(res, status, body);
    }
  };
}

/** The parameters of `parts` when they match `segments`; a malformed percent-encoding is the client's error, 400. */
function matchPath(segments: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length || segments.some((segment, i) => !segment.startsWith(':') && segment !== parts[i])) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of segments.entries()) {
    if (!segment.startsWith(':')) continue;
    const part = parts[i] ?? '';
    try {
      params[segment.slice(1)] = decodeURIComponent(part);
    } catch {
      throw new HttpError(
        400,
        'bad-path',
        `the ${segment.slice(1).replaceAll('_', ' ')} in the path is not valid percent-encoding (${part.slice(0, 80)}); encode it with encodeURIComponent`,
      );
    }
  }
  return params;
}

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
function bearerMatches(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The request's JSON body checked with `schema`; over `maxBytes` (declared or read) it is refused with 413. */
export async function readBody<T>(req: IncomingMessage, schema: ZodType<T>, maxBytes = 2 * 1024 * 1024): Promise<T> {
  // A declared length over the cap is refused before a byte of it is read.
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw new HttpError(413, 'body-too-large', `a request body may hold at most ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new HttpError(413, 'body-too-large', `a request body may hold at most ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch (error) {
    throw new HttpError(400, 'not-json', `the body is not JSON (${errorMessage(error)})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(400, 'invalid-body', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

export function send(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
