/**
 * Requests from the front door to one sandbox host (docs/sandbox-hosts.md), as JSON over
 * `node:http` with the host's bearer token. Two kinds of failure are kept apart, because they mean
 * different things for an episode: the host answered with an error (`HostHttpError`, passed on to
 * whoever asked, with its status and code), or no answer came because the host is gone
 * (`HostLostError`: refused, reset or cut connections, or the request aborted because the pool
 * saw the host die), which makes its episodes infrastructure failures.
 */
import { request } from 'node:http';
import type { ZodType } from 'zod';
import { serviceErrorSchema } from '../protocol/envService.js';
import { errorMessage } from '../util/errors.js';
import { HttpError } from './jsonHttp.js';

/** A host's error answer, in the one error shape of our services (jsonHttp.ts), so the front door can pass it on as it came. */
export class HostHttpError extends HttpError {
  constructor(status: number, code: string, message: string) {
    super(status, code, message);
    this.name = 'HostHttpError';
  }
}

export class HostLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostLostError';
  }
}

/** An answer larger than this is refused: an episode's files are a few megabytes. */
const maxReplyBytes = 512 * 1024 * 1024;

export interface HostCall<T> {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  readonly schema: ZodType<T>;
  /** No answer within this is a lost host; none for calls that run a whole step or episode. */
  readonly timeoutMs?: number;
  /** Aborted when the pool learns the host is gone, or the caller gives up. */
  readonly signal?: AbortSignal;
}

export class HostClient {
  constructor(
    readonly url: string,
    private readonly token: string,
    /** What the errors call the host: its id and node. */
    private readonly name: string,
  ) {}

  call<T>(call: HostCall<T>): Promise<T> {
    const target = new URL(call.path, this.url);
    const text = call.body === undefined ? undefined : JSON.stringify(call.body);
    return new Promise<T>((resolve, reject) => {
      if (call.signal?.aborted === true) return reject(new HostLostError(`${this.name}: ${abortReason(call.signal)}`));
      const req = request(
        target,
        {
          method: call.method,
          headers: { authorization: `Bearer ${this.token}`, ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }) },
          ...(call.signal === undefined ? {} : { signal: call.signal }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxReplyBytes) req.destroy(new Error(`the answer passed ${maxReplyBytes} bytes`));
            else chunks.push(chunk);
          });
          res.on('error', (error) => reject(new HostLostError(`${this.name}: the answer was cut (${errorMessage(error)})`)));
          res.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let value: unknown;
            try {
              value = JSON.parse(raw);
            } catch {
              return reject(new HostHttpError(res.statusCode ?? 0, 'not-json', `${this.name} answered ${call.method} ${call.path} with ${res.statusCode ?? 0} and no JSON`));
            }
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              const error = serviceErrorSchema.safeParse(value);
              return reject(new HostHttpError(status, error.success ? error.data.error.code : 'host-error', error.success ? error.data.error.message : `${this.name} answered ${status}`));
            }
            const parsed = call.schema.safeParse(value);
            if (!parsed.success) return reject(new HostHttpError(502, 'bad-host-reply', `${this.name} answered ${call.method} ${call.path} with a body that does not match its contract: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`));
            resolve(parsed.data);
          });
        },
      );
      if (call.timeoutMs !== undefined) req.setTimeout(call.timeoutMs, () => req.destroy(new Error(`no answer in ${call.timeoutMs} ms`)));
      req.on('error', (error) => reject(new HostLostError(`${this.name}: ${call.signal?.aborted === true ? abortReason(call.signal) : errorMessage(error)}`)));
      req.end(text);
    });
  }
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'the request was aborted';
}
