/**
 * Requests from the front door to one sandbox host (docs/sandbox-hosts.md), as JSON through the
 * one client transport (util/httpClient.ts) with the host's bearer token. Two kinds of failure are
 * kept apart, because they mean different things for an episode: the host answered with an error
 * (`HostHttpError`, passed on to whoever asked, with its status and code), or no answer came
 * because the host is gone (`HostLostError`: refused, reset or cut connections, or the request
 * aborted because the pool saw the host die), which makes its episodes infrastructure failures.
 */
import type { ZodType } from 'zod';
import { serviceErrorSchema } from '../protocol/envService.js';
import { errorMessage } from '../util/errors.js';
import { httpCall, HttpTransportError, type HttpAnswer } from '../util/httpClient.js';
import { HttpError } from '../util/httpError.js';

/** A host's error answer, in the one error shape of our services (jsonHttp.ts), so the front door can pass it on as it came. */
export class HostHttpError extends HttpError {
  constructor(status: number, code: string, message: string) {
    super(status, code, message);
    this.name = 'HostHttpError';
  }
}

/** No answer came from a host: in the one error family (util/httpError.ts), with no status. */
export class HostLostError extends HttpError {
  constructor(message: string) {
    super(undefined, 'host-lost', message);
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

  async call<T>(call: HostCall<T>): Promise<T> {
    const early = abortReason(call.signal);
    if (early !== undefined) throw new HostLostError(`${this.name}: ${early}`);
    let answer: HttpAnswer;
    try {
      answer = await httpCall({
        method: call.method,
        url: new URL(call.path, this.url),
        token: this.token,
        body: call.body,
        timeoutMs: call.timeoutMs,
        signal: call.signal,
        maxBytes: maxReplyBytes,
      });
    } catch (error) {
      if (error instanceof HttpTransportError && error.code === 'answer-cut') throw new HostLostError(`${this.name}: the answer was cut (${error.message})`);
      throw new HostLostError(`${this.name}: ${abortReason(call.signal) ?? errorMessage(error)}`);
    }
    const { status } = answer;
    let value: unknown;
    try {
      value = JSON.parse(answer.text);
    } catch {
      throw new HostHttpError(status, 'not-json', `${this.name} answered ${call.method} ${call.path} with ${status} and no JSON`);
    }
    if (status < 200 || status >= 300) {
      const error = serviceErrorSchema.safeParse(value);
      throw new HostHttpError(
        status,
        error.success ? error.data.error.code : 'host-error',
        error.success ? error.data.error.message : `${this.name} answered ${status}`,
      );
    }
    const parsed = call.schema.safeParse(value);
    if (!parsed.success)
      throw new HostHttpError(
        502,
        'bad-host-reply',
        `${this.name} answered ${call.method} ${call.path} with a body that does not match its contract: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
      );
    return parsed.data;
  }
}

/** Why `signal` aborted, or undefined while it has not. */
function abortReason(signal: AbortSignal | undefined): string | undefined {
  if (signal?.aborted !== true) return undefined;
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'the request was aborted';
}
