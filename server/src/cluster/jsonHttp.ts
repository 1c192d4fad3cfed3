/**
 * Our JSON-over-HTTP services (the environment service, a sandbox host, the hosts' registry) and
 * their clients share one error shape: an `HttpError` with its status, a code and a message, which
 * the servers answer as `{ error: { code, message } }` (protocol/envService.ts `serviceErrorSchema`)
 * and the host client turns back into one (`HostHttpError`). Here too: listening and the URL a
 * client can reach, a bearer token compared in constant time, a body read with a size cap and
 * checked with its zod schema, and a JSON answer. One copy, so the three servers refuse, cap and
 * answer alike; the retry policy of their clients is util/retryPolicy.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { ZodType } from 'zod';
import type { ServiceError } from '../protocol/envService.js';
import { errorMessage } from '../util/errors.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The status and body a server answers a failed request with: an `HttpError`'s own, anything else a 500 `internal`. */
export function errorReply(error: unknown): { status: number; body: ServiceError } {
  const known = error instanceof HttpError;
  return { status: known ? error.status : 500, body: { error: { code: known ? error.code : 'internal', message: errorMessage(error) } } };
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

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
export function bearerMatches(req: IncomingMessage, token: string): boolean {
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
