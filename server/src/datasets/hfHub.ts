/**
 * Lists the parquet files Hugging Face converted a dataset into, without Python
 * (integration-contracts §6). The dataset-viewer's `/parquet` endpoint gives urls and sizes in
 * one call; when it answers 404 or 5xx, or cannot be reached, the Hub API's `/api/datasets/<id>/parquet`
 * gives the urls, and a HEAD request per file gives its size. The HTTP helpers here (redirects
 * followed by hand, errors mapped to `HubError`) are shared with `hfDownload.ts`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

export interface HubOptions {
  /** Hub base URL; default process.env.HF_ENDPOINT ?? 'https://huggingface.co'. */
  readonly endpoint?: string;
  /** Dataset-viewer base URL; default 'https://datasets-server.huggingface.co'. */
  readonly datasetsServer?: string;
  /** Bearer token; default process.env.HF_TOKEN. Sent on every request when set; an empty string sends none. */
  readonly token?: string;
  readonly signal?: AbortSignal;
}

export interface ParquetFileRef {
  readonly dataset: string;
  readonly config: string;
  readonly split: string;
  readonly url: string;
  readonly filename: string;
  readonly size: number;
}

export interface ParquetListing {
  readonly files: ParquetFileRef[];
  /** True when the conversion covers only part of the data, or some of it is still pending or failed. */
  readonly partial: boolean;
  /** splits available per config */
  readonly splits: ReadonlyMap<string, string[]>;
}

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

/** A failed call to the hub, with a message that says what to do. */
export class HubError extends Error {
  override readonly name = 'HubError';
  /** The URL of the request that failed, without signatures (see `shown`). */
  readonly url: string;
  constructor(
    readonly code: HubErrorCode,
    message: string,
    url: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
  ) {
    super(message);
    this.url = shown(url);
  }

  /** Whether trying again could succeed: a network failure, a 5xx or a 429. */
  get transient(): boolean {
    if (this.code === 'network') return true;
    return this.code === 'bad-response' && this.status !== undefined && (this.status >= 500 || this.status === 429);
  }
}

// ---------------------------------------------------------------------------------------------
// Split fallbacks (seed-system-spec G.5)
// ---------------------------------------------------------------------------------------------

/** Spec G.5 fallbacks: requested validation|val|dev tries [requested, dev, validation, val, test]; test tries [test, validation]; anything else only itself. */
export function pickSplit(requested: string, available: readonly string[]): { split: string; fellBack: boolean } | undefined {
  const kind = requested.toLowerCase();
  const candidates = ['validation', 'val', 'dev'].includes(kind)
    ? [requested, 'dev', 'validation', 'val', 'test']
    : kind === 'test'
      ? [requested, 'validation']
      : [requested];
  const split = candidates.find((candidate) => available.includes(candidate));
  return split === undefined ? undefined : { split, fellBack: split !== requested };
}

// ---------------------------------------------------------------------------------------------
// HTTP shared with hfDownload.ts
// ---------------------------------------------------------------------------------------------

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
  return new HubError('network', `Could not reach ${shown(url)}: ${describeCause(error)}. Check the network connection (and HF_ENDPOINT, if set), then try again.`, url);
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
    return new HubError(status === 401 ? 'unauthorized' : 'forbidden', `The download link for ${what} was refused (${at}); such links expire, so list the files again and re-run.`, url, status);
  }
  if (status === 401 && !tokenSent) {
    return new HubError('unauthorized', `Hugging Face refused ${what} without a token (${at}): the dataset is gated or private. Set HF_TOKEN to a read token of an account that has access (for a gated dataset, accept its terms on its page first), then try again.`, url, status);
  }
  if (status === 401) {
    return new HubError('unauthorized', `Hugging Face refused the token for ${what} (${at}): the token in HF_TOKEN is invalid or expired. Create a read token at https://huggingface.co/settings/tokens and set HF_TOKEN to it.`, url, status);
  }
  if (status === 403) {
    const advice = tokenSent
      ? 'the token was accepted but lacks access to this dataset. Request access on the dataset page (gated datasets) or use a token of an account that can read it.'
      : 'the dataset is gated or private. Set HF_TOKEN to a read token of an account that has access, then try again.';
    return new HubError('forbidden', `Hugging Face refused ${what} (${at}): ${advice}`, url, status);
  }
  if (status === 404) {
    const config = context.config !== undefined ? ' and the config name' : '';
    return new HubError('not-found', `Hugging Face has no ${what} (${at}). Check the dataset id (owner/name, as on its huggingface.co page)${config}.`, url, status);
  }
  return new HubError('bad-response', `Hugging Face answered ${at} for ${what}.${status >= 500 ? ' The service may be down; try again later.' : ''}`, url, status);
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

/** Waits before retry number `tries` (0-based): `backoffMs` doubled each time, capped at 30 s, with jitter. */
export async function backoff(tries: number, backoffMs: number, signal: AbortSignal | undefined, url: string): Promise<void> {
  const ms = Math.min(30_000, backoffMs * 2 ** tries) * (0.75 + Math.random() / 2);
  try {
    await sleep(ms, undefined, signal === undefined ? {} : { signal });
  } catch {
    throw new HubError('aborted', `The request to ${url} was cancelled.`, url);
  }
}

// ---------------------------------------------------------------------------------------------
// Listing
// ---------------------------------------------------------------------------------------------

const viewerSchema = z.object({
  parquet_files: z.array(
    z.object({
      dataset: z.string(),
      config: z.string(),
      split: z.string(),
      url: z.string(),
      filename: z.string(),
      size: z.number().int().nonnegative(),
    }),
  ),
  pending: z.array(z.unknown()).default([]),
  failed: z.array(z.unknown()).default([]),
  partial: z.boolean().default(false),
});

const hubApiSchema = z.record(z.string(), z.record(z.string(), z.array(z.string())));

const datasetIdPattern = /^[\w.-]+(\/[\w.-]+)?$/;

interface ListContext {
  readonly dataset: string;
  readonly config: string | undefined;
  readonly endpoint: string;
  readonly datasetsServer: string;
  readonly token: string | undefined;
  readonly signal: AbortSignal | undefined;
}

const listRetries = 2;
const listBackoffMs = 500;

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

async function getJson(url: string, context: ListContext): Promise<{ ok: true; body: unknown } | { ok: false; error: HubError }> {
  const hub = await hubFetch(url, { token: context.token, headers: { accept: 'application/json' }, signal: context.signal });
  if (!hub.response.ok) {
    await hub.response.body?.cancel();
    return { ok: false, error: statusError(hub.response.status, hub, { dataset: context.dataset, ...(context.config !== undefined ? { config: context.config } : {}) }) };
  }
  try {
    return { ok: true, body: (await hub.response.json()) as unknown };
  } catch (error) {
    if (context.signal?.aborted === true) throw networkError(error, url, context.signal);
    return { ok: false, error: new HubError('bad-response', `${url} did not answer JSON for dataset "${context.dataset}"; check HF_ENDPOINT.`, url, hub.response.status) };
  }
}

function badShape(url: string, dataset: string, error: z.ZodError): HubError {
  const issue = error.issues[0];
  const where = issue !== undefined ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'unexpected shape';
  return new HubError('bad-response', `${url} answered an unexpected body for dataset "${dataset}" (${where}); the service's API may have changed.`, url);
}

function splitsOf(files: readonly ParquetFileRef[]): Map<string, string[]> {
  const splits = new Map<string, string[]>();
  for (const { config, split } of files) {
    const known = splits.get(config) ?? [];
    if (!known.includes(split)) known.push(split);
    splits.set(config, known);
  }
  return splits;
}

/** Asks the dataset-viewer; `undefined` means "try the Hub API instead" (404, 5xx, unreachable). */
async function listFromViewer(context: ListContext): Promise<ParquetListing | undefined> {
  const query = new URLSearchParams({ dataset: context.dataset });
  if (context.config !== undefined) query.set('config', context.config);
  const url = `${context.datasetsServer}/parquet?${query.toString()}`;
  let answer: Awaited<ReturnType<typeof getJson>>;
  try {
    answer = await getJson(url, context);
  } catch (error) {
    if (error instanceof HubError && error.code === 'network') return undefined;
    throw error;
  }
  if (!answer.ok) {
    if (answer.error.code === 'not-found' || answer.error.transient) return undefined;
    throw answer.error;
  }
  const parsed = viewerSchema.safeParse(answer.body);
  if (!parsed.success) throw badShape(url, context.dataset, parsed.error);
  const files = parsed.data.parquet_files.filter((file) => context.config === undefined || file.config === context.config);
  const partial = parsed.data.partial || parsed.data.pending.length > 0 || parsed.data.failed.length > 0;
  return { files, partial, splits: splitsOf(files) };
}

function lastSegment(url: string): string {
  const segments = new URL(url).pathname.split('/');
  return decodeURIComponent(segments[segments.length - 1] ?? '');
}

/** Size and name of one Hub API url, by a HEAD request that follows the redirects to the file. */
async function describeFile(url: string, config: string, split: string, context: ListContext): Promise<{ ref: ParquetFileRef; partial: boolean }> {
  return withRetries(
    async () => {
      const hub = await hubFetch(url, { method: 'HEAD', token: context.token, headers: { 'accept-encoding': 'identity' }, signal: context.signal });
      const file = `${config}/${split}/${lastSegment(url)}`;
      if (!hub.response.ok) throw statusError(hub.response.status, hub, { dataset: context.dataset, config, file });
      const size = Number(hub.response.headers.get('content-length') ?? Number.NaN);
      if (!Number.isSafeInteger(size) || size < 0) {
        throw new HubError('bad-response', `HEAD ${shown(hub.url)} gave no Content-Length for ${file} of dataset "${context.dataset}", so its size is unknown.`, hub.url, hub.response.status);
      }
      // The viewer names files `0000.parquet` while the Hub API names them `0.parquet`; the name at
      // the end of the redirects is the viewer's, so both listings put a file at the same path.
      const named = [...hub.chain].reverse().find((link) => new URL(link).pathname.endsWith('.parquet')) ?? url;
      const partial = hub.chain.some((link) => new URL(link).pathname.split('/').some((segment) => segment.startsWith('partial-')));
      return { ref: { dataset: context.dataset, config, split, url, filename: lastSegment(named), size }, partial };
    },
    listRetries,
    listBackoffMs,
    context.signal,
  );
}

async function listFromHubApi(context: ListContext): Promise<ParquetListing> {
  const id = context.dataset.split('/').map(encodeURIComponent).join('/');
  const url = `${context.endpoint}/api/datasets/${id}/parquet`;
  const answer = await withRetries(
    async () => {
      const result = await getJson(url, context);
      if (!result.ok) throw result.error;
      return result.body;
    },
    listRetries,
    listBackoffMs,
    context.signal,
  );
  const parsed = hubApiSchema.safeParse(answer);
  if (!parsed.success) throw badShape(url, context.dataset, parsed.error);
  const wanted = Object.entries(parsed.data).filter(([config]) => context.config === undefined || config === context.config);
  if (context.config !== undefined && wanted.length === 0) {
    const known = Object.keys(parsed.data).join(', ') || 'none';
    throw new HubError('not-found', `Dataset "${context.dataset}" has no config "${context.config}" (configs: ${known}); check the config name.`, url, 404);
  }
  const jobs = wanted.flatMap(([config, splits]) => Object.entries(splits).flatMap(([split, urls]) => urls.map((link) => ({ link, config, split }))));
  const described: Array<{ ref: ParquetFileRef; partial: boolean }> = [];
  // A few HEAD requests at a time: datasets have tens of shards at most, and the hub rate-limits.
  for (let start = 0; start < jobs.length; start += 8) {
    const batch = jobs.slice(start, start + 8).map(({ link, config, split }) => describeFile(new URL(link, url).href, config, split, context));
    described.push(...(await Promise.all(batch)));
  }
  const files = described.map((entry) => entry.ref);
  return { files, partial: described.some((entry) => entry.partial), splits: splitsOf(files) };
}

/**
 * The parquet files of `dataset` (optionally of one config), from the dataset-viewer or, when it
 * has nothing to say, from the Hub API. Throws a `HubError` whose message says what to do.
 */
export async function listParquetFiles(dataset: string, options: HubOptions & { config?: string } = {}): Promise<ParquetListing> {
  const id = dataset.trim();
  if (!datasetIdPattern.test(id) || id.split('/').some((part) => part === '.' || part === '..')) {
    throw new HubError('not-found', `"${dataset}" is not a Hugging Face dataset id; write it as owner/name, e.g. SWE-bench/SWE-bench_Lite.`, '');
  }
  const context: ListContext = {
    dataset: id,
    config: options.config,
    endpoint: trimSlash(options.endpoint ?? process.env['HF_ENDPOINT'] ?? 'https://huggingface.co'),
    datasetsServer: trimSlash(options.datasetsServer ?? 'https://datasets-server.huggingface.co'),
    token: tokenFrom(options.token),
    signal: options.signal,
  };
  return (await listFromViewer(context)) ?? (await listFromHubApi(context));
}
