/**
 * Pulls the images a dataset needs before a run, so that the first episodes do not wait on
 * downloads and a missing image shows up before training rather than during it. Images already in
 * the local store are left alone, build-only images (SWE-bench instance images) are never pulled,
 * and one image's failure never stops the others.
 */
import type Docker from 'dockerode';
import type { PrepullResult } from '../protocol/images.js';
import { connectDocker } from './dockerClient.js';
import { isBuildOnlyImageName } from '../tasks/index.js';
import { dockerErrorMessage } from './images/imageError.js';

export interface PrepullOptions {
  /** Pulls at once (default 4); the daemon downloads layers in parallel within each pull too. */
  readonly maxWorkers?: number;
  /** Further attempts after a failed pull (default 2). */
  readonly retries?: number;
  /** Wait between attempts (default 5 s). */
  readonly delayMs?: number;
  /** Time limit of one attempt (default 300 s); the request is aborted when it passes. */
  readonly timeoutMs?: number;
  /** Images known to be built locally (from the dataset's `requires_build`), besides `sweb.eval.*` names. */
  readonly buildOnly?: Iterable<string>;
  /** Progress, for printing as images finish. */
  readonly onEvent?: (event: PrepullEvent) => void;
  /** A connection to reuse; otherwise one is opened (and a daemon that does not answer rejects). */
  readonly docker?: Docker;
}

export type PrepullEvent =
  | { readonly kind: 'attempt'; readonly image: string; readonly attempt: number }
  | { readonly kind: 'retry'; readonly image: string; readonly attempt: number; readonly error: string; readonly delayMs: number }
  | { readonly kind: 'done'; readonly result: PrepullResult };

/**
 * The reference Docker resolves a name to: a name without a tag or digest means `:latest`. The
 * last colon is a tag only when no `/` follows it, since `host:5000/repo` has a port, not a tag.
 */
export function withDefaultTag(image: string): string {
  if (image.includes('@')) return image;
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/') ? image : `${image}:latest`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** True when the daemon has the image; any error (not only 404) means we should try to pull it. */
async function isPresent(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch {
    return false;
  }
}

interface ProgressEvent {
  error?: unknown;
  errorDetail?: { message?: unknown };
}

/**
 * One pull, aborted after `timeoutMs`. The daemon reports most failures inside the progress stream
 * (an `error` event after a 200 answer) rather than as an HTTP error, so the events are checked too.
 */
async function pullOnce(docker: Docker, reference: string, timeoutMs: number): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const stream = await docker.pull(reference, { abortSignal: controller.signal });
    const events = await new Promise<ProgressEvent[]>((resolve, reject) => {
      docker.modem.followProgress(stream, (error: Error | null, output: ProgressEvent[]) => (error ? reject(error) : resolve(output)));
    });
    const failed = events.find((e) => e.error !== undefined || e.errorDetail !== undefined);
    if (failed !== undefined) throw new Error(String(failed.errorDetail?.message ?? failed.error));
    // A stream cut short without an error event would otherwise read as success.
    if (!(await isPresent(docker, reference))) throw new Error('the pull ended but the image is not in the local store');
  } catch (error) {
    if (controller.signal.aborted)
      throw new Error(
        `no complete pull within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${timeoutMs / 1000} s`}; allow more time (--timeout) for large images`,
      );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

interface Settings {
  readonly retries: number;
  readonly delayMs: number;
  readonly timeoutMs: number;
  /** Build-only images as references (`:latest` added), so `foo` and `foo:latest` match. */
  readonly buildOnly: ReadonlySet<string>;
  readonly onEvent: (event: PrepullEvent) => void;
}

function isBuildOnly(image: string, settings: Settings): boolean {
  return settings.buildOnly.has(withDefaultTag(image)) || isBuildOnlyImageName(image);
}

async function prepullOne(docker: Docker | undefined, image: string, settings: Settings): Promise<PrepullResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  // Without a daemon every image is build-only (see prepullImages), so `docker` is set past this line.
  if (isBuildOnly(image, settings) || docker === undefined) return { image, status: 'build-only', attempts: 0, durationMs: elapsed() };
  const reference = withDefaultTag(image);
  if (await isPresent(docker, reference)) return { image, status: 'present', attempts: 0, durationMs: elapsed() };
  let lastError = '';
  const attempts = settings.retries + 1;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    settings.onEvent({ kind: 'attempt', image, attempt });
    try {
      await pullOnce(docker, reference, settings.timeoutMs);
      return { image, status: 'pulled', attempts: attempt, durationMs: elapsed() };
    } catch (error) {
      lastError = dockerErrorMessage(error);
    }
    if (attempt < attempts) {
      settings.onEvent({ kind: 'retry', image, attempt, error: lastError, delayMs: settings.delayMs });
      await sleep(settings.delayMs);
    }
  }
  return { image, status: 'failed', attempts, durationMs: elapsed(), error: lastError };
}

function wholeNumber(value: number | undefined, fallback: number, min: number): number {
  return value === undefined || !Number.isFinite(value) ? fallback : Math.max(min, Math.floor(value));
}

/**
 * Pre-pulls `images` with a bounded pool of workers. Results come back in the order the images
 * were first given, one per distinct image (`foo` and `foo:latest` are one image). Rejects only
 * when no daemon answers; a failed image is a `failed` result.
 */
export async function prepullImages(images: readonly string[], options: PrepullOptions = {}): Promise<PrepullResult[]> {
  const unique: string[] = [];
  const references = new Set<string>();
  for (const image of images) {
    const name = image.trim();
    if (name.length === 0 || references.has(withDefaultTag(name))) continue;
    references.add(withDefaultTag(name));
    unique.push(name);
  }
  if (unique.length === 0) return [];
  const settings: Settings = {
    retries: wholeNumber(options.retries, 2, 0),
    delayMs: Math.max(0, options.delayMs ?? 5_000),
    timeoutMs: Math.max(1, options.timeoutMs ?? 300_000),
    buildOnly: new Set([...(options.buildOnly ?? [])].map(withDefaultTag)),
    onEvent: options.onEvent ?? (() => undefined),
  };
  // A list of build-only images needs no daemon, so a machine without one can still check it.
  const needsDocker = unique.some((image) => !isBuildOnly(image, settings));
  const docker = options.docker ?? (needsDocker ? (await connectDocker()).docker : undefined);
  const results: PrepullResult[] = new Array<PrepullResult>(unique.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < unique.length; index = next++) {
      const image = unique[index] as string; // index < unique.length, so the element exists.
      const result = await prepullOne(docker, image, settings);
      results[index] = result;
      settings.onEvent({ kind: 'done', result });
    }
  };
  const workers = Math.min(wholeNumber(options.maxWorkers, 4, 1), unique.length);
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

/**
 * Which of `images` the daemon holds, as the names were given: what a sandbox host tells the
 * front door, so an episode goes where its image needs no pull. None without a daemon.
 */
export async function imagesPresent(images: readonly string[], docker?: Docker): Promise<string[]> {
  let engine: Docker;
  try {
    engine = docker ?? (await connectDocker()).docker;
  } catch {
    return [];
  }
  const held = await Promise.all(images.map(async (image) => ((await isPresent(engine, image)) ? image : undefined)));
  return held.filter((i): i is string => i !== undefined);
}
