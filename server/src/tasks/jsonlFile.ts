/**
 * Validates a dataset file from disk as a stream, for files larger than the editor synchronises
 * and for the CLI. Memory is bounded by the longest line (and a line longer than
 * `maxLineBytes` is skipped with an error rather than held), plus one entry per task id for the
 * duplicate check. Bytes are checked for UTF-8 validity here, where they are still bytes.
 */
import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { finding } from '../protocol/index.js';
import { DatasetCheck, type JsonlFinding, type JsonlOptions, type JsonlReport } from './jsonl.js';
import { validateLine } from './lineValidator.js';
import { sampleNotText } from './textCheck.js';

/** Lines longer than this are reported and skipped so that a file without line breaks cannot fill memory. */
export const maxLineBytes = 64 * 1024 * 1024;

export interface FileOptions extends JsonlOptions {
  /** Called for every finding, also those beyond `maxFindings`, in file order. */
  readonly onFinding?: (f: JsonlFinding) => void;
  readonly maxLineBytes?: number;
}

function tooLong(line: number, bytes: number): JsonlFinding {
  return {
    ...finding({
      code: 'jsonl/line-too-long',
      severity: 'error',
      message: `Line is longer than ${bytes} bytes and was not validated; a task entry should be far smaller.`,
      path: [],
    }),
    line,
    start: 0,
    end: 0,
  };
}

/** One buffer for a line's pieces, without copying the common single piece. */
function joined(pieces: readonly Buffer[]): Buffer {
  const [only] = pieces;
  return pieces.length === 1 && only !== undefined ? only : Buffer.concat(pieces);
}

/** What reading a file line by line hands its caller. */
export interface LineVisitor {
  /** A line (zero-based), without its line break and a trailing carriage return. */
  readonly line: (line: number, text: string, validUtf8: boolean) => void;
  /** A line longer than the limit, skipped without being held in memory. */
  readonly tooLong: (line: number) => void;
}

export type LinesRead = { readonly kind: 'read' } | { readonly kind: 'not-text'; readonly reason: NonNullable<ReturnType<typeof sampleNotText>> };

/**
 * Streams `path` line by line; memory is bounded by the longest line up to `limit` bytes. A file
 * whose first bytes are not text is not split at all (its lines would be noise; textCheck.ts).
 * Rejects when it cannot be read. The file validator and the Tasks view's index both read through it.
 */
export async function readFileLines(path: string, limit: number, visit: LineVisitor): Promise<LinesRead> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  let line = 0;
  const finishLine = (bytes: Buffer) => {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0d) end--;
    const raw = bytes.subarray(0, end);
    const text = raw.toString('utf8');
    visit.line(line, text, !text.includes('\ufffd') || isUtf8(raw));
  };
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  let first = true;
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    if (first) {
      first = false;
      const notText = sampleNotText(buf);
      if (notText !== undefined) {
        stream.destroy();
        return { kind: 'not-text', reason: notText };
      }
    }
    let from = 0;
    for (let nl = buf.indexOf(0x0a, from); nl >= 0 || from < buf.length; nl = buf.indexOf(0x0a, from)) {
      const end = nl >= 0 ? nl : buf.length;
      if (!skipping) {
        pending.push(buf.subarray(from, end));
        pendingBytes += end - from;
        if (pendingBytes > limit) {
          skipping = true;
          pending = [];
          visit.tooLong(line);
        }
      }
      if (nl < 0) break;
      if (!skipping) finishLine(joined(pending));
      pending = [];
      pendingBytes = 0;
      skipping = false;
      line++;
      from = nl + 1;
    }
  }
  if (pendingBytes > 0 && !skipping) finishLine(joined(pending));
  return { kind: 'read' };
}

/** Validates the file at `path`; rejects when it cannot be read. */
export async function validateJsonlFile(path: string, options: FileOptions = {}): Promise<JsonlReport> {
  const limit = options.maxLineBytes ?? maxLineBytes;
  const max = options.maxFindings ?? Number.POSITIVE_INFINITY;
  const check = new DatasetCheck();
  const findings: JsonlFinding[] = [];
  const emit = (fs: readonly JsonlFinding[]) => {
    for (const f of fs) {
      options.onFinding?.(f);
      if (findings.length < max) findings.push(f);
    }
  };
  const read = await readFileLines(path, limit, {
    line: (line, text, validUtf8) => emit(check.add(line, text, validateLine(text, { validUtf8 }))),
    tooLong: (line) => emit([check.addUnread(tooLong(line, limit))]),
  });
  if (read.kind === 'not-text') {
    // A file that is not text gets one finding; its lines would be noise (textCheck.ts).
    emit([check.addUnread(read.reason)]);
    return { findings, summary: check.summary() };
  }
  emit(check.finish());
  return { findings, summary: check.summary() };
}
