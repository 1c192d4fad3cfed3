/**
 * JSON over HTTP to a model endpoint, with the one retry policy (util/retryPolicy.ts): each
 * attempt has its own time limit, combined with the caller's signal; network errors, timeouts,
 * HTTP 429 (after its Retry-After, capped) and 5xx are retried with exponential backoff and
 * jitter; other 4xx answers are final; a caller's abort stops at once. Failures are a
 * `ModelClientError` with a code and the attempts made. Headers (the API key) never appear in
 * error messages.
 */
import type { z } from 'zod';
import { errorBodySchema } from '../protocol/modelApi.js';
import { errorMessage } from '../util/errors.js';
import { ForeignHttpError } from '../util/httpError.js';
import { backoffCap, backoffDelay, retryAfterMs, waitToRetry, type RetryPolicy } from '../util/retryPolicy.js';

export const modelClientErrorCodes = ['timeout', 'http-4xx', 'http-5xx', 'rate-limited', 'network', 'bad-response', 'aborted'] as const;
export type ModelClientErrorCode = (typeof modelClientErrorCodes)[number];

/** A model endpoint's failure, in the one error family (util/httpError.ts) with the status of the last answer, when there was one. */
export class ModelClientError extends ForeignHttpError {
  override readonly name = 'ModelClientError';
  declare readonly code: ModelClientErrorCode;
  constructor(
    code: ModelClientErrorCode,
    message: string,
    /** Attempts made, the failing one included. */
    readonly attempts: number,
    status?: number,
    url?: string,
    bodyExcerpt?: string,
  ) {
    super(status, code, message, url, bodyExcerpt);
  }
}

export interface PostJsonOptions extends RetryPolicy {
  /** Time limit of one attempt, answer body included. */
  timeoutMs: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Names the endpoint in messages, e.g. `planner endpoint`. */
  what: string;
  /** Random source for jitter, in [0, 1); tests pin it. */
  random?: () => number;
}

export interface PostJsonResult {
  body: unknown;
  status: number;
  attempts: number;
  latencyMs: number;
}

type Attempt =
  | { kind: 'ok'; body: unknown; status: number }
  | { kind: 'retry'; code: ModelClientErrorCode; message: string; status?: number; waitMs?: number; bodyExcerpt?: string }
  | { kind: 'fail'; code: ModelClientErrorCode; message: string; status?: number; bodyExcerpt?: string };

function errorMessageOf(body: z.infer<typeof errorBodySchema>): string {
  const error: unknown = body['error'];
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
  const detail: unknown = body['detail'];
  if (detail !== undefined) return typeof detail === 'string' ? detail : JSON.stringify(detail);
  const message: unknown = body['message'];
  return typeof message === 'string' ? message : JSON.stringify(body);
}

/** The error text a server sent, from the usual JSON shapes or the raw body, kept short. */
export function serverErrorText(text: string): string {
  let message = text.trim();
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) message = errorMessageOf(parsed.data);
  } catch {
    // Not JSON: the raw text is the message.
  }
  return message.length > 300 ? `${message.slice(0, 297)}...` : message || '(empty body)';
}

async function attemptOnce(url: string, body: string, options: PostJsonOptions): Promise<Attempt> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const doFetch = options.fetch ?? fetch;
  try {
    const response = await doFetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...options.headers }, body, signal });
    const text = await response.text();
    const status = response.status;
    if (response.ok) {
      try {
        return { kind: 'ok', body: JSON.parse(text) as unknown, status };
      } catch {
        const bodyExcerpt = serverErrorText(text);
        return {
          kind: 'fail',
          code: 'bad-response',
          message: `${options.what} ${url} answered HTTP ${status} with a body that is not JSON: ${bodyExcerpt}`,
          status,
          bodyExcerpt,
        };
      }
    }
    const bodyExcerpt = serverErrorText(text);
    const message = `${options.what} ${url} answered HTTP ${status}: ${bodyExcerpt}`;
    if (status === 429) {
      const waitMs = retryAfterMs(response.headers.get('retry-after'));
      return waitMs === undefined
        ? { kind: 'retry', code: 'rate-limited', message, status, bodyExcerpt }
        : { kind: 'retry', code: 'rate-limited', message, status, waitMs, bodyExcerpt };
    }
    if (status >= 500) return { kind: 'retry', code: 'http-5xx', message, status, bodyExcerpt };
    return { kind: 'fail', code: 'http-4xx', message, status, bodyExcerpt };
  } catch (error) {
    if (options.signal?.aborted) return { kind: 'fail', code: 'aborted', message: `the request to ${options.what} ${url} was cancelled` };
    if (timeout.aborted) return { kind: 'retry', code: 'timeout', message: `${options.what} ${url} did not answer within ${options.timeoutMs} ms` };
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { kind: 'retry', code: 'network', message: `cannot reach ${options.what} ${url}: ${errorMessage(error)}${cause}` };
  }
}

/** POSTs `payload` as JSON and returns the parsed JSON answer, retrying as the policy says. */
export async function postJson(url: string, payload: unknown, options: PostJsonOptions): Promise<PostJsonResult> {
  const body = JSON.stringify(payload);
  const started = performance.now();
  const maxAttempts = options.retries + 1;
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw new ModelClientError('aborted', `the request to ${options.what} ${url} was cancelled`, attempt - 1, undefined, url);
    const outcome = await attemptOnce(url, body, options);
    if (outcome.kind === 'ok') return { body: outcome.body, status: outcome.status, attempts: attempt, latencyMs: performance.now() - started };
    if (outcome.kind === 'fail' || attempt >= maxAttempts) {
      const suffix = attempt > 1 ? ` (after ${attempt} attempts)` : '';
      throw new ModelClientError(outcome.code, `${outcome.message}${suffix}`, attempt, outcome.status, url, outcome.bodyExcerpt);
    }
    const waitMs = outcome.waitMs !== undefined ? Math.min(outcome.waitMs, backoffCap(options)) : backoffDelay(attempt - 1, options, options.random);
    if (!(await waitToRetry(waitMs, options.signal)))
      throw new ModelClientError('aborted', `the request to ${options.what} ${url} was cancelled while waiting to retry`, attempt, undefined, url);
  }
}
