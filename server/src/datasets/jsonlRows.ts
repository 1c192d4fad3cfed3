/**
 * JSONL rows: a byte stream (gunzipped for `.gz`) split into lines, each checked for UTF-8 before
 * it is decoded, so a bad byte is reported with its line and column and the next line still reads.
 * Memory is bounded by the longest line; a line over the limit is dropped as it streams.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { addAbortSignal, pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { findSyntaxError } from '../tasks/index.js';
import {
  columnOfByte,
  DatasetInputError,
  describeValue,
  errorCode,
  firstInvalidUtf8,
  isAbort,
  utf8Hint,
  type SourceItem,
  type SourcePlace,
} from './sourceItems.js';
import { isRecord } from '../util/isRecord.js';
import { errorMessage } from '../util/errors.js';

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
    return {
      kind: 'problem',
      place,
      column: 1,
      code: 'dataset/line-too-long',
      message: `The line is longer than ${limit} bytes and was not read; a dataset row should be far smaller. Check that the file has one JSON object per line.`,
    };
  }
  let bytes = piece.bytes;
  if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
  if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes);
    const shown = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return {
      kind: 'problem',
      place,
      column: columnOfByte(bytes, offset),
      code: 'dataset/non-utf8',
      message: `The line is not valid UTF-8 (byte 0x${shown} at byte ${offset + 1} of the line). ${utf8Hint}`,
    };
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
    return {
      kind: 'problem',
      place,
      column,
      code: 'dataset/invalid-json',
      message: `The line is not valid JSON: ${syntax?.message ?? errorMessage(error)} Fix the line or remove it.`,
    };
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
      `the gzip data is damaged or cut short after line ${linesRead} (${errorMessage(error)}); the rows before it were read. Download or compress the file again.`,
    );
  }
  return new DatasetInputError('dataset/unreadable', { file }, `reading stopped after line ${linesRead}: ${errorMessage(error)}.`);
}

/**
 * Yields one item per non-blank line. A damaged gzip stream is detected only where the damage is,
 * so the rows before it are yielded and then the iteration throws a `DatasetInputError`.
 */
export async function* readJsonl(file: string, gzip: boolean, signal: AbortSignal | undefined, limit: number): AsyncGenerator<SourceItem> {
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
