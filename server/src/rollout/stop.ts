/**
 * Why an episode must stop from outside: the run was interrupted (Ctrl-C) or the episode's deadline
 * passed. Work in flight (the agent thinking, a step running) is raced against it, so neither an
 * agent that ignores its AbortSignal nor a slow step can hold the episode past its deadline.
 */
import type { TerminationReason } from '../protocol/observation.js';

/**
 * `max_steps` comes from a trainer's agent loop closing an episode through the environment service
 * when its own turn budget ran out (server/src/cluster/serviceEpisode.ts).
 */
export type StopReason = Extract<TerminationReason, 'interrupted' | 'episode_timeout' | 'max_steps'>;

/** Thrown by `race` when the episode was stopped while it waited. */
export class Stopped extends Error {
  constructor(readonly reason: StopReason) {
    super(`stopped: ${reason}`);
    this.name = 'Stopped';
  }
}

export class EpisodeStop {
  private readonly controller = new AbortController();
  private stopReason: StopReason | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onRunAbort = () => this.stop('interrupted');

  constructor(
    private readonly run: AbortSignal,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.stop('episode_timeout'), timeoutMs);
    if (run.aborted) this.stop('interrupted');
    else run.addEventListener('abort', this.onRunAbort, { once: true });
  }

  /** Aborted when the episode must stop; agents receive it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get reason(): StopReason | undefined {
    return this.stopReason;
  }

  private stop(reason: StopReason): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason;
    this.controller.abort(new Stopped(reason));
  }

  /**
   * Resolves with `work`, or rejects with `Stopped` as soon as the episode stops. Work that loses
   * the race is handed to `abandon` at once (to close a sandbox that is still opening, and to let
   * the run wait for that); its failure is nobody's concern any more.
   */
  race<T>(work: Promise<T>, abandon?: (work: Promise<T>) => void): Promise<T> {
    const reason = this.stopReason;
    if (reason !== undefined) {
      abandon?.(work);
      work.catch(() => undefined);
      return Promise.reject(new Stopped(reason));
    }
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const onAbort = () => {
        settled = true;
        abandon?.(work);
        reject(new Stopped(this.stopReason ?? 'interrupted'));
      };
      this.signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          this.signal.removeEventListener('abort', onAbort);
          if (!settled) resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener('abort', onAbort);
          if (!settled) reject(error);
        },
      );
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.run.removeEventListener('abort', this.onRunAbort);
  }
}
