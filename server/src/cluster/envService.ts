/**
 * The environment service: HTTP on loopback (by default) through which a trainer's agent loop runs
 * episodes in our sandboxes. Every request needs `Authorization: Bearer <token>`; the URL and the
 * token are written to a 0600 file in the run directory (`env_service.json`), never passed where
 * another client could read them back. Episodes are created (idempotent on the client's key),
 * stepped with the model's raw reply (idempotent on the turn) and closed; the bodies are declared
 * in `protocol/envService.ts`. Open episodes are capped (429 with `Retry-After`), each has a
 * server-side deadline after which the service ends it itself, and `close()` ends every open
 * episode and closes its sandbox. Episodes land in the run directory as a rollout's do: their
 * trajectories, and `episode-start` / `episode-end` lines in `events.jsonl`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import {
  closeBodySchema,
  createEpisodeBodySchema,
  stepBodyMaxBytes,
  stepBodySchema,
  type CloseBody,
  type CloseReply,
  type CreateEpisodeBody,
  type CreateEpisodeReply,
  type HealthReply,
  type PolicyReply,
  type ServiceFile,
} from '../protocol/envService.js';
import type { HostCloseReply } from '../protocol/sandboxHosts.js';
import type { SandboxHostRef, TrainingGroup, TrajectoryEnd } from '../protocol/runs.js';
import type { Agent } from '../agents/index.js';
import type { EpisodeDeps, PlannedTask } from '../rollout/index.js';
import { collectEpisodeFiles, EventLog, runLayout } from '../runs/index.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { errorMessage } from '../util/errors.js';
import type { Episode } from './episode.js';
import { HttpError, jsonRouter, listenJson, readBody, send, type Route } from './jsonHttp.js';
import type { HostPool } from './hostPool.js';
import { RemoteEpisode } from './remoteEpisode.js';
import { EpisodeConflict, ServiceEpisode, type ServicePrompt } from './serviceEpisode.js';

export interface EnvServiceOptions {
  readonly runDir: string;
  /** The tasks episodes may be created for, by task id. */
  readonly tasks: ReadonlyMap<string, PlannedTask>;
  /**
   * The parts of an episode (sandbox, environment), as a rollout of the same config gets them; a
   * function when they depend on the folder the episode writes in (a sandbox host's).
   */
  readonly deps: EpisodeDeps | ((runDir: string) => EpisodeDeps);
  /**
   * Where an episode writes its records: the run folder by default; a folder of its own on a
   * sandbox host, whose close then answers with the folder's files and the episode's end line and
   * removes the folder (docs/sandbox-hosts.md).
   */
  readonly episodeRunDir?: (episodeId: string) => string;
  /** The sandbox host this service is (docs/sandbox-hosts.md), written into its trajectories. */
  readonly sandboxHost?: SandboxHostRef;
  /** The front door of a Ray cluster's sandbox hosts: episodes run on the host the pool chooses. */
  readonly hosts?: HostPool;
  /** More routes (a sandbox host's), tried after the health check and before the service's own. */
  readonly routes?: readonly Route[];
  /** Open episodes allowed at once; more are answered 429. */
  readonly maxOpen: number;
  /** Past this, from its creation, the service ends an episode itself. */
  readonly episodeDeadlineMs: number;
  readonly host?: string;
  readonly port?: number;
  /** A fixed token (tests); a fresh random one by default. */
  readonly token?: string;
  readonly log?: (line: string) => void;
  /** Called when an episode has ended and its end line is written (the trainer records its figures). */
  readonly onEpisodeEnd?: (end: TrajectoryEnd) => void;
  /**
   * The training step an episode that ends now belongs to (`gp train`: the step whose metrics line
   * comes next, once the trainer's metrics written so far are read), for its `episode-end` event;
   * undefined when it is not known.
   */
  readonly trainingStep?: () => number | undefined | Promise<number | undefined>;
  /**
   * Makes a scripted policy for each episode and serves its replies (`gp train --smoke` only);
   * `member` counts the episodes of the episode's group before it (0 for the first).
   */
  readonly scriptedPolicy?: (member: number) => Agent;
  /** The experiment's planner prompt (`prompts.*`) the agent loop is told to send; the built-in one when absent. */
  readonly prompt?: ServicePrompt;
}

/** Seconds a client told 429 should wait before asking again. */
const retryAfterSeconds = 5;
/**
 * How many closed episodes keep their close reply, so a client that retries a close gets the same
 * answer; older ones are forgotten (404). A training run closes thousands of episodes, and each
 * open one holds its environment and observations: closed ones keep only this small record.
 */
const maxRetiredKept = 10_000;
/** An episode that ended (its deadline, a failure) and was never closed is retired after this. */
const unclosedGraceMs = 10 * 60 * 1000;

/** What a closed episode leaves: its close answer, given again to a retried close. */
type Retired = { readonly ok: true; readonly reply: CloseReply } | { readonly ok: false; readonly error: EpisodeConflict };
export const serviceFileName = 'env_service.json';

export class EnvService {
  private readonly server: Server;
  private readonly token: string;
  private readonly episodes = new Map<string, Episode>();
  private readonly retired = new Map<string, Retired>();
  private readonly byClientKey = new Map<string, string>();
  private readonly deadlines = new Map<string, NodeJS.Timeout>();
  private readonly events: EventLog;
  private closing = false;
  private readonly groupSizes = new Map<string, number>();
  /** `episode-end` events being appended (each waits for its training step). */
  private readonly endEvents = new Set<Promise<void>>();

  constructor(private readonly options: EnvServiceOptions) {
    this.token = options.token ?? randomBytes(32).toString('base64url');
    this.events = new EventLog(runLayout(options.runDir).events);
    const handle = this.routes(options.routes ?? []);
    this.server = createServer((req, res) => void handle(req, res));
  }

  /** Listens, writes the service file (0600) and returns it. */
  async start(): Promise<ServiceFile> {
    const file: ServiceFile = {
      url: await listenJson(this.server, this.options.host ?? '127.0.0.1', this.options.port ?? 0),
      token: this.token,
      pid: process.pid,
    };
    const path = join(this.options.runDir, serviceFileName);
    await mkdir(this.options.runDir, { recursive: true });
    // Created 0600, so the token is never readable by others, not even for a moment.
    await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`, 0o600);
    await chmod(path, 0o600);
    this.options.log?.(`Environment service on ${file.url} (token in ${path}).`);
    return file;
  }

  get openEpisodes(): number {
    return [...this.episodes.values()].filter((e) => !e.isDone).length;
  }

  /** Episodes the service holds whole: open ones, and ended ones not yet closed by the client. */
  get heldEpisodes(): number {
    return this.episodes.size;
  }

  /**
   * Stops taking requests, ends every open episode (closing its sandbox), stops listening and
   * removes the service file, so no client finds a service that is gone.
   */
  async close(beforeListenerCloses?: () => Promise<void>): Promise<void> {
    this.closing = true;
    this.deadlines.forEach((t) => clearTimeout(t));
    await Promise.allSettled([...this.episodes.values()].map((e) => e.abort()));
    await Promise.allSettled([...this.endEvents]);
    await this.events.flush();
    await beforeListenerCloses?.().catch(() => undefined);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(join(this.options.runDir, serviceFileName), { force: true });
  }

  /** The service's routes after `extra` (a sandbox host's), answered through the one router (jsonHttp.ts). */
  private routes(extra: readonly Route[]): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    return jsonRouter({
      token: this.token,
      unauthorised: 'send Authorization: Bearer <token> with the token from env_service.json in the run directory',
      routes: [
        { method: 'GET', path: '/health', answer: () => ({ ok: true, open: this.openEpisodes }) satisfies HealthReply },
        ...extra,
        {
          method: 'GET',
          path: '/episodes/:episode_id/policy',
          answer: async (_req, { episode_id: id = '' }) => ({ reply: await this.episode(id).policy() }) satisfies PolicyReply,
        },
        {
          method: 'POST',
          path: '/episodes',
          answer: async (req) => {
            this.refuseWhenClosing();
            return this.create(await readBody(req, createEpisodeBodySchema));
          },
        },
        {
          method: 'POST',
          path: '/episodes/:episode_id/close',
          answer: async (req, { episode_id: id = '' }, res) => {
            this.refuseWhenClosing();
            return this.closeRequest(id, await readBody(req, closeBodySchema), res);
          },
        },
        {
          method: 'POST',
          path: '/episodes/:episode_id/step',
          answer: async (req, { episode_id: id = '' }) => {
            this.refuseWhenClosing();
            const episode = this.episode(id);
            const { turn, reply, tokens } = await readBody(req, stepBodySchema, stepBodyMaxBytes);
            return episode.step(turn, reply, tokens);
          },
        },
      ],
      // Every route but two is a POST, so any other method is the wrong one for this service.
      miss: (method, path) => {
        if (method !== 'POST') return new HttpError(405, 'method-not-allowed', `${method} ${path} is not a route of the environment service`);
        if (this.closing) return this.shuttingDown();
        return new HttpError(404, 'no-such-route', `POST ${path} is not a route of the environment service`);
      },
      failed: (error, status, req, res) => {
        if (status === 429) res.setHeader('Retry-After', String(retryAfterSeconds));
        if (status === 500) this.options.log?.(`Environment service: ${req.method ?? '?'} ${req.url ?? ''} failed: ${errorMessage(error)}`);
      },
    });
  }

  /** Episodes' requests are refused once the service is closing; its health and a host's own routes are still answered. */
  private refuseWhenClosing(): void {
    if (this.closing) throw this.shuttingDown();
  }

  private shuttingDown(): HttpError {
    return new HttpError(503, 'shutting-down', 'the environment service is shutting down');
  }

  private episode(id: string): Episode {
    const episode = this.episodes.get(id);
    if (episode === undefined) throw this.unknownEpisode(id);
    return episode;
  }

  /** A close, answered again as it was for a retried one; a sandbox host's answers with the episode's files. */
  private async closeRequest(id: string, { reason }: CloseBody, res: ServerResponse): Promise<CloseReply | undefined> {
    const retired = this.retired.get(id);
    if (retired !== undefined) {
      if (retired.ok) return retired.reply;
      throw retired.error;
    }
    const episode = this.episode(id);
    const folder = this.options.episodeRunDir?.(id);
    if (folder === undefined) return this.closeAndRetire(id, episode, reason);
    await this.closeAndHandBack(res, id, episode, reason, folder);
    return undefined;
  }

  /** 409 for an episode that was closed (its whole state is gone), 404 for one never known. */
  private unknownEpisode(id: string): Error {
    if (this.retired.has(id)) return new EpisodeConflict('episode-ended', `episode ${id} has ended and was closed; only its close can be asked again`);
    return new HttpError(404, 'no-such-episode', `no episode ${id}`);
  }

  /**
   * Closes an episode and keeps only its close answer: the episode's environment, sandbox and
   * observations are let go, so a long run holds its open episodes, not every one it ever ran.
   */
  private async closeAndRetire(id: string, episode: Episode, reason: CloseBody['reason']): Promise<CloseReply> {
    try {
      const reply = await episode.close(reason);
      this.retire(id, { ok: true, reply });
      return reply;
    } catch (error) {
      if (error instanceof EpisodeConflict) this.retire(id, { ok: false, error });
      throw error;
    }
  }

  /**
   * A sandbox host's close: the front door is answered with the close's outcome, the episode's end
   * line and the files of its folder, so it needs no other request to fill the run folder; the
   * folder is removed once the answer is sent.
   */
  private async closeAndHandBack(res: ServerResponse, id: string, episode: Episode, reason: CloseBody['reason'], folder: string): Promise<void> {
    let outcome: HostCloseReply['outcome'];
    try {
      outcome = await this.closeAndRetire(id, episode, reason);
    } catch (error) {
      if (!(error instanceof EpisodeConflict)) throw error;
      outcome = { error: { code: error.code, message: error.message } };
    }
    const files = await collectEpisodeFiles(folder);
    const ended = await episode.ended;
    if (ended === undefined) send(res, 200, { outcome, files } satisfies HostCloseReply);
    else {
      const { type: _type, ...end } = ended.end;
      send(res, 200, { outcome, end, files } satisfies HostCloseReply);
    }
    await rm(folder, { recursive: true, force: true });
  }

  private retire(id: string, record: Retired): void {
    if (!this.episodes.delete(id)) return;
    this.retired.set(id, record);
    for (const oldest of this.retired.keys()) {
      if (this.retired.size <= maxRetiredKept) break;
      this.retired.delete(oldest);
    }
  }

  /** How many episodes of `group` came before this one. */
  private groupMember(group: string | undefined): number {
    const key = group ?? '';
    const member = this.groupSizes.get(key) ?? 0;
    this.groupSizes.set(key, member + 1);
    return member;
  }

  private async create(request: CreateEpisodeBody): Promise<CreateEpisodeReply> {
    const known = this.byClientKey.get(request.client_key);
    const existing = known === undefined ? undefined : this.episodes.get(known);
    if (existing !== undefined) return existing.started(0);
    if (known !== undefined && this.retired.has(known))
      throw new EpisodeConflict('episode-ended', `the episode of this client key (${known}) has ended and was closed; use a new client key for a new episode`);
    const planned = this.options.tasks.get(request.task_id);
    if (planned === undefined) throw new HttpError(404, 'no-such-task', `no task ${request.task_id} in this run's tasks`);
    if (this.openEpisodes >= this.options.maxOpen)
      throw new HttpError(429, 'too-many-episodes', `${this.options.maxOpen} episodes are open; close one or retry in ${retryAfterSeconds} s`);
    const episodeId = episodeIdOfRequest(request);
    const deadline = Date.now() + this.options.episodeDeadlineMs;
    const member = request.group_member ?? this.groupMember(request.group_id);
    // Only an episode whose agent loop named its GRPO group is a training group's member.
    const group: TrainingGroup | undefined = request.group_id === undefined ? undefined : { group_id: request.group_id, group_member: member };
    const onEnded = (result: { end: TrajectoryEnd } | undefined): void => {
      clearTimeout(this.deadlines.get(episodeId));
      this.deadlines.delete(episodeId);
      // An episode that ended without its client closing it (its deadline, a lost client) is
      // retired after a grace period, so it does not hold its state for the rest of the run.
      setTimeout(() => {
        const held = this.episodes.get(episodeId);
        if (held !== undefined && !this.closing) void this.closeAndRetire(episodeId, held, 'interrupted').catch(() => undefined);
      }, unclosedGraceMs).unref();
      const end = result?.end;
      if (end !== undefined) {
        this.options.onEpisodeEnd?.(end);
        // The step is asked for first (the trainer reads the metrics written so far), so the
        // event is appended once it is known; close() waits for these appends.
        const appended = Promise.resolve(this.options.trainingStep?.())
          .then((step) => {
            const training = group === undefined ? undefined : { ...group, ...(step === undefined ? {} : { step }) };
            return this.events.append({
              kind: 'episode-end',
              episode_id: end.episode_id,
              task_id: end.task_id,
              resolved: end.resolved,
              steps: end.steps,
              total_reward: end.total_reward,
              termination_reason: end.termination_reason,
              duration_ms: end.duration_ms,
              ...(end.infrastructure === undefined ? {} : { infrastructure: end.infrastructure }),
              ...(training === undefined ? {} : { training }),
            });
          })
          .catch((error: unknown) => this.options.log?.(`Environment service: events.jsonl: ${errorMessage(error)}`))
          .finally(() => this.endEvents.delete(appended));
        this.endEvents.add(appended);
      }
    };
    let episode: Episode;
    if (this.options.hosts !== undefined) {
      // The front door of a cluster's sandbox hosts: the episode runs where routing puts it, and
      // the group's member number travels with it, so a group spread over hosts stays one group.
      const lease = this.options.hosts.tryAcquire({
        ...(request.worker_node === undefined ? {} : { workerNode: request.worker_node }),
        ...(planned.task.sandbox.docker_image === undefined ? {} : { image: planned.task.sandbox.docker_image }),
      });
      if (lease === undefined) {
        const { hosts, slots } = this.options.hosts.summary();
        throw new HttpError(
          429,
          'no-free-slot',
          `every sandbox slot is taken (${slots} on ${hosts} host${hosts === 1 ? '' : 's'}); retry in ${retryAfterSeconds} s`,
        );
      }
      const pool = this.options.hosts;
      episode = new RemoteEpisode({
        episodeId,
        taskId: request.task_id,
        lease,
        body: { ...request, group_member: member, episode_id: episodeId },
        runDir: this.options.runDir,
        onEnded,
        reportLost: (error) => pool.reportLost(lease.host, error),
        ...(this.options.log === undefined ? {} : { log: this.options.log }),
      });
    } else {
      const runDir = this.options.episodeRunDir?.(episodeId) ?? this.options.runDir;
      const deps = typeof this.options.deps === 'function' ? this.options.deps(runDir) : this.options.deps;
      // Registered before anything is awaited, so two requests with one client key make one episode.
      episode = new ServiceEpisode({
        spec: { episodeId, task: planned.task, attempt: 1, baseDir: planned.baseDir, source: planned.source },
        deps,
        runDir,
        ...(this.options.sandboxHost === undefined ? {} : { sandboxHost: this.options.sandboxHost }),
        ...(group === undefined ? {} : { training: group }),
        ...(this.options.scriptedPolicy === undefined ? {} : { scriptedPolicy: this.options.scriptedPolicy(member) }),
        ...(this.options.prompt === undefined ? {} : { prompt: this.options.prompt }),
        onEnded,
      });
    }
    this.episodes.set(episodeId, episode);
    this.byClientKey.set(request.client_key, episodeId);
    const host = episode.sandboxHost;
    await this.events.append({
      kind: 'episode-start',
      episode_id: episodeId,
      task_id: request.task_id,
      ...(host === undefined ? {} : { sandbox_host: host }),
      ...(group === undefined ? {} : { training: group }),
    });
    this.deadlines.set(
      episodeId,
      setTimeout(() => {
        this.options.log?.(`Environment service: episode ${episodeId} passed its deadline; ending it.`);
        void episode.abort();
      }, this.options.episodeDeadlineMs),
    );
    return episode.started(deadline);
  }
}

/**
 * The id of the episode a create request asks for: the one the front door of a cluster's sandbox
 * hosts gave it, or else one made from the task, the group and the client's key, so a repeated
 * request names the same episode.
 */
function episodeIdOfRequest(request: CreateEpisodeBody): string {
  if (request.episode_id !== undefined) return request.episode_id;
  const key = createHash('sha256').update(request.client_key).digest('hex').slice(0, 12);
  return `${request.task_id}-${request.group_id === undefined ? '' : `${request.group_id}-`}${key}`;
}
