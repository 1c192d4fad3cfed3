/**
 * The front door's view of a run's sandbox hosts (docs/sandbox-hosts.md): a small registry the
 * hosts announce themselves to (HTTP, bearer token, loopback unless the hosts run on other
 * machines), a health check of each host every few seconds, and slots handed out as leases,
 * each episode to the host `hostRouting.ts` chooses. A host that stops answering is lost: every
 * lease on it learns so at once (its signal aborts), so its episodes end as infrastructure
 * failures instead of waiting for a host that will never answer, and it takes no new episodes.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { hostHealthSchema, hostRegistrationSchema, type HostRegistration } from '../protocol/sandboxHosts.js';
import { errorMessage } from '../util/errors.js';
import { HostClient, HostHttpError } from './hostClient.js';
import { HttpError, jsonRouter, listenJson, readBody } from './jsonHttp.js';
import { chooseHost, clusterSlots, type HostState, type RouteChoice, type RouteRequest } from './hostRouting.js';

export interface PoolHost {
  readonly registration: HostRegistration;
  readonly client: HostClient;
  /** Aborted when the host is lost, with the reason. */
  readonly lost: AbortSignal;
  /** `host <id> on node <node>`, for messages. */
  readonly name: string;
}

export interface Lease {
  readonly host: PoolHost;
  readonly reason: RouteChoice['reason'];
  /** Gives the slot back; a second call does nothing. */
  release(): void;
}

export interface HostPoolOptions {
  /** Where the registry listens; loopback by default. */
  readonly listen?: string;
  readonly healthIntervalMs?: number;
  readonly log?: (line: string) => void;
}

interface Entry {
  readonly host: PoolHost;
  readonly controller: AbortController;
  /** The registration's images as a set, made once: routing reads it for every episode. */
  readonly images: ReadonlySet<string>;
  busy: number;
  alive: boolean;
  failures: number;
}

const maxBodyBytes = 4 * 1024 * 1024;
/** Health checks a host may miss (no answer in time) before it counts as lost; a refused connection counts at once. */
const missesAllowed = 3;

export class HostPool {
  private readonly entries = new Map<string, Entry>();
  private readonly waiters: (() => void)[] = [];
  private readonly lostListeners: ((host: PoolHost, reason: string) => void)[] = [];
  private readonly server: Server;
  private readonly token = randomBytes(32).toString('base64url');
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: HostPoolOptions = {}) {
    const handle = this.routes();
    this.server = createServer((req, res) => void handle(req, res));
  }

  /** Listens for registrations; returns where hosts register and the token they need. */
  async start(): Promise<{ url: string; token: string }> {
    const url = await listenJson(this.server, this.options.listen ?? '127.0.0.1', 0);
    this.timer = setInterval(() => void this.checkHealth(), this.options.healthIntervalMs ?? 2000);
    this.timer.unref();
    return { url, token: this.token };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.wake();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * Asks every live host to end (each ends its episodes, removes its containers and its scratch
   * folder, then exits) and waits until each stops answering, or `timeoutMs` passes. Ending the Ray
   * job afterwards only ends actors whose hosts are already gone, since Ray kills an actor's
   * children with it, leaving them no time to clean up.
   */
  async shutdownHosts(timeoutMs = 60_000): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    const live = [...this.entries.values()].filter((e) => e.alive);
    live.forEach((e) => (e.alive = false));
    const deadline = Date.now() + timeoutMs;
    await Promise.all(
      live.map(async (entry) => {
        const client = entry.host.client;
        try {
          await client.call({ method: 'POST', path: '/shutdown', body: {}, schema: hostHealthSchema.pick({ ok: true }), timeoutMs: 10_000 });
        } catch {
          return;
        }
        while (Date.now() < deadline) {
          try {
            await client.call({ method: 'GET', path: '/health', schema: hostHealthSchema, timeoutMs: 5_000 });
          } catch (error) {
            if (!(error instanceof HostHttpError)) return;
          }
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
      }),
    );
  }

  /** Called with each host that is lost, once. */
  onLost(listener: (host: PoolHost, reason: string) => void): void {
    this.lostListeners.push(listener);
  }

  /** Adds a host as if it had registered (the registry's route, and tests). */
  register(registration: HostRegistration): PoolHost {
    const existing = this.entries.get(registration.id);
    if (existing !== undefined && existing.alive) return existing.host;
    const controller = new AbortController();
    // Every episode on the host listens to this signal: more than Node's default ten at once is expected.
    setMaxListeners(0, controller.signal);
    const name = `host ${registration.id} (node ${registration.node.slice(0, 12)})`;
    const host: PoolHost = { registration, client: new HostClient(registration.url, registration.token, name), lost: controller.signal, name };
    this.entries.set(registration.id, { host, controller, images: new Set(registration.images), busy: 0, alive: true, failures: 0 });
    this.options.log?.(
      `sandbox host ${registration.id} on node ${registration.node.slice(0, 12)}: ${registration.slots} slot(s), ${registration.images.length} image(s) (${registration.url})`,
    );
    this.wake();
    return host;
  }

  /** Marks a host lost: its leases' signals abort and it gets no more episodes. */
  markLost(id: string, reason: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined || !entry.alive) return;
    entry.alive = false;
    this.options.log?.(`sandbox host ${id} (node ${entry.host.registration.node.slice(0, 12)}) is lost: ${reason}`);
    // The reason alone: a request the abort cuts names the host itself.
    entry.controller.abort(new Error(reason));
    for (const listener of this.lostListeners) listener(entry.host, reason);
    this.wake();
  }

  /**
   * A request to a host got no answer (refused, reset, cut): the host is lost now rather than at
   * its next health check, so no other episode is routed to it meanwhile.
   */
  reportLost(host: PoolHost, error: Error): void {
    if (!host.lost.aborted) this.markLost(host.registration.id, error.message.replace(`${host.name}: `, ''));
  }

  /** The hosts as routing sees them. */
  states(): HostState[] {
    return [...this.entries.values()].map((e) => ({
      id: e.host.registration.id,
      node: e.host.registration.node,
      slots: e.host.registration.slots,
      busy: e.busy,
      alive: e.alive,
      images: e.images,
    }));
  }

  summary(): { slots: number; busy: number; hosts: number } {
    return clusterSlots(this.states());
  }

  /** A slot on the host routing chooses now, or undefined when every live host is full. */
  tryAcquire(request: RouteRequest): Lease | undefined {
    const choice = chooseHost(this.states(), request);
    if (choice === undefined) return undefined;
    const entry = this.entries.get(choice.host.id);
    if (entry === undefined) return undefined;
    entry.busy++;
    let released = false;
    return {
      host: entry.host,
      reason: choice.reason,
      release: () => {
        if (released) return;
        released = true;
        entry.busy--;
        this.wake();
      },
    };
  }

  /** Waits for a free slot; rejects when `signal` aborts or the pool closes. */
  async acquire(request: RouteRequest, signal: AbortSignal): Promise<Lease> {
    for (;;) {
      if (signal.aborted) throw new Error('stopped while waiting for a sandbox slot');
      if (this.closed) throw new Error('the sandbox hosts were shut down');
      const lease = this.tryAcquire(request);
      if (lease !== undefined) return lease;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Waits until `count` live hosts have registered, or gives up after `timeoutMs`. */
  async waitForHosts(count: number, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.summary().hosts < count) {
      if (signal.aborted || this.closed || Date.now() >= deadline) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(500, Math.max(0, deadline - Date.now())));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private async checkHealth(): Promise<void> {
    await Promise.all(
      [...this.entries.values()]
        .filter((e) => e.alive)
        .map(async (entry) => {
          try {
            await entry.host.client.call({ method: 'GET', path: '/health', schema: hostHealthSchema, timeoutMs: 3000 });
            entry.failures = 0;
          } catch (error) {
            // A host that answers with an error is alive; one whose port refuses is gone at once;
            // one that does not answer in time may be busy, and gets a few more checks.
            if (error instanceof HostHttpError) return;
            entry.failures++;
            const refused = /ECONNREFUSED|ECONNRESET|EHOSTUNREACH/.test(errorMessage(error));
            if (refused || entry.failures >= missesAllowed)
              this.markLost(entry.host.registration.id, `its health check failed (${errorMessage(error).replace(`${entry.host.name}: `, '')})`);
          }
        }),
    );
  }

  /** The registry's routes, answered through the one router (jsonHttp.ts). */
  private routes(): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    return jsonRouter({
      token: this.token,
      unauthorised: 'send the registry token from the host spec as Authorization: Bearer <token>',
      routes: [
        { method: 'GET', path: '/health', answer: () => ({ ok: true, ...this.summary() }) },
        {
          method: 'POST',
          path: '/hosts',
          answer: async (req) => {
            if (this.closed) throw new HttpError(503, 'shutting-down', 'the run is ending');
            this.register(await readBody(req, hostRegistrationSchema, maxBodyBytes));
            return { ok: true };
          },
        },
      ],
      miss: (method, path) => new HttpError(404, 'no-such-route', `${method} ${path} is not a route of the sandbox host registry`),
    });
  }
}
