/**
 * The server side of our JSON-over-HTTP services (the environment service, a sandbox host, the
 * hosts' registry): an error with its status and code, a bearer token compared in constant time,
 * a body read with a size cap and checked with its zod schema, and a JSON answer. One copy, so the
 * three servers refuse, cap and answer alike.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZodType } from 'zod';
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
