/**
 * Reading a run's `events.jsonl` (or another of its append-only JSON Lines files, such as a
 * verification's `verdicts.jsonl`) as it grows, without reading it whole again: each `read` takes the
 * bytes appended since the last one. A line still being written (no newline yet) waits for the next
 * read; a file that got shorter (truncated) or was replaced by another (a new run) is read again
 * from its start, and the reader says so; a file or folder that disappeared yields nothing and says
 * so. Bad lines are problems with their line numbers, never exceptions, so one torn write cannot
 * stop a view.
 */
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { z } from 'zod';
import { runEventSchema, type RunEvent } from '../protocol/runs.js';
import { errorMessage } from '../util/errors.js';

export interface TailRead {
  readonly events: RunEvent[];
  /** `events.jsonl:<line>: what is wrong`, for each complete line that is not a valid event. */
  readonly problems: string[];
  /** The file got shorter since the last read, so everything was read again from the start. */
  readonly restarted: boolean;
  /** The file does not exist (yet, or any more). */
  readonly missing: boolean;
}

/** What one read of a `JsonLinesTail` brought: the records of the lines completed since the last read. */
export interface LinesRead<T> extends Omit<TailRead, 'events'> {
  readonly records: T[];
}

export class EventTail {
  private readonly lines: JsonLinesTail<RunEvent>;

  constructor(readonly path: string) {
    this.lines = new JsonLinesTail(path, runEventSchema);
  }

  /** Bytes after the last newline read so far: a line being written, or a file cut off mid-line. */
  get partialBytes(): number {
    return this.lines.partialBytes;
  }

  async read(): Promise<TailRead> {
    const { records, ...rest } = await this.lines.read();
    return { events: records, ...rest };
  }
}

/** Any append-only JSON Lines file of a run, each complete line checked against `schema`. */
export class JsonLinesTail<T> {
  private offset = 0;
  private line = 0;
  /** The file's inode at the last read: a new file in its place (a new run) starts over too. */
  private inode: number | undefined;
  /** Bytes of a line whose newline has not arrived yet. */
  private pending: Buffer = Buffer.alloc(0);

  private readonly name: string;

  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<T>,
  ) {
    this.name = basename(path);
  }

  /** Bytes after the last newline read so far: a line being written, or a file cut off mid-line. */
  get partialBytes(): number {
    return this.pending.length;
  }

  async read(): Promise<LinesRead<T>> {
    let handle;
    try {
      handle = await open(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], problems: [], restarted: false, missing: true };
      throw error;
    }
    try {
      const { size, ino } = await handle.stat();
      const restarted = size < this.offset || (this.inode !== undefined && ino !== this.inode);
      if (restarted) this.reset();
      this.inode = ino;
      const length = size - this.offset;
      const chunk = Buffer.alloc(length);
      let read = 0;
      while (read < length) {
        const { bytesRead } = await handle.read(chunk, read, length - read, this.offset + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      this.offset += read;
      return { ...this.parse(Buffer.concat([this.pending, chunk.subarray(0, read)])), restarted, missing: false };
    } finally {
      await handle.close();
    }
  }

  private reset(): void {
    this.offset = 0;
    this.line = 0;
    this.pending = Buffer.alloc(0);
  }

  private parse(bytes: Buffer): { records: T[]; problems: string[] } {
    const records: T[] = [];
    const problems: string[] = [];
    let start = 0;
    for (let nl = bytes.indexOf(10, start); nl >= 0; nl = bytes.indexOf(10, start)) {
      const text = bytes.subarray(start, nl).toString('utf8');
      start = nl + 1;
      this.line += 1;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        problems.push(`${this.name}:${this.line}: not JSON (${errorMessage(error)})`);
        continue;
      }
      const parsed = this.schema.safeParse(value);
      if (parsed.success) records.push(parsed.data);
      else
        problems.push(`${this.name}:${this.line}: ${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'not a valid record'}`);
    }
    this.pending = Buffer.from(bytes.subarray(start));
    return { records, problems };
  }
}
