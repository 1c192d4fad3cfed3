/** `events.jsonl`: the run's progress, one checked line per event, append-only. */
import { readFile } from 'node:fs/promises';
import { runEventSchema, type RunEvent } from '../protocol/runs.js';
import { JsonLinesWriter, parseJsonLines, type ParsedLines } from './jsonLines.js';
import { isoTimestamp } from '../util/time.js';

/** An event without its timestamp; the log stamps it when it is written. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'ts'> : never) : never;

export class EventLog {
  private readonly writer: JsonLinesWriter<typeof runEventSchema>;

  constructor(
    readonly path: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.writer = new JsonLinesWriter(path, runEventSchema);
  }

  append(event: RunEventInput): Promise<void> {
    return this.writer.append({ ts: isoTimestamp(this.now()), ...event } as RunEvent);
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }
}

export async function readEvents(path: string): Promise<ParsedLines<RunEvent>> {
  try {
    return parseJsonLines(await readFile(path, 'utf8'), runEventSchema);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], torn: false, problems: [] };
    throw error;
  }
}
