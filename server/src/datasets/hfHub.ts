/**
 * Lists the parquet files Hugging Face converted a dataset into, without Python
 * (docs/upstream-contracts.md#hugging-face-download). The dataset-viewer's `/parquet` endpoint gives urls and sizes in
 * one call; when it answers 404 or 5xx, or cannot be reached, the Hub API's `/api/datasets/<id>/parquet`
 * gives the urls, and a HEAD request per file gives its size. The HTTP itself is in `hfHttp.ts`.
 */
import { z } from 'zod';
import { HubError, hubFetch, networkError, shown, statusError, tokenFrom, withRetries } from './hfHttp.js';

export { HubError, hubErrorCodes, type HubErrorCode } from './hfHttp.js';

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

// ---------------------------------------------------------------------------------------------
// Split fallbacks (docs/original-system.md#g5-split-fallbacks)
// ---------------------------------------------------------------------------------------------

/** The original's split fallbacks (docs/original-system.md#g5-split-fallbacks): requested validation|val|dev tries [requested, dev, validation, val, test]; test tries [test, validation]; anything else only itself. */
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
    return {
      ok: false,
      error: statusError(hub.response.status, hub, { dataset: context.dataset, ...(context.config !== undefined ? { config: context.config } : {}) }),
    };
  }
  try {
    return { ok: true, body: (await hub.response.json()) as unknown };
  } catch (error) {
    if (context.signal?.aborted === true) throw networkError(error, url, context.signal);
    return {
      ok: false,
      error: new HubError('bad-response', `${url} did not answer JSON for dataset "${context.dataset}"; check HF_ENDPOINT.`, url, hub.response.status),
    };
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
        throw new HubError(
          'bad-response',
          `HEAD ${shown(hub.url)} gave no Content-Length for ${file} of dataset "${context.dataset}", so its size is unknown.`,
          hub.url,
          hub.response.status,
        );
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
