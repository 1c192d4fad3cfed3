/**
 * `gp images manifest` and `gp images prepull`: the container images a dataset needs, written to a
 * manifest, and pulled before a run. Exit codes: 0 when everything worked, 1 when something failed
 * (a malformed dataset line, an image that could not be pulled), 2 for a usage error or a file that
 * cannot be read.
 */
import { dirname, join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { PrepullResult } from '../protocol/images.js';
import { collectImages, formatPlace, readManifest, writeManifest, type ImageCollection } from '../datasets/index.js';
import { prepullImages, type PrepullEvent, type PrepullOptions } from '../sandbox/index.js';
import { usageError as printUsageError } from './args.js';
import { prepullOnCluster } from './rayPrepullCommand.js';
import { plural, type Io } from './output.js';
import { errorMessage } from '../util/errors.js';

/** Rows without an image printed one by one; a dataset without images would otherwise print every row. */
const missingShown = 20;

const buildHint = 'Build-only images are built locally (for SWE-bench: python -m swebench.harness.prepare_images), never pulled.';

export const imagesManifestUsage = `gp images manifest FILE... [--out PATH] [--json]
      Collect the unique images of task files into a manifest (one per line);
      build-only SWE-bench images are marked and rows without an image counted.`;

export const imagesManifestOptions = { out: { type: 'string' }, json: { type: 'boolean' } } as const;

export const imagesPrepullOptions = {
  manifest: { type: 'string', multiple: true },
  'max-workers': { type: 'string' },
  retries: { type: 'string' },
  delay: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  ray: { type: 'string' },
} as const;

export const imagesPrepullUsage = `gp images prepull (FILE.jsonl... | --manifest PATH | IMAGE...) [--max-workers N]
               [--retries N] [--delay S] [--timeout S] [--json] [--ray ADDRESS]
      Pull images: pulled / already present / failed / build-only per image; one
      failure never stops the batch.
      --ray does it on every node of that Ray cluster (dashboard HOST:PORT) that offers
      sandboxes (gp_sandbox_slots, see gp ray slots), as one Ray job, against each node's
      Docker, and prints a summary per node. Files must be on storage every node sees.`;

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** `node:util` parseArgs, with its errors turned into a usage message instead of an exception. */
export function parseCliArgs<const T extends ParseArgsConfig>(config: T): Parsed<ReturnType<typeof parseArgs<T>>> {
  try {
    return { ok: true, value: parseArgs(config) };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
}

function usageError(io: Io, command: 'images manifest' | 'images prepull', message: string): number {
  return printUsageError({ name: command, usage: command === 'images manifest' ? imagesManifestUsage : imagesPrepullUsage }, io, [message]);
}

function describe(collection: ImageCollection): string {
  const parts = [
    plural(collection.images.length, 'image'),
    `${collection.buildOnly.length} build-only`,
    `${plural(collection.missing.length, 'row')} without an image`,
  ];
  if (collection.malformed.length > 0) parts.push(plural(collection.malformed.length, 'malformed line'));
  return parts.join(', ');
}

function printProblems(collection: ImageCollection, io: Io): void {
  for (const m of collection.malformed) io.out(`${m.item === undefined ? `${m.file}:${m.line}:${m.column}` : formatPlace(m)} malformed: ${m.message}`);
  for (const row of collection.missing.slice(0, missingShown)) {
    io.out(`${formatPlace(row)} no image: ${row.taskId === undefined ? 'the row' : `task ${row.taskId}`} has neither sandbox.docker_image nor docker_image.`);
  }
  if (collection.missing.length > missingShown) io.out(`… and ${plural(collection.missing.length - missingShown, 'more row')} without an image.`);
}

/** `gp images manifest FILE... [--out PATH] [--json]` */
export async function imagesManifest(args: readonly string[], io: Io): Promise<number> {
  const parsed = parseCliArgs({ args: [...args], options: imagesManifestOptions, allowPositionals: true, strict: true });
  if (!parsed.ok) return usageError(io, 'images manifest', parsed.message);
  const files = parsed.value.positionals;
  const first = files[0];
  if (first === undefined) return usageError(io, 'images manifest', 'name at least one dataset file (JSONL, or a .json instance file).');
  const out = parsed.value.values.out ?? join(dirname(first), 'docker_images.txt');
  const collection = await collectImages(files);
  if (collection.unreadable.length > 0) {
    for (const u of collection.unreadable) io.err(`${u.file}: cannot read it (${u.message}).`);
    io.err('No manifest written.');
    return 2;
  }
  try {
    await writeManifest(out, collection.images, { buildOnly: collection.buildOnly });
  } catch (error) {
    io.err(`Cannot write the manifest to ${out} (${errorMessage(error)}).`);
    return 2;
  }
  const exit = collection.malformed.length > 0 ? 1 : 0;
  if (parsed.value.values.json === true) {
    io.out(JSON.stringify({ manifest: out, ...collection }, null, 2));
    return exit;
  }
  printProblems(collection, io);
  io.out(`Docker manifest written to ${out} (${describe(collection)}).`);
  if (collection.images.length === 0) io.out('No docker images found in the dataset.');
  else if (collection.buildOnly.length === collection.images.length) io.out(`Every image is build-only. ${buildHint}`);
  return exit;
}

interface PrepullArgs {
  readonly images: string[];
  readonly buildOnly: string[];
  readonly options: Omit<PrepullOptions, 'onEvent' | 'docker' | 'buildOnly'>;
  readonly json: boolean;
  /** `--ray`: the cluster whose nodes pull, each running this command with `nodeArgs`. */
  readonly ray: string | undefined;
  /** The same request for another machine: files and manifests absolute, images and options as given. */
  readonly nodeArgs: string[];
}

/** A number option: `undefined` when absent, a message when it is not a number in range. */
function numberOption(name: string, raw: string | undefined, min: number, integer: boolean): number | string | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    return `--${name} needs ${integer ? 'a whole number' : 'a number'} of at least ${min}, not '${raw}'.`;
  }
  return value;
}

function isDatasetFile(arg: string): boolean {
  return /\.jsonl?$/i.test(arg);
}

async function prepullArgs(args: readonly string[], io: Io): Promise<PrepullArgs | string> {
  const parsed = parseCliArgs({
    args: [...args],
    options: imagesPrepullOptions,
    allowPositionals: true,
    strict: true,
  });
  if (!parsed.ok) return parsed.message;
  const { values, positionals } = parsed.value;
  const maxWorkers = numberOption('max-workers', values['max-workers'], 1, true);
  const retries = numberOption('retries', values.retries, 0, true);
  const delay = numberOption('delay', values.delay, 0, false);
  const timeout = numberOption('timeout', values.timeout, 0.001, false);
  for (const v of [maxWorkers, retries, delay, timeout]) if (typeof v === 'string') return v;
  const options: PrepullArgs['options'] = {
    ...(typeof maxWorkers === 'number' && { maxWorkers }),
    ...(typeof retries === 'number' && { retries }),
    ...(typeof delay === 'number' && { delayMs: delay * 1000 }),
    ...(typeof timeout === 'number' && { timeoutMs: timeout * 1000 }),
  };
  const images: string[] = [];
  const buildOnly: string[] = [];
  const files = positionals.filter(isDatasetFile);
  if (files.length > 0) {
    const collection = await collectImages(files);
    for (const u of collection.unreadable) io.err(`${u.file}: cannot read it (${u.message}).`);
    if (collection.unreadable.length > 0) return 'a dataset file cannot be read.';
    for (const m of collection.malformed) io.err(`${m.file}:${m.line}:${m.column} malformed: ${m.message}`);
    images.push(...collection.images);
    buildOnly.push(...collection.buildOnly);
  }
  for (const path of values.manifest ?? []) {
    try {
      const manifest = await readManifest(path);
      images.push(...manifest.images);
      buildOnly.push(...manifest.buildOnly);
    } catch (error) {
      return `cannot read the manifest ${path} (${errorMessage(error)}).`;
    }
  }
  images.push(...positionals.filter((a) => !isDatasetFile(a)));
  if (files.length === 0 && values.manifest === undefined && images.length === 0) return 'name dataset files (.jsonl/.json), --manifest PATH, or images.';
  const nodeArgs = [
    ...positionals.map((a) => (isDatasetFile(a) ? resolve(a) : a)),
    ...(values.manifest ?? []).flatMap((m) => ['--manifest', resolve(m)]),
    ...(['max-workers', 'retries', 'delay', 'timeout'] as const).flatMap((name) => (values[name] === undefined ? [] : [`--${name}`, values[name]])),
  ];
  return { images, buildOnly, options, json: values.json === true, ray: values.ray, nodeArgs };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** One line per image, as a person reads it. */
export function formatPrepullResult(r: PrepullResult): string {
  switch (r.status) {
    case 'pulled':
      return `${r.image}: pulled in ${seconds(r.durationMs)}${r.attempts > 1 ? ` (attempt ${r.attempts})` : ''}`;
    case 'present':
      return `${r.image}: already present`;
    case 'build-only':
      return `${r.image}: build-only (build it, not pulled)`;
    case 'failed':
      return `${r.image}: failed: ${r.error ?? 'unknown error'} (${plural(r.attempts, 'attempt')})`;
  }
}

function summary(results: readonly PrepullResult[]): string {
  const count = (status: PrepullResult['status']) => results.filter((r) => r.status === status).length;
  return `Pre-pull of ${plural(results.length, 'image')}: ${count('pulled')} pulled, ${count('present')} already present, ${count('failed')} failed, ${count('build-only')} build-only.`;
}

/** `gp images prepull (FILE.jsonl... | --manifest PATH | IMAGE...) [--max-workers N] [--retries N] [--delay S] [--timeout S] [--json]` */
export async function imagesPrepull(args: readonly string[], io: Io): Promise<number> {
  const request = await prepullArgs(args, io);
  if (typeof request === 'string') return usageError(io, 'images prepull', request);
  if (request.images.length === 0) {
    io.err('No docker images found to pre-pull.');
    if (request.json) io.out(JSON.stringify(request.ray === undefined ? { results: [] } : { nodes: [] }, null, 2));
    return 0;
  }
  if (request.ray !== undefined) return prepullOnCluster({ ray: request.ray, args: request.nodeArgs, json: request.json }, io);
  const onEvent = (e: PrepullEvent) => {
    if (request.json) return;
    if (e.kind === 'done') io.out(formatPrepullResult(e.result));
    else if (e.kind === 'retry') io.err(`${e.image}: attempt ${e.attempt} failed (${e.error}); retrying in ${seconds(e.delayMs)}.`);
  };
  let results: PrepullResult[];
  try {
    results = await prepullImages(request.images, { ...request.options, buildOnly: request.buildOnly, onEvent });
  } catch (error) {
    io.err(errorMessage(error));
    return 1;
  }
  if (request.json) io.out(JSON.stringify({ results }, null, 2));
  else {
    io.out(summary(results));
    if (results.some((r) => r.status === 'build-only')) io.out(buildHint);
  }
  return results.some((r) => r.status === 'failed') ? 1 : 0;
}
