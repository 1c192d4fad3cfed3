/**
 * Our containers, found by their labels: listing them for `gp containers list` and the Containers
 * view, and reaping the orphans a crashed run leaves behind. A container is an orphan when the
 * process named by its `pid` label no longer runs on the host named by its `host` label.
 */
import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { sandboxLabels, type ContainerInfo } from '../protocol/sandbox.js';
import { connectDocker } from './dockerClient.js';
import { dockerErrorMessage } from './images/imageError.js';
import { isoTimestamp } from '../util/time.js';

/** The labels a sandbox backend puts on a container it creates for `task` of `run` (and `episode`, when it serves one). */
export function ownerLabels(run: string, task: string, now: Date = new Date(), node?: string, episode?: string, runDir?: string): Record<string, string> {
  return {
    [sandboxLabels.run]: run,
    [sandboxLabels.task]: task,
    [sandboxLabels.pid]: String(process.pid),
    [sandboxLabels.host]: hostname(),
    [sandboxLabels.created]: isoTimestamp(now),
    ...(node === undefined ? {} : { [sandboxLabels.node]: node }),
    ...(episode === undefined ? {} : { [sandboxLabels.episode]: episode }),
    ...(runDir === undefined ? {} : { [sandboxLabels.runDir]: runDir }),
  };
}

import { processAlive } from '../util/processAlive.js';

export { processAlive };

export interface ListOptions {
  /** Stopped containers too (Docker lists running ones only by default). */
  readonly all?: boolean;
  /** Only the containers of this run. */
  readonly run?: string;
  /**
   * Count containers created on another host as orphans. We cannot see that host's processes, so
   * by default they count as alive; pass this when one engine serves machines that are all gone.
   */
  readonly foreignHostsDead?: boolean;
  readonly docker?: Docker;
}

function parsePid(label: string | undefined): number | null {
  if (label === undefined || !/^\d+$/.test(label)) return null;
  const pid = Number(label);
  // Pid 0 and below address process groups in kill(2), so they never name an owner.
  return pid > 0 && Number.isSafeInteger(pid) ? pid : null;
}

/**
 * Decides `ownerAlive`. A container without a usable pid or host label was not made by our
 * sandbox backend, so we cannot tell and keep it.
 */
function ownerAlive(pid: number | null, host: string, foreignHostsDead: boolean): boolean {
  if (pid === null || host.length === 0) return true;
  if (host !== hostname()) return !foreignHostsDead;
  return processAlive(pid);
}

export function toContainerInfo(c: Docker.ContainerInfo, foreignHostsDead = false): ContainerInfo {
  const labels = c.Labels;
  const pid = parsePid(labels[sandboxLabels.pid]);
  const host = labels[sandboxLabels.host] ?? '';
  return {
    id: c.Id,
    name: (c.Names[0] ?? '').replace(/^\//, ''),
    image: c.Image,
    state: c.State,
    status: c.Status,
    run: labels[sandboxLabels.run] ?? '',
    task: labels[sandboxLabels.task] ?? '',
    pid,
    host,
    ...(labels[sandboxLabels.node] === undefined ? {} : { node: labels[sandboxLabels.node] }),
    ...(labels[sandboxLabels.episode] === undefined ? {} : { episode: labels[sandboxLabels.episode] }),
    ...(labels[sandboxLabels.runDir] === undefined ? {} : { runDir: labels[sandboxLabels.runDir] }),
    created: labels[sandboxLabels.created] ?? isoTimestamp(new Date(c.Created * 1000)),
    ownerAlive: ownerAlive(pid, host, foreignHostsDead),
  };
}

/** Our containers (those with a `graph-planner.run` label), filtered by the daemon, newest first. */
export async function listContainers(options: ListOptions = {}): Promise<ContainerInfo[]> {
  const docker = options.docker ?? (await connectDocker()).docker;
  const label = options.run === undefined ? sandboxLabels.run : `${sandboxLabels.run}=${options.run}`;
  const found = await docker.listContainers({ all: options.all ?? false, filters: { label: [label] } });
  return found.map((c) => toContainerInfo(c, options.foreignHostsDead ?? false));
}

/**
 * What to reap. `includeLive` removes live containers too, so it needs a run: reaping every live
 * container on a shared engine would stop other people's runs.
 */
export type ReapOptions = {
  /** Say what would be removed and remove nothing. */
  readonly dryRun?: boolean;
  readonly foreignHostsDead?: boolean;
  readonly docker?: Docker;
  /**
   * Only the containers this process made (its pid and host in their labels), with the others' left
   * alone: a sandbox host ending on an engine it shares with another host removes its own only.
   */
  readonly ownOnly?: boolean;
} & ({ readonly run?: string; readonly includeLive?: false } | { readonly run: string; readonly includeLive: true });

export interface ReapFailure {
  readonly container: ContainerInfo;
  readonly error: string;
}

export interface ReapResult {
  readonly dryRun: boolean;
  /** Removed, or with `dryRun` the ones that would be. */
  readonly removed: ContainerInfo[];
  readonly failed: ReapFailure[];
  /** Containers left alone because their owner runs. */
  readonly kept: ContainerInfo[];
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { statusCode?: unknown }).statusCode === 404;
}

/**
 * Force-removes (with their anonymous volumes) the containers whose owner is gone, or every
 * container of `run` with `includeLive`. One container that cannot be removed is reported in
 * `failed` and the others are still removed; one already gone counts as removed.
 */
export async function reapContainers(options: ReapOptions = {}): Promise<ReapResult> {
  const docker = options.docker ?? (await connectDocker()).docker;
  const listOptions: ListOptions = { all: true, docker, foreignHostsDead: options.foreignHostsDead ?? false };
  const containers = await listContainers(options.run === undefined ? listOptions : { ...listOptions, run: options.run });
  const own = (c: ContainerInfo): boolean => c.pid === process.pid && c.host === hostname();
  const targets = containers.filter((c) => (options.includeLive === true || !c.ownerAlive) && (options.ownOnly !== true || own(c) || !c.ownerAlive));
  const kept = containers.filter((c) => !targets.includes(c));
  const dryRun = options.dryRun ?? false;
  if (dryRun) return { dryRun, removed: targets, failed: [], kept };
  const removed: ContainerInfo[] = [];
  const failed: ReapFailure[] = [];
  // One at a time: reaping is rare, and the daemon serialises much of the work anyway.
  for (const container of targets) {
    try {
      await docker.getContainer(container.id).remove({ force: true, v: true });
      removed.push(container);
    } catch (error) {
      if (isNotFound(error)) removed.push(container);
      else failed.push({ container, error: dockerErrorMessage(error) });
    }
  }
  return { dryRun, removed, failed, kept };
}
