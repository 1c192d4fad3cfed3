/**
 * When the Containers view is refreshed: Docker's event stream, filtered to our label, is followed
 * while somebody watches the view and not otherwise. Events come in bursts (a stop is kill, die and
 * stop), so they are debounced into one refresh; refreshes never overlap; a slow poll catches what
 * no event reports (an owner process dying); a stream that ends is reopened with a growing delay,
 * and the daemon coming back refreshes the view. Every refresh carries the reason it happened.
 *
 * This is the lesson of vscode-docker's polling storms (issues #959, #1351, #1358): a 1 s poll kept
 * the daemon busy even with the sidebar closed. Events are the hint, the poll the safety net.
 */
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type Docker from 'dockerode';
import { sandboxLabels } from '../protocol/sandbox.js';
import { errorMessage } from '../util/errors.js';

/**
 * The container actions that change what the view shows. `exec_*` events (every sandbox command
 * is one) and health checks are left out: a busy rollout would otherwise refresh the view
 * continuously.
 */
export const listedContainerActions = ['create', 'start', 'restart', 'stop', 'die', 'kill', 'oom', 'pause', 'unpause', 'destroy', 'rename', 'update'] as const;

/** The daemon-side filter of the stream: our containers' listed actions, nothing else. */
export const containerEventFilters = { type: ['container' as const], label: [sandboxLabels.run], event: [...listedContainerActions] };

/** The part of a Node readable stream the follower uses; tests hand in a `PassThrough`. */
export interface EventStream {
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(): unknown;
}

/** Opens the filtered event stream; rejects when the daemon does not answer. */
export type OpenEvents = () => Promise<EventStream>;

/** Cancels a timer set with `FollowerClock.after`. */
export type Cancel = () => void;

/** Time as the follower sees it; tests hand in a manual clock. */
export interface FollowerClock {
  now(): number;
  after(delayMs: number, run: () => void): Cancel;
}

export const systemFollowerClock: FollowerClock = {
  now: () => Date.now(),
  after: (delayMs, run) => {
    const timer = setTimeout(run, delayMs);
    return () => clearTimeout(timer);
  },
};

export interface FollowerOptions {
  readonly open: OpenEvents;
  /** Reads the list and tells the client; never called twice at once. */
  readonly refresh: (reason: string) => Promise<void>;
  /** One line per thing worth knowing later: connections, losses, retries, failed refreshes. */
  readonly log: (line: string) => void;
  readonly clock?: FollowerClock;
  /** Quiet time after an event before refreshing (a burst becomes one refresh). */
  readonly debounceMs?: number;
  /** The longest a steady stream of events may hold a refresh back. */
  readonly maxWaitMs?: number;
  /** The fallback poll: a refresh after this long without one, while watching. */
  readonly pollMs?: number;
  /** The first delay before reopening a lost stream; it doubles up to `maxRetryMs`. */
  readonly firstRetryMs?: number;
  readonly maxRetryMs?: number;
}

/** Docker's event record, as far as a reason needs it. */
interface DockerEvent {
  readonly Type?: string;
  readonly Action?: string;
  readonly Actor?: { readonly ID?: string; readonly Attributes?: Record<string, string> };
}

/**
 * The reason a line of the event stream gives for a refresh: `event: die 1a2b3c4d5e6f (run/task)`,
 * or undefined for a line that is not a listed container action.
 */
export function eventReason(line: string): string | undefined {
  let event: DockerEvent;
  try {
    event = JSON.parse(line) as DockerEvent;
  } catch {
    return undefined;
  }
  if (typeof event !== 'object' || event === null || event.Type !== 'container') return undefined;
  const action = event.Action ?? '';
  if (!(listedContainerActions as readonly string[]).includes(action)) return undefined;
  const attributes = event.Actor?.Attributes ?? {};
  const owner = [attributes[sandboxLabels.run], attributes[sandboxLabels.task]].filter((part) => part !== undefined).join('/');
  return `event: ${action} ${(event.Actor?.ID ?? '').slice(0, 12)}${owner ? ` (${owner})` : ''}`;
}

/** Several reasons as one: the first three, and how many more. */
export function combineReasons(reasons: readonly string[]): string {
  const unique = [...new Set(reasons)];
  const shown = unique.slice(0, 3).join('; ');
  return unique.length > 3 ? `${shown}; and ${unique.length - 3} more` : shown;
}

export class ContainerEventFollower {
  private readonly clock: FollowerClock;
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;
  private readonly pollMs: number;
  private readonly firstRetryMs: number;
  private readonly maxRetryMs: number;
  private watchingNow = false;
  private stopped = false;
  /** Bumped whenever watching starts or stops, so that callbacks of an older stream do nothing. */
  private generation = 0;
  private stream: EventStream | undefined;
  private retry: Cancel | undefined;
  private retryMs: number;
  /** Why the stream is down, from its loss until it is open again; one refresh per outage. */
  private outage: string | undefined;
  private pending: string[] = [];
  private pendingSince: number | undefined;
  private debounce: Cancel | undefined;
  private poll: Cancel | undefined;
  private refreshing = false;
  /** Reasons that arrived while a refresh ran; they make one more refresh after it. */
  private queued: string[] = [];

  constructor(private readonly options: FollowerOptions) {
    this.clock = options.clock ?? systemFollowerClock;
    this.debounceMs = options.debounceMs ?? 150;
    this.maxWaitMs = options.maxWaitMs ?? 1_000;
    this.pollMs = options.pollMs ?? 30_000;
    this.firstRetryMs = options.firstRetryMs ?? 1_000;
    this.maxRetryMs = options.maxRetryMs ?? 30_000;
    this.retryMs = this.firstRetryMs;
  }

  get watching(): boolean {
    return this.watchingNow;
  }

  /** Starts or stops following (the view became visible or hidden). Nothing runs while not watching. */
  watch(watching: boolean): void {
    if (watching === this.watchingNow || (watching && this.stopped)) return;
    this.watchingNow = watching;
    this.generation++;
    if (watching) {
      this.options.log('watching: following Docker events for our containers');
      this.connect();
      this.armPoll();
    } else {
      this.options.log('not watching: event stream closed, no polling');
      this.close();
    }
  }

  /** Asks for a refresh through the debounce, e.g. after an action; ignored while not watching. */
  nudge(reason: string): void {
    this.request(reason);
  }

  /** Stops for good (the server shuts down). */
  stop(): void {
    this.watch(false);
    this.stopped = true;
  }

  private connect(): void {
    const generation = this.generation;
    this.options.open().then(
      (stream) => {
        if (generation !== this.generation) {
          stream.destroy();
          return;
        }
        this.follow(stream, generation);
        const after = this.outage;
        this.outage = undefined;
        this.retryMs = this.firstRetryMs;
        // Events between the last list and now were missed, so the list is read again.
        const reason = after === undefined ? 'event stream connected' : `event stream reconnected (it was down: ${after})`;
        this.options.log(reason);
        this.request(reason);
      },
      (error: unknown) => {
        if (generation === this.generation) this.lost(`the event stream could not be opened: ${errorMessage(error)}`, generation);
      },
    );
  }

  private follow(stream: EventStream, generation: number): void {
    this.stream = stream;
    const decoder = new StringDecoder('utf8');
    let partial = '';
    stream.on('data', (chunk) => {
      if (generation !== this.generation) return;
      const lines = (partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk))).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const reason = line.trim() === '' ? undefined : eventReason(line);
        if (reason !== undefined) this.request(reason);
      }
    });
    const ended = (why: string) => {
      if (generation !== this.generation || this.stream !== stream) return;
      this.stream = undefined;
      stream.destroy();
      this.lost(why, generation);
    };
    stream.on('end', () => ended('the event stream ended'));
    stream.on('close', () => ended('the event stream closed'));
    stream.on('error', (error) => ended(`the event stream failed: ${errorMessage(error)}`));
  }

  /** The stream is down: refresh once (the list says whether the daemon answers), then retry. */
  private lost(why: string, generation: number): void {
    if (this.outage === undefined) {
      this.outage = why;
      this.request(why);
    }
    const delayMs = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, this.maxRetryMs);
    this.options.log(`${why}; reopening in ${delayMs} ms`);
    this.retry = this.clock.after(delayMs, () => {
      this.retry = undefined;
      if (generation === this.generation) this.connect();
    });
  }

  private request(reason: string): void {
    if (!this.watchingNow) return;
    const now = this.clock.now();
    this.pending.push(reason);
    this.pendingSince ??= now;
    this.debounce?.();
    const delayMs = Math.max(0, Math.min(this.debounceMs, this.pendingSince + this.maxWaitMs - now));
    this.debounce = this.clock.after(delayMs, () => {
      this.debounce = undefined;
      const reasons = this.pending;
      this.pending = [];
      this.pendingSince = undefined;
      if (reasons.length > 0) void this.run(combineReasons(reasons));
    });
  }

  private async run(reason: string): Promise<void> {
    if (!this.watchingNow) return;
    if (this.refreshing) {
      this.queued.push(reason);
      return;
    }
    this.refreshing = true;
    this.poll?.();
    this.poll = undefined;
    try {
      await this.options.refresh(reason);
    } catch (error) {
      this.options.log(`refresh (${reason}) failed: ${errorMessage(error)}`);
    } finally {
      this.refreshing = false;
    }
    const next = this.queued;
    this.queued = [];
    if (!this.watchingNow) return;
    if (next.length > 0) await this.run(combineReasons(next));
    else this.armPoll();
  }

  private armPoll(): void {
    this.poll?.();
    this.poll = this.clock.after(this.pollMs, () => {
      this.poll = undefined;
      this.request(`poll: no refresh for ${Math.round(this.pollMs / 1000)} s`);
    });
  }

  private close(): void {
    const stream = this.stream;
    this.stream = undefined;
    stream?.destroy();
    for (const cancel of [this.retry, this.debounce, this.poll]) cancel?.();
    this.retry = this.debounce = this.poll = undefined;
    this.pending = [];
    this.pendingSince = undefined;
    this.queued = [];
    this.outage = undefined;
    this.retryMs = this.firstRetryMs;
  }
}

/**
 * Opens our filtered event stream on `docker`. Give it a client without a request `timeout`:
 * docker-modem would cut a stream that stays quiet that long.
 */
export function dockerEvents(docker: Docker): OpenEvents {
  return async () => {
    const stream = await docker.getEvents({ filters: containerEventFilters });
    if (!(stream instanceof Readable)) throw new Error('the Docker client returned an event stream that is not a Node stream');
    return stream;
  };
}
