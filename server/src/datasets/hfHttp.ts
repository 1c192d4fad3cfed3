/**
 * HTTP to the Hugging Face hub, shared by listing (`hfHub.ts`) and downloading (`hfDownload.ts`):
 * redirects followed by hand (the token is never sent to another host), retries with backoff,
 * and every failure mapped to a `HubError` whose message names the dataset and says what to do.
 */
import { ForeignHttpError } from '../util/httpError.js';
import { backoffDelay, waitToRetry } from '../util/retryPolicy.js';

export const hubErrorCodes = ['unauthorized', 'forbidden', 'not-found', 'network', 'bad-response', 'size-mismatch', 'aborted'] as const;
export type HubErrorCode = (typeof hubErrorCodes)[number];

/**
 * A URL fit for messages and logs: CDN links carry signatures in their query, which are short-lived
 * credentials, so only the viewer's own parameters are kept.
 */
export function shown(url: string): string {
  try {
    const parsed = new URL(url);
    for (const name of [...parsed.searchParams.keys()]) if (!['dataset', 'config', 'split'].includes(name)) parsed.searchParams.delete(name);
    return parsed.href;
  } catch {
    return url;
  }
}

/** A failed call to the hub, with a message that says what to do, in the one error family (util/httpError.ts). */
export class HubError extends ForeignHttpError {
  override readonly name = 'HubError';
  /** The URL of the request that failed, without signatures (see `shown`). */
  declare readonly url: string;
  declare readonly code: HubErrorCode;
  constructor(code: HubErrorCode, message: string, url: string, status?: number) {
    super(status, code, message, shown(url));
  }

  /** Whether trying again could succeed: a network failure, a 5xx or a 429. */
  get transient(): boolean {
    if (this.code === 'network') return true;
    return this.code === 'bad-response' && this.status !== undefined && (this.status >= 500 || this.status === 429);
  }
}

/** What a request was for, so that an error can name the dataset and the file. */
export interface RequestContext {
  readonly dataset: string;
  readonly config?: string;
  /** `config/split/filename`, for file downloads. */
  readonly file?: string;
}

export interface HubFetchOptions {
  readonly method?: 'GET' | 'HEAD';
  readonly token?: string | undefined;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal | undefined;
}

export interface HubResponse {
  readonly response: Response;
  /** The URL that gave `response`, after redirects. */
  readonly url: string;
  /** Every URL requested, the first and the final one included. */
  readonly chain: readonly string[];
  /** Whether the token went with the final request (it is dropped when a redirect leaves the first origin). */
  readonly tokenSent: boolean;
}

const maxRedirects = 10;

/** The token to send: an explicit option wins, then HF_TOKEN; an empty string means none. */
export function tokenFrom(explicit: string | undefined): string | undefined {
  const token = explicit ?? process.env['HF_TOKEN'];
  return token === undefined || token.trim() === '' ? undefined : token.trim();
}

/** The most telling part of a fetch failure: undici hides the socket error in `cause`. */
export function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code !== undefined ? `${cause.message} (${code})` : cause.message;
  }
  return error.message;
}

/** Maps an exception from fetch or from reading a body to a `HubError`. */
export function networkError(error: unknown, url: string, signal: AbortSignal | undefined): HubError {
  if (error instanceof HubError) return error;
  if (signal?.aborted === true) return new HubError('aborted', `The request to ${shown(url)} was cancelled.`, url);
  return new HubError(
    'network',
    `Could not reach ${shown(url)}: ${describeCause(error)}. Check the network connection (and HF_ENDPOINT, if set), then try again.`,
    url,
  );
}

/**
 * Fetches `url`, following redirects by hand so that the Authorization header is dropped once a
 * redirect leaves the first origin: the hub sends file downloads to a CDN whose signed URLs need
 * no token, and huggingface_hub's own clients never forward it there either.
 */
export async function hubFetch(url: string, options: HubFetchOptions = {}): Promise<HubResponse> {
  const first = new URL(url);
  const chain: string[] = [];
  let current = first;
  let withToken = options.token !== undefined;
  for (let hop = 0; hop <= maxRedirects; hop++) {
    chain.push(current.href);
    const headers: Record<string, string> = { ...options.headers };
    if (withToken && options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
    let response: Response;
    try {
      const init: RequestInit = { method: options.method ?? 'GET', headers, redirect: 'manual' };
      if (options.signal !== undefined) init.signal = options.signal;
      response = await fetch(current, init);
    } catch (error) {
      throw networkError(error, current.href, options.signal);
    }
    const location = response.headers.get('location');
    if (![301, 302, 303, 307, 308].includes(response.status) || location === null) {
      return { response, url: current.href, chain, tokenSent: withToken };
    }
    await response.body?.cancel();
    current = new URL(location, current);
    if (current.origin !== first.origin) withToken = false;
  }
  throw new HubError('bad-response', `${url} redirected more than ${maxRedirects} times; the hub or a proxy in between is misconfigured.`, url);
}

function subject(context: RequestContext): string {
  const config = context.config !== undefined ? ` (config "${context.config}")` : '';
  return context.file !== undefined ? `file "${context.file}" of dataset "${context.dataset}"` : `dataset "${context.dataset}"${config}`;
}

/** The error for an HTTP answer that is not a success, with advice that fits the status. */
export function statusError(status: number, hub: HubResponse, context: RequestContext): HubError {
  const { url, tokenSent } = hub;
  const what = subject(context);
  const at = `HTTP ${status} from ${shown(url)}`;
  if ((status === 401 || status === 403) && !tokenSent && hub.chain.length > 1 && new URL(url).origin !== new URL(hub.chain[0] ?? url).origin) {
    return new HubError(
      status === 401 ? 'unauthorized' : 'forbidden',
      `The download link for ${what} was refused (${at}); such links expire, so list the files again and re-run.`,
      url,
      status,
    );
  }
  if (status === 401 && !tokenSent) {
    return new HubError(
      'unauthorized',
      `Hugging Face refused ${what} without a token (${at}): the dataset is gated or private. Set HF_TOKEN to a read token of an account that has access (for a gated dataset, accept its terms on its page first), then try again.`,
      url,
      status,
    );
  }
  if (status === 401) {
    return new HubError(
      'unauthorized',
      `Hugging Face refused the token for ${what} (${at}): the token in HF_TOKEN is invalid or expired. Create a read token at https://huggingface.co/settings/tokens and set HF_TOKEN to it.`,
      url,
      status,
    );
  }
  if (status === 403) {
    const advice = tokenSent
      ? 'the token was accepted but lacks access to this dataset. Request access on the dataset page (gated datasets) or use a token of an account that can read it.'
      : 'the dataset is gated or private. Set HF_TOKEN to a read token of an account that has access, then try again.';
    return new HubError('forbidden', `Hugging Face refused ${what} (${at}): ${advice}`, url, status);
  }
  if (status === 404) {
    const config = context.config !== undefined ? ' and the config name' : '';
    return new HubError(
      'not-found',
      `Hugging Face has no ${what} (${at}). Check the dataset id (owner/name, as on its huggingface.co page)${config}.`,
      url,
      status,
    );
  }
  return new HubError(
    'bad-response',
    `Hugging Face answered ${at} for ${what}.${status >= 500 ? ' The service may be down; try again later.' : ''}`,
    url,
    status,
  );
}

/** Runs `attempt` again after transient failures, with exponential backoff, until `retries` are spent. */
export async function withRetries<T>(attempt: () => Promise<T>, retries: number, backoffMs: number, signal?: AbortSignal): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof HubError) || !error.transient || tries >= retries) throw error;
      await backoff(tries, backoffMs, signal, error.url);
    }
  }
}

/** Waits before retry number `tries` (0-based) as the one retry policy says (util/retryPolicy.ts: doubled each time, capped at 30 s, with jitter). */
export async function backoff(tries: number, backoffMs: number, signal: AbortSignal | undefined, url: string): Promise<void> {
  if (!(await waitToRetry(backoffDelay(tries, { backoffMs }), signal))) throw new HubError('aborted', `The request to ${url} was cancelled.`, url);
}
