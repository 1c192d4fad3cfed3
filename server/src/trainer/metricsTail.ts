/**
 * Copies Verl's file-logger lines into the run's `metrics.jsonl`. Verl opens its file with "wb",
 * so each attempt (each launch or resume) gets its own file (`verl_metrics/attempt-<k>.jsonl`),
 * and only complete lines are copied: a line Verl is still writing is read on the next poll.
 * Non-numeric values are dropped (the metrics page draws numbers; Python's NaN reads as null); a line that is not Verl's
 * shape is reported once through `warn` and skipped, never copied half-understood.
 */
import { open } from 'node:fs/promises';
import { verlFileLoggerLineSchema, type MetricsLine } from '../protocol/metrics.js';
import { errorMessage } from '../util/errors.js';
import { isoTimestamp } from '../util/time.js';

export interface MetricsTailOptions {
  readonly source: string;
  readonly attempt: number;
  readonly append: (line: MetricsLine) => Promise<void>;
  readonly warn: (message: string) => void;
  readonly pollMs?: number;
}

export class MetricsTail {
  private offset = 0;
  private pending = '';
  private lineNo = 0;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();
  /** Steps copied so far, in order. */
  readonly steps: number[] = [];

  constructor(private readonly options: MetricsTailOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? 1000);
  }

  /** Reads what is left (the trainer has exited) and stops polling. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.poll();
  }

  /** One read of whatever the file gained since the last; serialised so lines keep their order. */
  poll(): Promise<void> {
    this.reading = this.reading.then(() => this.readMore()).catch((error: unknown) => this.options.warn(`metrics: ${errorMessage(error)}`));
    return this.reading;
  }

  private async readMore(): Promise<void> {
    let handle;
    try {
      handle = await open(this.options.source, 'r');
    } catch {
      return; // Verl creates the file when its logger starts.
    }
    try {
      const { size } = await handle.stat();
      if (size < this.offset) {
        this.options.warn(`${this.options.source} shrank from ${this.offset} to ${size} bytes; reading it again from the start`);
        this.offset = 0;
        this.pending = '';
      }
      if (size === this.offset) return;
      const buffer = Buffer.alloc(size - this.offset);
      await handle.read(buffer, 0, buffer.length, this.offset);
      this.offset = size;
      const text = this.pending + buffer.toString('utf8');
      const lines = text.split('\n');
      this.pending = lines.pop() ?? '';
      for (const line of lines) await this.copy(line);
    } finally {
      await handle.close();
    }
  }

  private async copy(text: string): Promise<void> {
    this.lineNo++;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = parsePythonJson(text);
    } catch (error) {
      this.options.warn(`${this.options.source}:${this.lineNo}: not JSON (${errorMessage(error)}); skipped`);
      return;
    }
    const parsed = verlFileLoggerLineSchema.safeParse(value);
    if (!parsed.success) {
      this.options.warn(`${this.options.source}:${this.lineNo}: not a Verl file-logger line ({"step": n, "data": {...}}); skipped`);
      return;
    }
    const data: Record<string, number> = {};
    for (const [key, v] of Object.entries(parsed.data.data)) if (typeof v === 'number' && Number.isFinite(v)) data[key] = v;
    await this.options.append({ source: 'verl', ts: isoTimestamp(new Date()), attempt: this.options.attempt, step: parsed.data.step, data });
    this.steps.push(parsed.data.step);
  }
}

/**
 * Python's `json.dumps` writes NaN and infinities as bare `NaN` / `Infinity`, which JSON.parse
 * refuses; Verl's metrics hold them (the standard deviation of one sample). They are read as null,
 * so the line is kept and only those values are left out.
 */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const patched = text.replace(/([:[,]\s*)-?(?:NaN|Infinity)(?=\s*[,}\]])/g, '$1null');
    if (patched === text) throw error;
    return JSON.parse(patched);
  }
}
