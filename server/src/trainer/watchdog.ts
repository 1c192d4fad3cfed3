/**
 * Notices a trainer that has stopped making progress: Verl on a machine it cannot use hangs
 * without a word (docs/trainer-bridge.md#installing). Every log line, metric and episode event
 * calls `touch()`; when none has come for `limitMs`, `onStall` runs once.
 */
export class Watchdog {
  private last = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private fired = false;

  constructor(
    private readonly limitMs: number,
    private readonly onStall: (quietMs: number) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.last = now();
  }

  start(checkMs = Math.min(5000, Math.max(100, this.limitMs / 10))): void {
    this.timer = setInterval(() => this.check(), checkMs);
    this.timer.unref();
  }

  touch(): void {
    this.last = this.now();
  }

  check(): void {
    const quiet = this.now() - this.last;
    if (this.fired || quiet < this.limitMs) return;
    this.fired = true;
    this.onStall(quiet);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
