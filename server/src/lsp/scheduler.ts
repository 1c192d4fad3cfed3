/**
 * When documents are validated: a leading- and trailing-edge debounce per document, and
 * cancellation when a document closes or the server shuts down. An edit after a quiet spell is
 * validated at once (the person sees diagnostics in the time the check takes), while a burst of
 * keystrokes within the delay is coalesced into one run after the burst.
 */

/** The scheduling state of one document; its owner keeps it, the scheduler changes it. */
export interface ScheduleState {
  timer: ReturnType<typeof setTimeout> | undefined;
  /** When the last validation started, in clock milliseconds; 0 before the first. */
  lastRunAt: number;
}

/** Time as the scheduler sees it; tests hand in a manual clock. */
export interface Clock {
  now(): number;
  setTimeout(run: () => void, delayMs: number): ReturnType<typeof setTimeout>;
  clearTimeout(timer: ReturnType<typeof setTimeout>): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, delayMs) => setTimeout(run, delayMs),
  clearTimeout: (timer) => clearTimeout(timer),
};

export function newScheduleState(): ScheduleState {
  return { timer: undefined, lastRunAt: 0 };
}

export class Scheduler {
  private readonly pending = new Set<ScheduleState>();
  private stopped = false;

  constructor(private readonly clock: Clock = systemClock) {}

  /**
   * Runs `run` now when `delayMs` is 0 or the document has been quiet for `delayMs`, otherwise
   * once `delayMs` after the last call; a call while a run is pending replaces it.
   */
  schedule(state: ScheduleState, delayMs: number, run: () => void): void {
    if (this.stopped) return;
    const pending = state.timer;
    this.cancel(state);
    const now = this.clock.now();
    if (delayMs <= 0 || (pending === undefined && now - state.lastRunAt >= delayMs)) {
      state.lastRunAt = now;
      run();
      return;
    }
    state.timer = this.clock.setTimeout(() => {
      state.timer = undefined;
      this.pending.delete(state);
      state.lastRunAt = this.clock.now();
      run();
    }, delayMs);
    this.pending.add(state);
  }

  /** Drops the document's pending run, if any. */
  cancel(state: ScheduleState): void {
    if (state.timer !== undefined) this.clock.clearTimeout(state.timer);
    state.timer = undefined;
    this.pending.delete(state);
  }

  /** Drops every pending run and refuses new ones: the server is shutting down. */
  stop(): void {
    this.stopped = true;
    for (const state of [...this.pending]) this.cancel(state);
  }
}
