/**
 * Downloads listed parquet files to `<outDir>/<config>/<split>/<filename>`, resumably. Bytes are
 * streamed to `<file>.part` and the file is renamed into place only when its size equals the
 * listed size, so a file under its final name is always whole. An interrupted transfer leaves the
 * `.part` with what arrived; the next attempt (in this call, after a transient failure, or in a
 * later one) asks for the rest with a Range header. Memory stays bounded: each chunk is written
 * to disk before the next is read.
 */
import { open, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { backoff, describeCause, HubError, hubFetch, networkError, shown, statusError, tokenFrom, type HubResponse } from './hfHttp.js';
import type { ParquetFileRef } from './hfHub.js';

export interface DownloadProgress {
  readonly file: ParquetFileRef;
  readonly received: number;
  readonly total: number;
  readonly filesDone: number;
  readonly filesTotal: number;
}

export interface DownloadedFile {
  readonly ref: ParquetFileRef;
  readonly path: string;
  readonly bytes: number;
  /** Bytes already on disk (a `.part` from an earlier call or attempt) when the successful request started; 0 for a download in one piece. */
  readonly resumedFrom: number;
  readonly alreadyComplete: boolean;
}

export interface DownloadOptions {
  /** Bearer token; default process.env.HF_TOKEN; an empty string sends none. */
  token?: string;
  signal?: AbortSignal;
  /** Called at most every ~100 ms per file while bytes arrive, and once when each file is done. */
  onProgress?: (p: DownloadProgress) => void;
  /** Attempts after the first for transient failures (network, stalls, 5xx, 429) of one file; default 4. */
  retries?: number;
  /** First wait before a retry, doubled each time; default 1,000 ms. */
  backoffMs?: number;
  /** An attempt that receives nothing for this long is cut and retried; default 60,000 ms. */
  stallTimeoutMs?: number;
}

const progressIntervalMs = 100;

interface FileJob {
  readonly ref: ParquetFileRef;
  readonly label: string;
  readonly part: string;
  readonly token: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly stallTimeoutMs: number;
  /** Reports the bytes on disk, at most every ~100 ms; the end of a file is reported by the caller. */
  readonly report: (received: number) => void;
}

/** How one request ended: the whole file is in the `.part`, or the `.part` must be emptied and asked for again. */
type TransferOutcome = { kind: 'done'; startedAt: number } | { kind: 'restart' };

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}

/** Rejects names that would write outside `outDir`: they come from a server's answer. */
function safeSegment(segment: string, ref: ParquetFileRef): string {
  if (segment === '' || segment === '.' || segment === '..' || /[/\\\0]/.test(segment)) {
    throw new HubError(
      'bad-response',
      `The listing of dataset "${ref.dataset}" names a file part "${segment}" that is not a plain file or folder name; refusing to write it.`,
      ref.url,
    );
  }
  return segment;
}

function mismatch(job: FileJob, actual: number, url: string): HubError {
  return new HubError(
    'size-mismatch',
    `File "${job.label}" of dataset "${job.ref.dataset}" is ${actual} bytes but the listing said ${job.ref.size}; the partial download was removed so a re-run starts clean. The parquet conversion may have changed since it was listed: run the download again to list the files afresh.`,
    url,
  );
}

/** The file's total size as the server states it, from Content-Range (206) or Content-Length (200). */
function statedTotal(response: Response): number | undefined {
  const range = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '');
  const text = response.status === 206 ? range?.[1] : (response.headers.get('content-length') ?? undefined);
  const total = Number(text ?? Number.NaN);
  return Number.isSafeInteger(total) ? total : undefined;
}

function rangeStart(response: Response): number | undefined {
  const match = /^bytes\s+(\d+)-/.exec(response.headers.get('content-range') ?? '');
  return match?.[1] !== undefined ? Number(match[1]) : undefined;
}

/** A signal that fires on the caller's abort or when `stallTimeoutMs` pass without `touch()`. */
function stallGuard(
  signal: AbortSignal | undefined,
  stallTimeoutMs: number,
): { signal: AbortSignal; touch: () => void; stalled: () => boolean; dispose: () => void } {
  const controller = new AbortController();
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const onAbort = (): void => controller.abort(signal?.reason);
  const touch = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      controller.abort(new Error('stalled'));
    }, stallTimeoutMs);
  };
  if (signal?.aborted === true) controller.abort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  touch();
  return {
    signal: controller.signal,
    touch,
    stalled: () => stalled,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Appends the answer's body to the `.part`, chunk by chunk, and checks it against the listed size. */
async function writeBody(job: FileJob, hub: HubResponse, offset: number, guard: ReturnType<typeof stallGuard>): Promise<void> {
  const { response } = hub;
  const expected = statedTotal(response);
  if (expected !== undefined && expected !== job.ref.size) {
    await response.body?.cancel();
    await rm(job.part, { force: true });
    throw mismatch(job, expected, hub.url);
  }
  const handle = await open(job.part, offset > 0 ? 'a' : 'w');
  let received = offset;
  try {
    if (response.body !== null) {
      for await (const chunk of response.body) {
        guard.touch();
        if (received + chunk.byteLength > job.ref.size) {
          await response.body.cancel();
          await handle.close();
          await rm(job.part, { force: true });
          throw mismatch(job, received + chunk.byteLength, hub.url);
        }
        await handle.write(chunk);
        received += chunk.byteLength;
        job.report(received);
      }
    }
  } catch (error) {
    if (error instanceof HubError) throw error;
    if (job.signal?.aborted === true) throw networkError(error, hub.url, job.signal);
    const why = guard.stalled() ? `no data arrived for ${job.stallTimeoutMs} ms` : describeCause(error);
    throw new HubError(
      'network',
      `The transfer of ${job.label} from ${shown(hub.url)} broke after ${received} of ${job.ref.size} bytes (${why}); what arrived is kept in ${job.part}, and the next attempt resumes from there.`,
      hub.url,
    );
  } finally {
    await handle.close().catch(() => undefined);
  }
  if (received < job.ref.size && (expected === undefined || received < expected)) {
    throw new HubError('network', `The connection for ${job.label} closed after ${received} of ${job.ref.size} bytes.`, hub.url);
  }
}

/** One request for the bytes the `.part` lacks. */
async function transfer(job: FileJob, offset: number): Promise<TransferOutcome> {
  const guard = stallGuard(job.signal, job.stallTimeoutMs);
  try {
    // Identity encoding: a compressed answer would make ranges and lengths count other bytes.
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    if (offset > 0) headers['range'] = `bytes=${offset}-`;
    let hub: HubResponse;
    try {
      hub = await hubFetch(job.ref.url, { token: job.token, headers, signal: guard.signal });
    } catch (error) {
      if (guard.stalled()) throw new HubError('network', `${job.ref.url} sent no answer for ${job.stallTimeoutMs} ms.`, job.ref.url);
      throw error;
    }
    const { response } = hub;
    if (response.status === 416 || (response.status === 206 && rangeStart(response) !== offset)) {
      await response.body?.cancel();
      return { kind: 'restart' };
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw statusError(response.status, hub, { dataset: job.ref.dataset, config: job.ref.config, file: job.label });
    }
    // A 200 to a Range request is the whole file: start the `.part` again from zero.
    const start = response.status === 206 ? offset : 0;
    await writeBody(job, hub, start, guard);
    return { kind: 'done', startedAt: start };
  } finally {
    guard.dispose();
  }
}

/** Fetches until the `.part` is whole, resuming after transient failures; returns the offset the last request started at. */
async function fill(job: FileJob, retries: number, backoffMs: number): Promise<number> {
  let restarted = false;
  for (let tries = 0; ;) {
    if (job.signal?.aborted === true) throw new HubError('aborted', `The download of ${job.label} was cancelled; run it again to resume.`, job.ref.url);
    let offset = (await sizeOf(job.part)) ?? 0;
    if (offset > job.ref.size) {
      await rm(job.part, { force: true });
      offset = 0;
    }
    if (offset === job.ref.size) return offset;
    try {
      const outcome = await transfer(job, offset);
      if (outcome.kind === 'done') return outcome.startedAt;
      if (restarted)
        throw new HubError('bad-response', `${job.ref.url} refused the byte range of ${job.label} twice; delete ${job.part} and try again.`, job.ref.url);
      restarted = true;
      await rm(job.part, { force: true });
    } catch (error) {
      const failure = error instanceof HubError ? error : networkError(error, job.ref.url, job.signal);
      if (failure.code === 'aborted') throw new HubError('aborted', `The download of ${job.label} was cancelled; run it again to resume.`, failure.url);
      if (!failure.transient || tries >= retries) throw failure;
      await backoff(tries, backoffMs, job.signal, failure.url);
      tries++;
    }
  }
}

async function downloadOne(ref: ParquetFileRef, outDir: string, index: number, count: number, options: DownloadOptions): Promise<DownloadedFile> {
  const segments = [ref.config, ref.split, ref.filename].map((segment) => safeSegment(segment, ref));
  const path = join(outDir, ...segments);
  const label = segments.join('/');
  const done = (): void => options.onProgress?.({ file: ref, received: ref.size, total: ref.size, filesDone: index + 1, filesTotal: count });
  const existing = await sizeOf(path);
  if (existing === ref.size) {
    done();
    return { ref, path, bytes: ref.size, resumedFrom: 0, alreadyComplete: true };
  }
  // A file of the wrong size under the final name is stale; it must not pass for a whole one.
  if (existing !== undefined) await rm(path, { force: true });
  await mkdir(dirname(path), { recursive: true });
  let last = 0;
  const job: FileJob = {
    ref,
    label,
    part: `${path}.part`,
    token: tokenFrom(options.token),
    signal: options.signal,
    stallTimeoutMs: options.stallTimeoutMs ?? 60_000,
    report: (received) => {
      const now = Date.now();
      if (now - last < progressIntervalMs || received >= ref.size) return;
      last = now;
      options.onProgress?.({ file: ref, received, total: ref.size, filesDone: index, filesTotal: count });
    },
  };
  const resumedFrom = await fill(job, options.retries ?? 4, options.backoffMs ?? 1_000);
  const bytes = (await sizeOf(job.part)) ?? 0;
  if (bytes !== ref.size) {
    await rm(job.part, { force: true });
    throw mismatch(job, bytes, ref.url);
  }
  await rename(job.part, path);
  done();
  return { ref, path, bytes, resumedFrom, alreadyComplete: false };
}

/**
 * Downloads `files` one after another into `outDir`, skipping those already there at their listed
 * size. Throws a `HubError` on the first file that cannot be had; files finished before it stay.
 */
export async function downloadParquetFiles(files: readonly ParquetFileRef[], outDir: string, options: DownloadOptions = {}): Promise<DownloadedFile[]> {
  const results: DownloadedFile[] = [];
  for (const [index, ref] of files.entries()) {
    results.push(await downloadOne(ref, outDir, index, files.length, options));
  }
  return results;
}
