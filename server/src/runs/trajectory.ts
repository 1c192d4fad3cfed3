/**
 * One episode's trajectory file: a `start` line, one `step` line per step, an `end` line. The start
 * line replaces any earlier file atomically (a resumed episode restarts from scratch, never on top
 * of a torn file); the other lines are appended. The reader tolerates a torn last line and says
 * whether the episode finished.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { trajectoryLineSchema, trajectoryStartSchema, type TrajectoryEnd, type TrajectoryStart, type TrajectoryStep } from '../protocol/runs.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { JsonLinesWriter, parseJsonLines, toJsonLine } from './jsonLines.js';

export class TrajectoryWriter {
  private readonly lines: JsonLinesWriter<typeof trajectoryLineSchema>;
  private ended = false;

  private constructor(readonly path: string) {
    this.lines = new JsonLinesWriter(path, trajectoryLineSchema);
  }

  /** Starts the file with its `start` line, replacing whatever was there. */
  static async begin(path: string, start: Omit<TrajectoryStart, 'type'>): Promise<TrajectoryWriter> {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, toJsonLine(trajectoryStartSchema, { type: 'start', ...start }, path));
    return new TrajectoryWriter(path);
  }

  /** A trajectory that is only its `end` line: the episode ended before its environment was reset. */
  static async endOnly(path: string, end: Omit<TrajectoryEnd, 'type'>): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, toJsonLine(trajectoryLineSchema, { type: 'end', ...end }, path));
  }

  step(step: Omit<TrajectoryStep, 'type'>): Promise<void> {
    return this.lines.append({ type: 'step', ...step });
  }

  async end(end: Omit<TrajectoryEnd, 'type'>): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.lines.append({ type: 'end', ...end });
  }
}

export interface TrajectoryRead {
  readonly start: TrajectoryStart | undefined;
  readonly steps: TrajectoryStep[];
  /** Present when the episode finished; a trajectory without it was cut short. */
  readonly end: TrajectoryEnd | undefined;
  /** The last line was torn by a crash mid-write and was left out. */
  readonly torn: boolean;
  /** Lines that are not valid trajectory records (other than a torn last line). */
  readonly problems: string[];
}

export function parseTrajectory(text: string): TrajectoryRead {
  const { records, torn, problems } = parseJsonLines(text, trajectoryLineSchema);
  let start: TrajectoryStart | undefined;
  let end: TrajectoryEnd | undefined;
  const steps: TrajectoryStep[] = [];
  for (const r of records) {
    if (r.type === 'start') start = r;
    else if (r.type === 'step') steps.push(r);
    else end = r;
  }
  return { start, steps, end, torn, problems };
}

/** Reads a trajectory file; undefined when there is none. */
export async function readTrajectory(path: string): Promise<TrajectoryRead | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseTrajectory(text);
}
