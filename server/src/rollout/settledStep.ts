/**
 * One environment step as an episode records it: the step, then the records it writes (pre-images,
 * test logs) settled on disk before its line names them. Their writing counts as the environment's
 * time, as it did when the step waited for them. The episode's live steps and a fork's replayed
 * steps take it alike (episode.ts, forkPrefix.ts).
 */
import type { Action, ProtocolError } from '../protocol/actions.js';
import type { PlannerEnv, StepOutcome } from '../env/index.js';
import type { EpisodeStop } from './stop.js';

export async function settledStep(env: PlannerEnv, input: Action | ProtocolError, stop: EpisodeStop): Promise<{ outcome: StepOutcome; envMs: number }> {
  const outcome = await stop.race(env.step(input));
  const settling = performance.now();
  await env.settled?.();
  return { outcome, envMs: outcome.timings.env_ms + (performance.now() - settling) };
}
