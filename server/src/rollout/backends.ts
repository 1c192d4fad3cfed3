/**
 * Which backends a run's episodes ran on, counted once per episode, with every distinct reason
 * `auto` fell back to the local backend. The run reports it in `status.json` and `report.json`,
 * and announces each fall-back reason once, however many episodes it concerns.
 */
import type { BackendSummary, TrajectoryStart } from '../protocol/runs.js';
import type { BackendChoice, BackendFallback } from '../protocol/backendChoice.js';
import { sandboxBackendNames, type OpenedBackendName } from '../protocol/sandboxBackends.js';

export class BackendTally {
  private readonly episodes = Object.fromEntries(sandboxBackendNames.map((name) => [name, 0])) as BackendSummary['episodes'];
  private readonly fallbacks = new Map<string, BackendFallback & { episodes: number }>();

  /** Counts one episode's backend; returns its fall-back when this reason was not seen before. */
  add(backend: OpenedBackendName, fallback: BackendFallback | undefined): BackendFallback | undefined {
    this.episodes[backend] += 1;
    if (fallback === undefined) return undefined;
    // The same reason for many episodes is one fall-back; the code alone would merge different images.
    const key = `${fallback.code}\n${fallback.reason}`;
    const seen = this.fallbacks.get(key);
    if (seen !== undefined) {
      seen.episodes += 1;
      return undefined;
    }
    this.fallbacks.set(key, { ...fallback, episodes: 1 });
    return fallback;
  }

  addChoice(choice: BackendChoice): BackendFallback | undefined {
    return this.add(choice.backend, choice.fallback);
  }

  /** An episode finished by an earlier process, as its trajectory's first line recorded it. */
  addStart(start: TrajectoryStart): void {
    this.add(start.backend, start.backend_fallback);
  }

  get empty(): boolean {
    return Object.values(this.episodes).every((n) => n === 0);
  }

  summary(): BackendSummary {
    return { episodes: { ...this.episodes }, fallbacks: [...this.fallbacks.values()].map((f) => ({ ...f })) };
  }
}
