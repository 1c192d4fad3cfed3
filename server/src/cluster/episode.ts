/**
 * One episode the environment service holds, wherever it runs: in this process's own sandboxes
 * (`ServiceEpisode`) or on a sandbox host the front door routed it to (`RemoteEpisode`,
 * docs/sandbox-hosts.md). The service creates, steps, closes and ends its episodes through this
 * interface alone, so its routes read the same for both.
 */
import type { CloseBody, CloseReply, CreateEpisodeReply, StepReply } from '../protocol/envService.js';
import type { SandboxHostRef, StepTokens, TrajectoryEnd } from '../protocol/runs.js';

export interface Episode {
  readonly id: string;
  /** The sandbox host the episode runs on, for its `episode-start` event; undefined when it runs in the service's own process. */
  readonly sandboxHost: SandboxHostRef | undefined;
  /** True once the episode has ended (done, failed or stopped); a closed one may still be held until it is retired. */
  readonly isDone: boolean;
  /** Settles once the episode has ended, with its end line when one was written. */
  readonly ended: Promise<{ readonly end: TrajectoryEnd } | undefined>;
  /** Waits for the observation after reset and answers the create request with it. */
  started(deadline: number): Promise<CreateEpisodeReply>;
  /** Executes the model's raw reply as turn `turn`; the same turn again returns the same answer. */
  step(turn: number, reply: string, tokens?: StepTokens): Promise<StepReply>;
  /** The scripted policy's reply to the observation the episode waits on (`gp train --smoke` only). */
  policy(): Promise<string>;
  /** Ends the episode (with the reason's penalty when it is not done) and answers with its return. */
  close(reason: CloseBody['reason']): Promise<CloseReply>;
  /** Ends the episode at once (the service is shutting down, or its deadline passed). */
  abort(): Promise<unknown>;
}
