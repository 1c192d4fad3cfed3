/**
 * Source distributions from the package index, cached under `.cache/bench/sdists/` by file name.
 * A download is checked against the SHA-256 the index publishes, and so is a cached copy before it
 * is used, so a truncated file from an interrupted run is fetched again rather than half-read. The
 * index's JSON for each project is cached beside them, so a run whose files are all cached touches
 * no network; a release series only gains files while it is current, and the series SWE-bench names
 * are long finished. Failures come back as reasons: a benchmark skips what it cannot fetch.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../server/src/util/errors.js';
import type { IndexFile, ReleasesMap } from './localisationRelease.js';

const indexFileSchema = z.object({
  filename: z.string(),
  url: z.string(),
  packagetype: z.string(),
  size: z.number(),
  digests: z.object({ sha256: z.string() }),
  yanked: z.boolean().optional(),
});
const projectSchema = z.object({ releases: z.record(z.string(), z.array(indexFileSchema)) });

/** Long enough for a 40 MB file on a slow link, short enough that a dead one does not hang the run. */
const downloadTimeoutMs = 10 * 60_000;
const indexTimeoutMs = 60_000;

export type Fetched<T> =
  { readonly ok: true; readonly value: T; readonly fromCache: boolean; readonly downloadedBytes: number } | { readonly ok: false; readonly reason: string };

async function download(url: string, timeoutMs: number): Promise<Buffer> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`);
  return Buffer.from(await response.arrayBuffer());
}

let partials = 0;

/**
 * Written under a temporary name and renamed, so a reader never sees half a file; the name is
 * unique to the write, since two groups of one run may fetch the same file at once.
 */
async function writeAtomically(file: string, bytes: Buffer | string): Promise<void> {
  partials += 1;
  const partial = `${file}.${process.pid}-${partials}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
}

const projectUrl = (project: string): string => `https://pypi.org/pypi/${encodeURIComponent(project)}/json`;

/**
 * The releases map in the index's JSON, or undefined when the text is not that JSON. A mirror may
 * list file addresses relative to the JSON's own, so each is resolved against it.
 */
function parseProject(text: string, project: string): ReleasesMap | undefined {
  let parsed;
  try {
    parsed = projectSchema.safeParse(JSON.parse(text));
  } catch {
    return undefined;
  }
  if (!parsed.success) return undefined;
  const base = projectUrl(project);
  return Object.fromEntries(
    Object.entries(parsed.data.releases).map(([version, files]) => [version, files.map((f) => ({ ...f, url: new URL(f.url, base).href }))]),
  );
}

/** The project's releases map, from the cache or the index's JSON API. */
export async function projectReleases(project: string, cacheDir: string): Promise<Fetched<ReleasesMap>> {
  const file = join(cacheDir, `pypi-${project}.json`);
  if (existsSync(file)) {
    const cached = parseProject(await readFile(file, 'utf8'), project);
    if (cached !== undefined) return { ok: true, value: cached, fromCache: true, downloadedBytes: 0 };
    // A cached copy that does not parse (an older run was cut off) is fetched again.
  }
  try {
    const text = (await download(projectUrl(project), indexTimeoutMs)).toString('utf8');
    const releases = parseProject(text, project);
    if (releases === undefined) return { ok: false, reason: `the index's JSON for ${project} has no releases map of files in the expected shape` };
    await mkdir(cacheDir, { recursive: true });
    await writeAtomically(file, text);
    return { ok: true, value: releases, fromCache: false, downloadedBytes: Buffer.byteLength(text) };
  } catch (error) {
    return { ok: false, reason: `the index's JSON for ${project} could not be fetched: ${errorMessage(error)}` };
  }
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The bytes of a source distribution, from the cache when its digest matches, else downloaded and cached. */
export async function sdistBytes(file: IndexFile, cacheDir: string): Promise<Fetched<Buffer>> {
  const cached = join(cacheDir, file.filename);
  if (existsSync(cached)) {
    const bytes = await readFile(cached);
    if (sha256(bytes) === file.digests.sha256) return { ok: true, value: bytes, fromCache: true, downloadedBytes: 0 };
  }
  try {
    const bytes = await download(file.url, downloadTimeoutMs);
    const digest = sha256(bytes);
    if (digest !== file.digests.sha256) return { ok: false, reason: `${file.filename}: SHA-256 ${digest} differs from the index's ${file.digests.sha256}` };
    await mkdir(cacheDir, { recursive: true });
    await writeAtomically(cached, bytes);
    return { ok: true, value: bytes, fromCache: false, downloadedBytes: bytes.length };
  } catch (error) {
    return { ok: false, reason: `${file.filename} could not be downloaded: ${errorMessage(error)}` };
  }
}
