/**
 * One way to read dataset rows from parquet, JSONL (`.jsonl`, `.jsonl.gz`) and JSON (`.json`,
 * `.json.gz`) files, as a stream of rows and per-row problems, each with the place it came from.
 * A bad row is a `problem` item that the caller counts before going on; a file that cannot be read
 * at all is a `DatasetInputError` whose message names the file, the place and what to do. Parquet
 * is read one row group at a time (`parquetRows.ts`) and JSONL one line at a time, so memory is
 * bounded by a row group or a line; JSON files are small and are read whole.
 *
 * `parquetRows.ts` imports the error class and helpers below while this module imports its opener;
 * the cycle is harmless because neither module touches the other's exports while it loads.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { addAbortSignal, pipeline, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';
import { findSyntaxError } from '../tasks/jsonScanner.js';
import { openParquetSource } from './parquetRows.js';

/** Where a row came from: a 1-based line for JSONL; a 0-based row index (and its row group) for parquet; a 0-based item for JSON lists. */
export interface SourcePlace {
  readonly file: string;
  readonly line?: number;
  readonly row?: number;
  readonly rowGroup?: number;
  readonly item?: number;
}

export type SourceItem =
  | { readonly kind: 'row'; readonly value: Record<string, unknown>; readonly place: SourcePlace }
  | { readonly kind: 'problem'; readonly place: SourcePlace; readonly column?: number; readonly code: string; readonly message: string };

export interface RowSource {
  readonly file: string;
  readonly format: 'parquet' | 'jsonl' | 'json';
  /** Top-level column names for parquet (from the schema, before reading any row); undefined otherwise. */
  readonly columns: readonly string[] | undefined;
  /** Row count when the format knows it up front (parquet metadata), else undefined. */
  readonly rowCount: number | undefined;
  /** Yields rows in file order. Can be iterated once. */
  rows(): AsyncIterable<SourceItem>;
}

/**
 * The JSONL checker's limit (`tasks/jsonlFile.ts`), repeated rather than imported because that
 * module compiles the task schema when it loads, which a plain row reader does not need.
 */
const defaultMaxLineBytes = 64 * 1024 * 1024;

export interface RowSourceOptions {
  readonly signal?: AbortSignal;
  /** JSONL lines longer than this many bytes are reported and skipped (default 64 MiB, as the JSONL checker). */
  readonly maxLineBytes?: number;
}

/** `file:line:col`, `file row 17 (row group 2)`, or `file[3]` — for messages. */
export function formatSourcePlace(place: SourcePlace, column?: number): string {
  if (place.line !== undefined) return column === undefined ? `${place.file}:${place.line}` : `${place.file}:${place.line}:${column}`;
  if (place.row !== undefined) return `${place.file} row ${place.row}${place.rowGroup === undefined ? '' : ` (row group ${place.rowGroup})`}`;
  if (place.rowGroup !== undefined) return `${place.file} (row group ${place.rowGroup})`;
  if (place.item !== undefined) return `${place.file}[${place.item}]`;
  return place.file;
}

/**
 * The file cannot be read at all (missing, truncated, not the format its name says). The message
 * starts with the place, so it can be printed as it is; `detail` is the message without it.
 */
export class DatasetInputError extends Error {
  override readonly name = 'DatasetInputError';
  readonly detail: string;

  constructor(
    readonly code: string,
    readonly place: SourcePlace,
    detail: string,
    readonly column?: number,
  ) {
    super(`${formatSourcePlace(place, column)}: ${detail}`);
    this.detail = detail;
  }
}

/** Throws the error every reader uses for an interrupted read, so callers see one code for it. */
export function throwIfAborted(signal: AbortSignal | undefined, file: string): void {
  if (signal?.aborted) throw new DatasetInputError('dataset/aborted', { file }, 'reading was interrupted.');
}

/**
 * The offset of the first byte that does not belong to a well-formed UTF-8 sequence, or -1 when all
 * are valid. Overlong forms, surrogates and code points above U+10FFFF count as invalid, as they do
 * for a fatal `TextDecoder`.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** The 1-based UTF-16 column of a byte offset in a line whose bytes before it are valid UTF-8. */
function columnOfByte(bytes: Buffer, offset: number): number {
  return bytes.toString('utf8', 0, offset).length + 1;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const utf8Hint = 'Re-encode the file as UTF-8 (for example `iconv -f latin1 -t utf-8`).';

// ---------------------------------------------------------------------------------------------
// Opening: the file must exist and be a regular file; the name says the format.

type Format = { readonly format: 'parquet' | 'jsonl' | 'json'; readonly gzip: boolean };

function formatOf(file: string): Format | undefined {
  const name = file.toLowerCase();
  if (name.endsWith('.parquet')) return { format: 'parquet', gzip: false };
  if (name.endsWith('.jsonl')) return { format: 'jsonl', gzip: false };
  if (name.endsWith('.jsonl.gz')) return { format: 'jsonl', gzip: true };
  if (name.endsWith('.json')) return { format: 'json', gzip: false };
  if (name.endsWith('.json.gz')) return { format: 'json', gzip: true };
  return undefined;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

function isAbort(error: unknown): boolean {
  return errorCode(error) === 'ABORT_ERR' || (error instanceof Error && error.name === 'AbortError');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function fileSize(file: string): Promise<number> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      const where = isAbsolute(file) ? '' : ` (looked for ${resolve(file)})`;
      throw new DatasetInputError('dataset/not-found', { file }, `no such file${where}. Check the path, or run \`gp dataset prepare\` to download the dataset.`);
    }
    throw new DatasetInputError('dataset/unreadable', { file }, `cannot be read (${errorText(error)}). Check the path and its permissions.`);
  }
  if (!info.isFile()) throw new DatasetInputError('dataset/not-a-file', { file }, `is ${info.isDirectory() ? 'a folder' : 'not a regular file'}; pass a .parquet, .jsonl or .json file.`);
  return info.size;
}

/** Opens `file` for reading its rows; rejects with a `DatasetInputError` when it cannot be read at all. */
export async function openRowSource(file: string, options: RowSourceOptions = {}): Promise<RowSource> {
  const { signal } = options;
  throwIfAborted(signal, file);
  const size = await fileSize(file);
  const kind = formatOf(file);
  if (kind === undefined) {
    throw new DatasetInputError(
      'dataset/unknown-format',
      { file },
      'the file name does not say its format; accepted are .parquet, .jsonl, .jsonl.gz, .json and .json.gz. Rename the file if its content is one of these.',
    );
  }
  if (kind.format === 'parquet') return openParquetSource(file, size, signal);
  if (kind.format === 'jsonl') return onceSource(file, 'jsonl', () => readJsonl(file, kind.gzip, signal, options.maxLineBytes ?? defaultMaxLineBytes));
  const items = await readJson(file, size, kind.gzip, signal);
  return onceSource(file, 'json', () => yieldAll(items));
}

/** A source whose rows can be iterated once; a second iteration is a bug in the caller. */
export function onceSource(
  file: string,
  format: RowSource['format'],
  read: () => AsyncIterable<SourceItem>,
  known: { columns?: readonly string[]; rowCount?: number } = {},
): RowSource {
  let used = false;
  return {
    file,
    format,
    columns: known.columns,
    rowCount: known.rowCount,
    rows() {
      if (used) throw new Error(`The rows of ${file} were already read; open the file again to read them again.`);
      used = true;
      return read();
    },
  };
}

async function* yieldAll(items: readonly SourceItem[]): AsyncGenerator<SourceItem> {
  yield* items;
}

// ---------------------------------------------------------------------------------------------
// JSONL: a byte stream split into lines, each checked for UTF-8 before it is decoded.

/** The bytes of the file, gunzipped when its name ends in `.gz`. */
function byteStream(file: string, gzip: boolean, signal: AbortSignal | undefined): Readable {
  const raw = createReadStream(file, { highWaterMark: 1024 * 1024 });
  if (signal !== undefined) addAbortSignal(signal, raw);
  // Errors of either stream destroy the last one, so they reach the caller through its iteration;
  // the callback has nothing left to do.
  return gzip ? pipeline(raw, createGunzip(), () => undefined) : raw;
}

type LinePiece = { readonly kind: 'line'; readonly bytes: Buffer } | { readonly kind: 'too-long' };

/** Splits chunks into lines at `\n`; a line over the limit is dropped as it streams, not held. */
class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;

  constructor(private readonly limit: number) {}

  *push(chunk: Buffer): Generator<LinePiece> {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl < 0 ? chunk.length : nl;
      this.take(chunk.subarray(from, end));
      if (nl < 0) return;
      yield this.finish();
      from = nl + 1;
    }
  }

  /** The last line when the file does not end with a newline. */
  *end(): Generator<LinePiece> {
    if (this.pendingBytes > 0 || this.skipping) yield this.finish();
  }

  private take(piece: Buffer): void {
    if (this.skipping || piece.length === 0) return;
    this.pendingBytes += piece.length;
    if (this.pendingBytes > this.limit) {
      this.skipping = true;
      this.pending = [];
    } else this.pending.push(piece);
  }

  private finish(): LinePiece {
    const [only] = this.pending;
    const piece: LinePiece = this.skipping
      ? { kind: 'too-long' }
      : { kind: 'line', bytes: this.pending.length === 1 && only !== undefined ? only : Buffer.concat(this.pending) };
    this.pending = [];
    this.pendingBytes = 0;
    this.skipping = false;
    return piece;
  }
}

function lineItem(piece: LinePiece, file: string, line: number, limit: number): SourceItem | undefined {
  const place: SourcePlace = { file, line };
  if (piece.kind === 'too-long') {
    return { kind: 'problem', place, column: 1, code: 'dataset/line-too-long', message: `The line is longer than ${limit} bytes and was not read; a dataset row should be far smaller. Check that the file has one JSON object per line.` };
  }
  let bytes = piece.bytes;
  if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
  if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes);
    const shown = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return { kind: 'problem', place, column: columnOfByte(bytes, offset), code: 'dataset/non-utf8', message: `The line is not valid UTF-8 (byte 0x${shown} at byte ${offset + 1} of the line). ${utf8Hint}` };
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8's messages often carry no position, so the scanner finds the offending character.
    const syntax = findSyntaxError(text);
    const column = (syntax?.offset ?? 0) + 1;
    return { kind: 'problem', place, column, code: 'dataset/invalid-json', message: `The line is not valid JSON: ${syntax?.message ?? errorText(error)} Fix the line or remove it.` };
  }
  if (!isRecord(value)) {
    const column = text.length - text.trimStart().length + 1;
    return { kind: 'problem', place, column, code: 'dataset/not-an-object', message: `Expected one JSON object per line, found ${describeValue(value)}.` };
  }
  return { kind: 'row', value, place };
}

/** Maps a failure of the byte stream to an error that says where reading stopped and what to do. */
function streamError(error: unknown, file: string, linesRead: number, gzip: boolean): DatasetInputError {
  if (error instanceof DatasetInputError) return error;
  if (isAbort(error)) {
    return new DatasetInputError('dataset/aborted', { file }, 'reading was interrupted.');
  }
  if (gzip && (errorCode(error) ?? '').startsWith('Z_')) {
    return new DatasetInputError(
      'dataset/corrupt-gzip',
      { file },
      `the gzip data is damaged or cut short after line ${linesRead} (${errorText(error)}); the rows before it were read. Download or compress the file again.`,
    );
  }
  return new DatasetInputError('dataset/unreadable', { file }, `reading stopped after line ${linesRead}: ${errorText(error)}.`);
}

/**
 * Yields one item per non-blank line. A damaged gzip stream is detected only where the damage is,
 * so the rows before it are yielded and then the iteration throws a `DatasetInputError`.
 */
async function* readJsonl(file: string, gzip: boolean, signal: AbortSignal | undefined, limit: number): AsyncGenerator<SourceItem> {
  const splitter = new LineSplitter(limit);
  let line = 0;
  try {
    for await (const chunk of byteStream(file, gzip, signal)) {
      for (const piece of splitter.push(chunk as Buffer)) {
        line++;
        const item = lineItem(piece, file, line, limit);
        if (item !== undefined) yield item;
      }
    }
    for (const piece of splitter.end()) {
      line++;
      const item = lineItem(piece, file, line, limit);
      if (item !== undefined) yield item;
    }
  } catch (error) {
    throw streamError(error, file, line, gzip);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON: one object, a list of objects, or an object wrapping the list.

/** JSON files are parsed whole; larger ones should be JSONL, which streams. */
const maxJsonBytes = 256 * 1024 * 1024;
/** Keys under which a JSON file may wrap its list of rows, checked in this order. */
const wrapperKeys = ['instances', 'tasks', 'data', 'rows'] as const;

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

async function jsonBytes(file: string, size: number, gzip: boolean, signal: AbortSignal | undefined): Promise<Buffer> {
  const tooLarge = () =>
    new DatasetInputError('dataset/too-large', { file }, `holds more than ${maxJsonBytes / 1024 / 1024} MiB of JSON, which is read whole; convert it to JSONL (one object per line), which is read as a stream.`);
  if (!gzip && size > maxJsonBytes) throw tooLarge();
  let bytes: Buffer;
  try {
    bytes = await readFile(file, signal === undefined ? {} : { signal });
  } catch (error) {
    if (isAbort(error)) throw new DatasetInputError('dataset/aborted', { file }, 'reading was interrupted.');
    throw new DatasetInputError('dataset/unreadable', { file }, `cannot be read (${errorText(error)}). Check the file and its permissions.`);
  }
  if (!gzip) return bytes;
  try {
    return await promisify(gunzip)(bytes, { maxOutputLength: maxJsonBytes });
  } catch (error) {
    if (errorCode(error) === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new DatasetInputError('dataset/corrupt-gzip', { file }, `the gzip data is damaged or cut short (${errorText(error)}). Download or compress the file again.`);
  }
}

function decodeJsonText(file: string, bytes: Buffer): string {
  let body = bytes;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
  if (!isUtf8(body)) {
    const offset = firstInvalidUtf8(body);
    const before = body.toString('utf8', 0, offset);
    const { line, column } = lineAndColumn(before, before.length);
    throw new DatasetInputError('dataset/non-utf8', { file, line }, `the file is not valid UTF-8 here. ${utf8Hint}`, column);
  }
  return body.toString('utf8');
}

function parseJsonText(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const syntax = findSyntaxError(text);
    if (syntax === undefined) throw new DatasetInputError('dataset/invalid-json', { file }, `is not valid JSON (${errorText(error)}). Fix the file.`);
    const { line, column } = lineAndColumn(text, syntax.offset);
    // The scanner speaks of lines because it was written for JSONL; here the value is the whole file.
    const message = syntax.message.replace('end of line', 'end of file').replace('; each line must hold exactly one value', '');
    throw new DatasetInputError('dataset/invalid-json', { file, line }, `is not valid JSON: ${message} Fix the file at this place.`, column);
  }
}

/** Reads and parses a JSON file; a file that is not JSON, or holds no objects, rejects here. */
async function readJson(file: string, size: number, gzip: boolean, signal: AbortSignal | undefined): Promise<SourceItem[]> {
  const value = parseJsonText(file, decodeJsonText(file, await jsonBytes(file, size, gzip, signal)));
  let list: unknown[];
  let listName = 'the list';
  if (Array.isArray(value)) list = value;
  else if (isRecord(value)) {
    const key = wrapperKeys.find((k) => Array.isArray(value[k]));
    if (key === undefined) return [{ kind: 'row', value, place: { file } }];
    list = value[key] as unknown[];
    listName = `\`${key}\``;
  } else {
    throw new DatasetInputError(
      'dataset/not-an-object',
      { file },
      `holds ${describeValue(value)}; expected one JSON object, a list of objects, or an object with a list under ${wrapperKeys.map((k) => `\`${k}\``).join(', ')}.`,
    );
  }
  return list.map((item, index): SourceItem => {
    const place: SourcePlace = { file, item: index };
    if (isRecord(item)) return { kind: 'row', value: item, place };
    return { kind: 'problem', place, code: 'dataset/not-an-object', message: `Item ${index} of ${listName} is ${describeValue(item)}; each item must be one JSON object.` };
  });
}
