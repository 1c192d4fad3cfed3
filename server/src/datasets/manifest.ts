/**
 * The container images a dataset needs, collected from task JSONL and SWE-bench instance files, and
 * the manifest file that lists them (one image per line) for `gp images prepull` and the train
 * scripts. JSONL is read as a stream, one line at a time, so a 100,000-line dataset is never held
 * in memory, let alone twice.
 */
import { createReadStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { validateLine } from '../tasks/index.js';
import { isBuildOnlyImageName } from '../tasks/index.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { isRecord } from '../util/isRecord.js';
import { errorMessage } from '../util/errors.js';

/**
 * Where a row sits: a 1-based line for JSONL and single-object `.json` files, and the 0-based
 * position in the list for `.json` files that hold a list of instances.
 */
export interface RowPlace {
  readonly file: string;
  readonly line: number;
  readonly item?: number;
  readonly taskId?: string;
}

/** A line (or `.json` document) that is not a JSON object, with the 1-based column of the problem. */
export interface MalformedRow extends RowPlace {
  readonly column: number;
  readonly message: string;
}

export interface ImageCollection {
  /** Every image named, build-only ones included, each once, in the order first seen. */
  readonly images: string[];
  /** The subset of `images` that is built locally and must never be pulled. */
  readonly buildOnly: string[];
  /** Rows that name no image. */
  readonly missing: RowPlace[];
  readonly malformed: MalformedRow[];
  /** Files that could not be read at all, with the reason. */
  readonly unreadable: { readonly file: string; readonly message: string }[];
  /** Rows read: JSON objects, with or without an image. */
  readonly rows: number;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : undefined;
}

/** The image of one row and whether it is built locally rather than pulled. */
export function rowImage(row: Record<string, unknown>): { image: string | undefined; buildOnly: boolean } {
  const sandbox = isRecord(row['sandbox']) ? row['sandbox'] : {};
  const image = nonEmptyString(sandbox['docker_image']) ?? nonEmptyString(row['docker_image']);
  // The original read `requires_build` from `sandbox` only, so SWE-bench instance files (which carry
  // it at the top level) put build-only images into the pull list; both places count here.
  const flagged = sandbox['requires_build'] === true || row['requires_build'] === true;
  return { image, buildOnly: image !== undefined && (flagged || isBuildOnlyImageName(image)) };
}

/** Accumulates rows from any number of files, keeping first-seen order. */
class Collector {
  private readonly seen = new Set<string>();
  private readonly buildOnlySeen = new Set<string>();
  readonly images: string[] = [];
  readonly buildOnly: string[] = [];
  readonly missing: RowPlace[] = [];
  readonly malformed: MalformedRow[] = [];
  readonly unreadable: { file: string; message: string }[] = [];
  rows = 0;

  add(row: Record<string, unknown>, place: RowPlace): void {
    this.rows++;
    const { image, buildOnly } = rowImage(row);
    if (image === undefined) {
      const taskId = nonEmptyString(row['task_id']) ?? nonEmptyString(row['instance_id']);
      this.missing.push(taskId === undefined ? place : { ...place, taskId });
      return;
    }
    if (!this.seen.has(image)) {
      this.seen.add(image);
      this.images.push(image);
    }
    if (buildOnly && !this.buildOnlySeen.has(image)) {
      this.buildOnlySeen.add(image);
      this.buildOnly.push(image);
    }
  }

  result(): ImageCollection {
    const { images, buildOnly, missing, malformed, unreadable, rows } = this;
    return { images, buildOnly, missing, malformed, unreadable, rows };
  }
}

/** The column and message of a JSONL line that `JSON.parse` refused, from the dataset validator. */
function syntaxProblem(line: string, error: unknown): { column: number; message: string } {
  const found = validateLine(line).findings.find((f) => f.code === 'jsonl/syntax');
  if (found === undefined) return { column: 1, message: errorMessage(error) };
  return { column: found.start + 1, message: found.message.replace(/^Invalid JSON at column \d+: /, '') };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

async function collectJsonl(file: string, into: Collector): Promise<void> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const raw of lines) {
    number++;
    const text = number === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    if (text.trim().length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      into.malformed.push({ file, line: number, ...syntaxProblem(raw, error) });
      continue;
    }
    if (isRecord(value)) into.add(value, { file, line: number });
    else into.malformed.push({ file, line: number, column: 1, message: `Expected a JSON object (one task per line), found ${kindOf(value)}.` });
  }
}

/** Line and column (1-based) of a UTF-16 offset in `text`. */
function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let nl = text.indexOf('\n'); nl >= 0 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** An instance file holds one object or a list of them; instance files are small, so it is read whole. */
async function collectJson(file: string, into: Collector): Promise<void> {
  const raw = await readFile(file, 'utf8');
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = errorMessage(error);
    const at = /at position (\d+)/.exec(message);
    const where = at?.[1] === undefined ? { line: 1, column: 1 } : positionAt(text, Number(at[1]));
    into.malformed.push({ file, ...where, message: message.replace(/ in JSON at position \d+.*$/, '.') });
    return;
  }
  if (isRecord(value)) into.add(value, { file, line: 1 });
  else if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => {
      if (isRecord(item)) into.add(item, { file, line: 1, item: index });
      else into.malformed.push({ file, line: 1, item: index, column: 1, message: `Expected an instance object, found ${kindOf(item)}.` });
    });
  } else into.malformed.push({ file, line: 1, column: 1, message: `Expected an instance object or a list of them, found ${kindOf(value)}.` });
}

/**
 * Collects the images named by task JSONL files and `.json` instance files (any other extension is
 * read as JSONL). A file that cannot be read is listed in `unreadable` and the others still count.
 */
export async function collectImages(files: readonly string[]): Promise<ImageCollection> {
  const collector = new Collector();
  for (const file of files) {
    try {
      if (file.toLowerCase().endsWith('.json')) await collectJson(file, collector);
      else await collectJsonl(file, collector);
    } catch (error) {
      collector.unreadable.push({ file, message: errorMessage(error) });
    }
  }
  return collector.result();
}

/** `file:line`, or `file[item]` for an element of a `.json` list. */
export function formatPlace(place: RowPlace): string {
  return place.item === undefined ? `${place.file}:${place.line}` : `${place.file}[${place.item}]`;
}

/** The images of a manifest; `buildOnly` is the subset marked to be built rather than pulled. */
export interface Manifest {
  readonly images: string[];
  readonly buildOnly: string[];
}

const buildOnlyMarker = 'build-only';

/**
 * Writes the manifest atomically: one image per line, build-only ones marked with a trailing
 * `# build-only` comment so that a pre-pull from the manifest alone still knows not to pull them.
 * The parent folder is created when missing.
 */
export async function writeManifest(path: string, images: readonly string[], options: { buildOnly?: Iterable<string> } = {}): Promise<void> {
  const buildOnly = new Set(options.buildOnly ?? []);
  const lines = [
    '# Container images the dataset needs, one per line. Images marked "# build-only" are built locally, never pulled.',
    ...images.map((image) => (buildOnly.has(image) ? `${image}  # ${buildOnlyMarker}` : image)),
  ];
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${lines.join('\n')}\n`);
}

/**
 * Reads a manifest: blank lines and `#` comments are ignored (an image name cannot contain `#`),
 * repeated images count once. Also reads the original system's manifests, which have no comments.
 * Rejects when the file cannot be read.
 */
export async function readManifest(path: string): Promise<Manifest> {
  const text = await readFile(path, 'utf8');
  const images: string[] = [];
  const buildOnly: string[] = [];
  const seen = new Set<string>();
  for (const line of text.split(/\r\n|\r|\n/)) {
    const hash = line.indexOf('#');
    const image = (hash >= 0 ? line.slice(0, hash) : line).trim().replace(/^\ufeff/, '');
    if (image.length === 0 || seen.has(image)) continue;
    seen.add(image);
    images.push(image);
    if (hash >= 0 && line.slice(hash + 1).trim() === buildOnlyMarker) buildOnly.push(image);
  }
  return { images, buildOnly };
}
