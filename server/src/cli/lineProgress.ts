/**
 * A single progress line for long commands that are not rollouts (downloads, conversions). On a
 * terminal the line is redrawn in place at most ten times a second; elsewhere (a log, CI) a plain
 * line is printed at most every five seconds, so a log stays readable.
 */
import type { ProgressSink } from './progress.js';
import { visibleLine } from '../protocol/terminalText.js';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export class LineProgress {
  private last = 0;
  private drawn = false;

  constructor(
    private readonly sink: ProgressSink,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Shows `text` now if enough time passed since the last one (always when `force`). */
  update(text: string, force = false): void {
    const now = this.clock();
    const interval = this.sink.isTTY ? 100 : 5000;
    if (!force && now - this.last < interval) return;
    this.last = now;
    if (this.sink.isTTY) {
      const width = (this.sink.columns ?? 80) - 1;
      this.sink.write(`\r\u001b[2K${visibleLine(text).slice(0, Math.max(0, width))}`);
      this.drawn = true;
    } else this.sink.write(`${visibleLine(text)}\n`);
  }

  /** Ends the redrawn line so the next output starts on its own line. */
  done(): void {
    if (this.sink.isTTY && this.drawn) this.sink.write('\n');
    this.drawn = false;
  }
}
