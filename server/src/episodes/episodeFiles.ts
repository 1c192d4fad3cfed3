/**
 * The trajectories the viewer has open, kept parsed. Reading again after the file grew parses only
 * the bytes appended since (a running episode appends one line per step); a file replaced by a new
 * `start` line (a resumed episode starts over, through an atomic rename, so a new inode) or one that
 * shrank is read from scratch. A line that is not a valid record is kept as a problem with its line
 * number, never fatal; an unterminated last line is the torn tail of a write in progress or a crash.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { trajectoryLineSchema, type TrajectoryEnd, type TrajectoryStart, type TrajectoryStep } from '../protocol/runs.js';
import { viewOfStep, type EpisodeModel, type StepView } from './episodeModel.js';

interface Entry {
  ino: number;
  /** Bytes read, up to and including the last newline. */
  consumed: number;
  lines: number;
  start: TrajectoryStart | undefined;
  steps: StepView[];
  end: TrajectoryEnd | undefined;
  torn: boolean;
  problems: string[];
}

export interface EpisodeLoad {
  readonly model: EpisodeModel;
  /** True when the file was replaced or shrank since the last load: earlier steps are void. */
  readonly rewritten: boolean;
}

export class EpisodeFiles {
  private readonly entries = new Map<string, Entry>();
  /** One load at a time per file, so two callers never read the same bytes twice. */
  private readonly loading = new Map<string, Promise<EpisodeLoad>>();

  /** The episode as the file holds it now; throws when the file cannot be read. */
  load(path: string): Promise<EpisodeLoad> {
    const running = this.loading.get(path);
    const next = (running ?? Promise.resolve()).catch(() => undefined).then(() => this.read(path));
    const settled = next.finally(() => {
      if (this.loading.get(path) === settled) this.loading.delete(path);
    });
    this.loading.set(path, settled);
    return settled;
  }

  /** The model last loaded, without touching the file. */
  cached(path: string): EpisodeModel | undefined {
    const entry = this.entries.get(path);
    return entry === undefined ? undefined : modelOf(entry);
  }

  forget(path: string): void {
    this.entries.delete(path);
  }

  private async read(path: string): Promise<EpisodeLoad> {
    // The size and inode come from the open file, so a replacement landing meanwhile is read whole next time, not mixed in.
    const handle = await open(path, 'r');
    try {
      const info = await handle.stat();
      let entry = this.entries.get(path);
      let rewritten = false;
      if (entry === undefined || entry.ino !== info.ino || info.size < entry.consumed) {
        rewritten = entry !== undefined;
        entry = { ino: info.ino, consumed: 0, lines: 0, start: undefined, steps: [], end: undefined, torn: false, problems: [] };
        this.entries.set(path, entry);
      }
      if (info.size > entry.consumed) await readFrom(handle, entry, info.size);
      return { model: modelOf(entry), rewritten };
    } finally {
      await handle.close();
    }
  }
}

async function readFrom(handle: FileHandle, entry: Entry, size: number): Promise<void> {
  let bytes = Buffer.alloc(size - entry.consumed);
  const { bytesRead } = await handle.read(bytes, 0, bytes.length, entry.consumed);
  bytes = bytes.subarray(0, bytesRead);
  const lastNewline = bytes.lastIndexOf(0x0a);
  const complete = lastNewline < 0 ? '' : bytes.subarray(0, lastNewline + 1).toString('utf8');
  entry.torn =
    bytes
      .subarray(lastNewline + 1)
      .toString('utf8')
      .trim() !== '';
  entry.consumed += lastNewline + 1;
  const lines = complete.split('\n');
  lines.pop();
  for (const line of lines) {
    entry.lines++;
    if (line.trim() !== '') take(entry, line);
  }
}

function take(entry: Entry, line: string): void {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    entry.problems.push(`line ${entry.lines}: not JSON (${(error as Error).message})`);
    return;
  }
  const parsed = trajectoryLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    entry.problems.push(`line ${entry.lines}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
    return;
  }
  const record = parsed.data;
  if (record.type === 'start') entry.start = record;
  else if (record.type === 'end') entry.end = record;
  else entry.steps.push(viewOfStep(record as TrajectoryStep, entry.steps.at(-1)?.cumulative ?? 0));
}

function modelOf(entry: Entry): EpisodeModel {
  return { start: entry.start, steps: entry.steps, end: entry.end, cutShort: entry.end === undefined, torn: entry.torn, problems: entry.problems };
}
