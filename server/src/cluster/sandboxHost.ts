/**
 * A sandbox host (docs/sandbox-hosts.md): the `gp sandbox-host` process a Ray actor starts on each
 * node that offers sandbox slots. It owns that node's episodes: an environment service of its own
 * (the agent loop's episodes, passed on by the front door) whose episodes each write in a folder
 * of their own and whose close answers with that folder's files, then removes it, whole episodes
 * run with the run's agent (`gp eval --ray`), whose answer carries their files the same way, and
 * the node's containers of this run, reaped when it ends. It registers with the front door's
 * registry once it listens; it never writes outside its scratch folder.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent } from '../agents/index.js';
import type { BackendChoice } from '../protocol/backendChoice.js';
import type { ServiceFile } from '../protocol/envService.js';
import type { SandboxHostRef } from '../protocol/runs.js';
import { runEpisodeBodySchema, type HostRegistration, type HostSpec, type RunEpisodeReply } from '../protocol/sandboxHosts.js';
import { runEpisode, type EpisodeDeps, type PlannedTask } from '../rollout/index.js';
import { collectEpisodeFiles, episodeFileName } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';
import { backoffDelay, waitToRetry, type RetryPolicy } from '../util/retryPolicy.js';
import { z } from 'zod';
import { EnvService } from './envService.js';
import { HostClient } from './hostClient.js';
import { HttpError, readBody, type Route } from './jsonHttp.js';

export interface SandboxHostOptions {
  readonly spec: HostSpec;
  readonly node: string;
  readonly slots: number;
  /** The address to listen on: the node's own address on a cluster, loopback by default. */
  readonly listen: string;
  /** The folder the host's episodes write in; removed when the host ends. */
  readonly scratch: string;
  readonly tasks: ReadonlyMap<string, PlannedTask>;
  /** An episode's parts, writing into the folder given. */
  readonly depsFor: (runDir: string) => EpisodeDeps;
  /** The scripted policy of `gp train --smoke`, when the spec asks for it. */
  readonly scriptedPolicy?: (member: number) => Agent;
  /** The task images the node's daemon holds. */
  readonly images: () => Promise<string[]>;
  /** Removes this run's containers on this node that are still there (the host's own included at its end). */
  readonly reap: (includeLive: boolean) => Promise<number>;
  readonly log: (line: string) => void;
  /** The front door asked the host to end (POST /shutdown), before the Ray job ends its actor. */
  readonly onShutdown?: () => void;
}

/** How long a host keeps trying to reach the registry before it gives up and ends: 20 tries, about half a minute. */
const registerRetries: RetryPolicy = { retries: 19, backoffMs: 1000, maxBackoffMs: 2000 };

export class SandboxHost {
  readonly id: string;
  private service: EnvService | undefined;
  private readonly whole = new Map<string, AbortController>();
  private readonly ref: SandboxHostRef;
  private stopping = false;

  constructor(private readonly options: SandboxHostOptions) {
    this.id = `${options.node.slice(0, 12)}-${randomBytes(4).toString('hex')}`;
    this.ref = { id: this.id, node: options.node };
  }

  private episodeDir(episodeId: string): string {
    return join(this.options.scratch, 'episodes', episodeFileName(episodeId).replace(/\.jsonl$/, ''));
  }

  /** Listens, reaps what a dead predecessor on this node left, and registers with the front door. */
  async start(): Promise<ServiceFile> {
    const { spec } = this.options;
    await mkdir(this.options.scratch, { recursive: true, mode: 0o700 });
    const reaped = await this.options.reap(false).catch(() => 0);
    if (reaped > 0) this.options.log(`sandbox host: removed ${reaped} container(s) of this run an earlier host on this node left behind`);
    this.service = new EnvService({
      runDir: this.options.scratch,
      tasks: this.options.tasks,
      deps: this.options.depsFor,
      episodeRunDir: (id) => this.episodeDir(id),
      sandboxHost: this.ref,
      maxOpen: this.options.slots,
      episodeDeadlineMs: spec.episode_deadline_ms,
      host: this.options.listen,
      log: this.options.log,
      ...(this.options.scriptedPolicy === undefined ? {} : { scriptedPolicy: this.options.scriptedPolicy }),
      ...(spec.prompt === undefined
        ? {}
        : {
            prompt: {
              systemPrompt: spec.prompt.system_prompt,
              ...(spec.prompt.observation_budget === undefined ? {} : { observationBudget: spec.prompt.observation_budget }),
            },
          }),
      routes: this.routes(),
    });
    const file = await this.service.start();
    await this.register(file);
    return file;
  }

  /**
   * Ends every episode, closes their sandboxes, removes the run's containers left on this node, the
   * scratch folder and whatever `cleanUp` removes, all before the listener closes: the front door
   * takes a closed listener as the host's end and then ends the Ray job, whose actor may take this
   * process with it, so nothing may be left to do once the listener is gone.
   */
  async stop(cleanUp?: () => Promise<void>): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.whole.forEach((c) => c.abort());
    const last = async (): Promise<void> => {
      const removed = await this.options.reap(true).catch(() => 0);
      if (removed > 0) this.options.log(`sandbox host: removed ${removed} container(s) of this run at its end`);
      await rm(this.options.scratch, { recursive: true, force: true });
      await cleanUp?.();
    };
    if (this.service === undefined) await last();
    else await this.service.close(last);
  }

  private async register(file: ServiceFile): Promise<void> {
    const body: HostRegistration = {
      id: this.id,
      node: this.options.node,
      url: file.url,
      token: file.token,
      slots: this.options.slots,
      images: await this.options.images(),
      pid: process.pid,
    };
    const registry = this.options.spec.registry;
    const client = new HostClient(registry.url, registry.token, "the front door's registry");
    for (let attempt = 1; ; attempt++) {
      try {
        await client.call({ method: 'POST', path: '/hosts', body, schema: z.object({ ok: z.literal(true) }), timeoutMs: 10_000 });
        this.options.log(`sandbox host ${this.id} on node ${this.options.node}: registered at ${registry.url} with ${this.options.slots} slot(s)`);
        return;
      } catch (error) {
        if (attempt > registerRetries.retries)
          throw new Error(`the front door's registry at ${registry.url} did not take this host after ${attempt} tries: ${errorMessage(error)}`);
        await waitToRetry(backoffDelay(attempt - 1, registerRetries));
      }
    }
  }

  /** The host's own routes, beside its environment service's. */
  private routes(): Route[] {
    return [
      {
        method: 'POST',
        path: '/shutdown',
        answer: () => {
          // Answered first: the service's server closes as the host stops, which waits for open requests.
          setImmediate(() => void this.options.onShutdown?.());
          return { ok: true };
        },
      },
      { method: 'POST', path: '/runs', answer: async (req) => this.runWhole(await readBody(req, runEpisodeBodySchema)) },
      {
        method: 'POST',
        path: '/runs/:episode_id/stop',
        answer: (_req, { episode_id: id = '' }) => {
          this.whole.get(id)?.abort();
          return { ok: true };
        },
      },
    ];
  }

  /** One whole episode with the run's own agent; its files come back in the answer and leave this node. */
  private async runWhole(body: { episode_id: string; task_id: string; attempt: number }): Promise<RunEpisodeReply> {
    if (this.stopping) throw new HttpError(503, 'shutting-down', 'this sandbox host is shutting down');
    const planned = this.options.tasks.get(body.task_id);
    if (planned === undefined) throw new HttpError(404, 'no-such-task', `no task ${body.task_id} in this run's tasks`);
    if (this.whole.has(body.episode_id)) throw new HttpError(409, 'episode-running', `episode ${body.episode_id} already runs on this host`);
    if (this.whole.size + (this.service?.openEpisodes ?? 0) >= this.options.slots)
      throw new HttpError(429, 'too-many-episodes', `this host's ${this.options.slots} slot(s) are taken`);
    const controller = new AbortController();
    this.whole.set(body.episode_id, controller);
    const dir = this.episodeDir(body.episode_id);
    try {
      await rm(dir, { recursive: true, force: true });
      const tracked: Promise<unknown>[] = [];
      let backend: BackendChoice | undefined;
      const result = await runEpisode(
        { episodeId: body.episode_id, task: planned.task, attempt: body.attempt, baseDir: planned.baseDir, source: planned.source },
        this.options.depsFor(dir),
        {
          runDir: dir,
          signal: controller.signal,
          track: (work) => tracked.push(work.catch(() => undefined)),
          sandboxHost: this.ref,
          sandboxOpened: (choice) => (backend = choice),
        },
      );
      await Promise.all(tracked);
      const { type: _type, ...end } = result.end;
      return {
        end,
        trajectory: result.trajectory,
        ...(result.instanceReport === undefined ? {} : { instance_report: result.instanceReport }),
        ...(backend === undefined ? {} : { backend }),
        files: await collectEpisodeFiles(dir),
      };
    } finally {
      this.whole.delete(body.episode_id);
      await rm(dir, { recursive: true, force: true });
    }
  }
}
