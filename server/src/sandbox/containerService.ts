/**
 * What the Containers view asks of Docker: our containers with whether the daemon answered, one
 * action on one container (stop, remove, inspect, logs), reaping orphans, and the filtered event
 * stream. Failures are values with a message a person can act on; nothing here throws for a daemon
 * that is away.
 */
import type Docker from 'dockerode';
import type { ContainerActionParams, ContainerActionResult, ContainersListResult, ContainersReapResult, DockerReach } from '../protocol/containersView.js';
import { sandboxLabels } from '../protocol/sandbox.js';
import { withDeadline } from '../util/deadline.js';
import { listContainers, reapContainers } from './containers.js';
import { dockerEvents, type OpenEvents } from './containerEvents.js';
import { dockerLocation, newDocker } from './dockerClient.js';
import { DockerFrameParser } from './dockerStream.js';
import { dockerErrorMessage } from './images/imageError.js';

/** What to do when the daemon does not answer; the view's welcome text says the same at more length. */
export const daemonHint =
  'Start Docker (`sudo systemctl start docker`, or `dockerd`), point DOCKER_HOST at a running engine, or run episodes on the local backend (`sandbox.backend: local`).';

export interface ContainerServiceOptions {
  /** Only this run's containers (tests on a shared engine); every run of ours by default. */
  readonly run?: string;
  /** The client for requests and events; by default one for each, from the environment (DOCKER_HOST). */
  readonly docker?: Docker;
  /** How long a list or an action may take before the daemon counts as away. */
  readonly timeoutMs?: number;
  /** The most log lines an action returns (the newest). */
  readonly logLines?: number;
}

/** The Containers view's side of the engine; `lsp/containerRequests.ts` wires it to the client. */
export interface ContainerBackend {
  list(): Promise<ContainersListResult>;
  action(params: ContainerActionParams): Promise<ContainerActionResult>;
  reap(): Promise<ContainersReapResult>;
  readonly openEvents: OpenEvents;
}

function statusCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { statusCode?: unknown }).statusCode : undefined;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export class ContainerService implements ContainerBackend {
  private requestClient: Docker | undefined;
  private eventClient: Docker | undefined;
  private readonly timeoutMs: number;
  private readonly logLines: number;
  readonly openEvents: OpenEvents;

  constructor(private readonly options: ContainerServiceOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.logLines = options.logLines ?? 5_000;
    this.openEvents = async () => dockerEvents(await this.events())();
  }

  async list(): Promise<ContainersListResult> {
    try {
      const found = listContainers({ all: true, docker: await this.docker(), ...(this.options.run === undefined ? {} : { run: this.options.run }) });
      const containers = await withDeadline(found, this.timeoutMs, 'no answer from the Docker daemon');
      return { daemon: { reachable: true }, containers };
    } catch (error) {
      return { daemon: this.unreachable(error), containers: [] };
    }
  }

  async action({ id, action }: ContainerActionParams): Promise<ContainerActionResult> {
    const container = (await this.docker()).getContainer(id);
    let info: Docker.ContainerInspectInfo;
    try {
      info = await withDeadline(container.inspect(), this.timeoutMs, 'no answer from the Docker daemon');
    } catch (error) {
      if (statusCode(error) === 404) return { ok: action === 'remove', message: `Container ${id.slice(0, 12)} is already gone.`, text: null };
      return { ok: false, message: `Could not ${action} container ${id.slice(0, 12)}: ${dockerErrorMessage(error)}`, text: null };
    }
    const name = info.Name.replace(/^\//, '') || id.slice(0, 12);
    // The view lists only our containers; a request for any other is refused, not obeyed.
    if (info.Config.Labels?.[sandboxLabels.run] === undefined) {
      return { ok: false, message: `Container ${name} has no ${sandboxLabels.run} label, so it is not Graph Planner's; use docker itself.`, text: null };
    }
    try {
      switch (action) {
        case 'inspect':
          return { ok: true, message: `Inspected ${name}.`, text: `${JSON.stringify(info, null, 2)}\n` };
        case 'logs':
          return await this.logs(container, info, name);
        case 'stop':
          return await this.stop(container, info, name);
        case 'remove':
          await withDeadline(container.remove({ force: true, v: true }), this.timeoutMs, 'no answer from the Docker daemon');
          return { ok: true, message: `Removed ${name}.`, text: null };
      }
    } catch (error) {
      if (action === 'remove' && statusCode(error) === 404) return { ok: true, message: `Container ${name} is already gone.`, text: null };
      return { ok: false, message: `Could not ${action} ${name}: ${dockerErrorMessage(error)}`, text: null };
    }
  }

  async reap(): Promise<ContainersReapResult> {
    let result;
    try {
      result = await reapContainers({ docker: await this.docker(), ...(this.options.run === undefined ? {} : { run: this.options.run }) });
    } catch (error) {
      const daemon = this.unreachable(error);
      return { removed: 0, failed: 0, message: `${daemon.reason} ${daemon.hint}` };
    }
    const removed = result.removed.length;
    const failed = result.failed.length;
    const kept = result.kept.length;
    if (removed + failed === 0) return { removed, failed, message: `No orphaned container (${plural(kept, 'container')} with a live owner kept).` };
    const failures = result.failed.map((f) => `${f.container.name || f.container.id.slice(0, 12)}: ${f.error}`).join('; ');
    const message =
      failed === 0
        ? `Removed ${plural(removed, 'orphaned container')}.`
        : `Removed ${plural(removed, 'orphaned container')}; ${failed} could not be removed (${failures}).`;
    return { removed, failed, message };
  }

  private async stop(container: Docker.Container, info: Docker.ContainerInspectInfo, name: string): Promise<ContainerActionResult> {
    if (!info.State.Running) return { ok: true, message: `${name} is not running.`, text: null };
    try {
      // Docker waits `t` seconds after SIGTERM before it kills; the deadline allows for that wait.
      await withDeadline(container.stop({ t: 5 }), this.timeoutMs + 5_000, 'no answer from the Docker daemon');
    } catch (error) {
      // 304: it stopped on its own meanwhile.
      if (statusCode(error) !== 304) throw error;
    }
    return { ok: true, message: `Stopped ${name}.`, text: null };
  }

  private async logs(container: Docker.Container, info: Docker.ContainerInspectInfo, name: string): Promise<ContainerActionResult> {
    const raw = await withDeadline(
      container.logs({ stdout: true, stderr: true, tail: this.logLines, follow: false }),
      this.timeoutMs,
      'no answer from the Docker daemon',
    );
    // Without a TTY, Docker multiplexes stdout and stderr in frames; with one, it is plain text.
    let text: string;
    if (info.Config.Tty) text = raw.toString('utf8');
    else {
      const chunks: Buffer[] = [];
      new DockerFrameParser((_stream, chunk) => chunks.push(chunk)).push(raw);
      text = Buffer.concat(chunks).toString('utf8');
    }
    const header = `# ${name} (${info.Id.slice(0, 12)}): up to the last ${this.logLines} lines of stdout and stderr at ${new Date().toISOString()}\n`;
    return { ok: true, message: `Logs of ${name}.`, text: header + (text.length > 0 ? text : '# (no output yet)\n') };
  }

  private unreachable(error: unknown): Extract<DockerReach, { reachable: false }> {
    return { reachable: false, reason: `The Docker daemon at ${dockerLocation()} did not answer: ${dockerErrorMessage(error)}.`, hint: daemonHint };
  }

  private async docker(): Promise<Docker> {
    this.requestClient ??= this.options.docker ?? (await newDocker({ timeout: this.timeoutMs + 10_000 }));
    return this.requestClient;
  }

  /** Event streams stay quiet for long, so their client has no request timeout, only one to connect. */
  private async events(): Promise<Docker> {
    const options: Docker.DockerOptions & { connectionTimeout: number } = { connectionTimeout: 5_000 };
    this.eventClient ??= this.options.docker ?? (await newDocker(options));
    return this.eventClient;
  }
}
