/**
 * One training episode the front door has routed to a sandbox host (docs/sandbox-hosts.md): the
 * agent loop's requests are passed on to the host, which runs the episode as a `ServiceEpisode`
 * in a folder of its own under the id the front door gave it; the host's answer to the close
 * carries the episode's end line and files, written here into the run folder, so a run's records
 * are the same wherever its episodes ran. When the host is lost the episode ends at once as an
 * infrastructure failure (`host-lost`): its end line is written here, the client's next request is
 * answered `episode-failed`, and the agent loop masks the sample.
 */
import type { CloseBody, CloseReply, CreateEpisodeBody, CreateEpisodeReply, StepBody, StepReply } from '../protocol/envService.js';
import { createEpisodeReplySchema, policyReplySchema, stepReplySchema } from '../protocol/envService.js';
import type { SandboxHostRef, StepTokens, TrajectoryEnd } from '../protocol/runs.js';
import { hostCloseReplySchema, type HostCloseReply } from '../protocol/sandboxHosts.js';
import { runLayout, TrajectoryWriter, writeEpisodeFiles } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';
import type { Episode } from './episode.js';
import { HostHttpError, HostLostError } from './hostClient.js';
import type { Lease } from './hostPool.js';
import { EpisodeConflict } from './serviceEpisode.js';

export interface RemoteEpisodeOptions {
  readonly episodeId: string;
  readonly taskId: string;
  readonly lease: Lease;
  /** The client's create request, with the episode id the front door gave and the group member it counted. */
  readonly body: CreateEpisodeBody;
  readonly runDir: string;
  readonly onEnded: (result: { end: TrajectoryEnd } | undefined) => void;
  /** Tells the pool the host did not answer, so it routes nothing more there. */
  readonly reportLost?: (error: Error) => void;
  readonly log?: (line: string) => void;
}

const path = (id: string, action: string): string => `/episodes/${encodeURIComponent(id)}/${action}`;

export class RemoteEpisode implements Episode {
  readonly id: string;
  readonly ended: Promise<{ end: TrajectoryEnd } | undefined>;
  private settle!: (result: { end: TrajectoryEnd } | undefined) => void;
  private closing: Promise<CloseReply> | undefined;
  private done = false;
  private finished = false;
  private lostEnd: TrajectoryEnd | undefined;
  private readonly startedAt = Date.now();
  private chain: Promise<unknown> = Promise.resolve();
  private losing: Promise<void> | undefined;

  constructor(private readonly options: RemoteEpisodeOptions) {
    this.id = options.episodeId;
    this.ended = new Promise((resolve) => (this.settle = resolve));
    const lost = options.lease.host.lost;
    const onLost = (): void => void this.lose(lost.reason instanceof Error ? lost.reason.message : 'the sandbox host was lost');
    if (lost.aborted) onLost();
    else lost.addEventListener('abort', onLost, { once: true });
  }

  get sandboxHost(): SandboxHostRef {
    const { id, node } = this.options.lease.host.registration;
    return { id, node };
  }

  get isDone(): boolean {
    return this.done;
  }

  async started(deadline: number): Promise<CreateEpisodeReply> {
    const reply = await this.call(() =>
      this.host.call({ method: 'POST', path: '/episodes', body: this.options.body, schema: createEpisodeReplySchema, signal: this.options.lease.host.lost }),
    );
    // The host keeps the id the body gave; the front door's deadline is the one the client keeps.
    return { ...reply, deadline };
  }

  /** Passes the reply and the policy's tokens behind it on to the host, which records them in the step. */
  step(turn: number, reply: string, tokens?: StepTokens): Promise<StepReply> {
    const body: StepBody = { turn, reply, ...(tokens === undefined ? {} : { tokens }) };
    const run = this.chain.then(() =>
      this.call(() => this.host.call({ method: 'POST', path: path(this.id, 'step'), body, schema: stepReplySchema, signal: this.options.lease.host.lost })),
    );
    this.chain = run.catch(() => undefined);
    return run.then((answer) => {
      if (answer.done) this.done = true;
      return answer;
    });
  }

  policy(): Promise<string> {
    return this.call(() =>
      this.host.call({ method: 'GET', path: path(this.id, 'policy'), schema: policyReplySchema, signal: this.options.lease.host.lost }),
    ).then((r) => r.reply);
  }

  /**
   * Closes the episode on its host, writes the files and end line the host answers with into the
   * run folder and gives the slot back; asked again (the client's close and the deadline's), it
   * answers from the one close.
   */
  close(reason: CloseBody['reason']): Promise<CloseReply> {
    this.closing ??= this.closeNow(reason);
    return this.closing;
  }

  private async closeNow(reason: CloseBody['reason']): Promise<CloseReply> {
    await this.chain;
    let answer: HostCloseReply | undefined;
    let failure: unknown;
    try {
      answer = await this.call(() =>
        this.host.call({ method: 'POST', path: path(this.id, 'close'), body: { reason }, schema: hostCloseReplySchema, signal: this.options.lease.host.lost }),
      );
    } catch (error) {
      failure = error;
    }
    if (this.lostEnd === undefined) await this.collect(answer);
    if (failure !== undefined) throw failure;
    if (answer === undefined) throw new EpisodeConflict('episode-failed', `episode ${this.id} has no return`);
    const { outcome } = answer;
    // A close the host refused is a conflict of the episode's (409), passed on as the host told it.
    if ('error' in outcome) throw new HostHttpError(409, outcome.error.code, outcome.error.message);
    return outcome;
  }

  /** Ends the episode from outside (the front door is shutting down, or its deadline passed). */
  async abort(): Promise<{ end: TrajectoryEnd } | undefined> {
    if (this.finished) return undefined;
    await this.close('interrupted').catch(() => undefined);
    return undefined;
  }

  private get host() {
    return this.options.lease.host.client;
  }

  /** A call to the host; a lost host ends the episode, and the client hears `episode-failed`. */
  private async call<T>(request: () => Promise<T>): Promise<T> {
    if (this.lostEnd !== undefined) {
      // Answered once its end line is written, so whoever hears `episode-failed` finds the record.
      await this.losing;
      throw this.lostConflict();
    }
    try {
      return await request();
    } catch (error) {
      if (error instanceof HostLostError) {
        this.options.reportLost?.(error);
        await this.lose(error.message);
        throw this.lostConflict();
      }
      if (error instanceof HostHttpError && error.code === 'episode-failed') this.done = true;
      throw error;
    }
  }

  private lostConflict(): EpisodeConflict {
    return new EpisodeConflict(
      'episode-failed',
      `episode ${this.id} reached no outcome because the infrastructure failed (host-lost: ${this.lostEnd?.infrastructure?.cause ?? 'the sandbox host was lost'})`,
    );
  }

  /** The host is gone, and with it what the episode wrote there: its end line says so. */
  private lose(cause: string): Promise<void> {
    this.losing ??= this.loseNow(cause);
    return this.losing;
  }

  private async loseNow(cause: string): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.done = true;
    const end: TrajectoryEnd = {
      type: 'end',
      episode_id: this.id,
      task_id: this.options.taskId,
      resolved: false,
      steps: 0,
      total_reward: 0,
      termination_reason: 'error',
      duration_ms: Date.now() - this.startedAt,
      patch: '',
      error: cause,
      infrastructure: { code: 'host-lost', cause },
    };
    this.lostEnd = end;
    const { type: _type, ...line } = end;
    await TrajectoryWriter.endOnly(runLayout(this.options.runDir).trajectory(this.id), line).catch((error: unknown) =>
      this.options.log?.(`episode ${this.id}: its end line could not be written: ${errorMessage(error)}`),
    );
    this.options.lease.release();
    this.announce({ end });
  }

  /** Writes a closed episode's files and end line from its host's answer into the run folder, then frees the slot. */
  private async collect(answer: HostCloseReply | undefined): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.done = true;
    let end: TrajectoryEnd | undefined;
    try {
      if (answer !== undefined) {
        await writeEpisodeFiles(this.options.runDir, answer.files);
        end = answer.end === undefined ? undefined : { type: 'end', ...answer.end };
      }
    } catch (error) {
      this.options.log?.(`episode ${this.id}: its records could not be brought from ${this.options.lease.host.name}: ${errorMessage(error)}`);
    } finally {
      this.options.lease.release();
    }
    this.announce(end === undefined ? undefined : { end });
  }

  /** Tells the service, and whoever waits on `ended`, how the episode ended. */
  private announce(result: { end: TrajectoryEnd } | undefined): void {
    this.options.onEnded(result);
    this.settle(result);
  }
}
