/**
 * Append-only JSON Lines files: each record is checked against its schema, then written as one line
 * in one write, so a crash can tear at most the last line (and readers tolerate that). A torn last
 * line is dropped before the first append and after a failed one (util/appendLines.ts), so a record
 * is never glued onto a fragment. Writes to one file from one process are queued, so concurrent
 * episodes never interleave inside a line.
 */
import type { z } from 'zod';
import { LineAppender } from '../util/appendLines.js';

export class RecordError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'RecordError';
  }
}

/** The schema's output for `value`, or a `RecordError` naming the first problem (a bug in the writer). */
export function checkRecord<S extends z.ZodType>(schema: S, value: z.input<S>, path: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RecordError(`${path}: refusing to write an invalid record: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`, path);
  }
  return parsed.data;
}

/** The checked record as one JSON line. */
export function toJsonLine<S extends z.ZodType>(schema: S, value: z.input<S>, path: string): string {
  return `${JSON.stringify(checkRecord(schema, value, path))}\n`;
}

/** Appends to one file; each `append` waits for the ones before it. */
export class JsonLinesWriter<S extends z.ZodType> {
  private queue: Promise<void> = Promise.resolve();
  private readonly appender: LineAppender;

  constructor(
    readonly path: string,
    private readonly schema: S,
  ) {
    this.appender = new LineAppender(path, 'drop');
  }

  /** Rejects with a `RecordError`, writing nothing, when the record does not match the schema. */
  append(value: z.input<S>): Promise<void> {
    let line: string;
    try {
      line = toJsonLine(this.schema, value, this.path);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const next = this.queue.then(() => this.appender.append(line));
    // A failed write must not block the ones after it; the caller still sees its own failure.
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Resolves when every append so far has been written. */
  flush(): Promise<void> {
    return this.queue;
  }
}

export interface ParsedLines<T> {
  readonly records: T[];
  /** The last line was cut short (no newline and not a valid record): a crash mid-write. */
  readonly torn: boolean;
  /** `line N: problem` for lines other than a torn last one that are not valid records. */
  readonly problems: string[];
}

/**
 * Parses JSON Lines text with a schema. A last line without its newline that does not parse is a
 * torn write and is dropped quietly; any other bad line is reported and skipped.
 */
export function parseJsonLines<S extends z.ZodType>(text: string, schema: S): ParsedLines<z.output<S>> {
  const records: z.output<S>[] = [];
  const problems: string[] = [];
  let torn = false;
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const last = i === lines.length - 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (last && !endsWithNewline) torn = true;
      else problems.push(`line ${i + 1}: not JSON (${(error as Error).message})`);
      return;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) records.push(parsed.data);
    else if (last && !endsWithNewline) torn = true;
    else {
      const issue = parsed.error.issues[0];
      problems.push(`line ${i + 1}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
    }
  });
  return { records, torn, problems };
}
