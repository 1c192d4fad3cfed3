/**
 * The Containers view's requests (declared in `protocol/containersView.ts`): the list, starting and
 * stopping the event follower as the view is shown and hidden, actions on one container and reaping.
 * While the view is visible, Docker's events (debounced, with a slow poll behind them) refresh the
 * list, and the client hears of it through `containers/changed` only when the list changed. Every
 * refresh writes its reason to the server's log: at the default level when the list changed, and at
 * debug level when it did not (the slow poll's every 30 s, and each showing of the view), which the
 * output channel hides unless a person sets it to Debug. Each container is marked with whether its
 * run folder lies under the workspace's run roots, for the view's "this workspace's runs" filter.
 */
import {
  containerActionParamsSchema,
  containerActionRequest,
  containersChangedNotification,
  containersListRequest,
  containersReapRequest,
  containersWatchParamsSchema,
  containersWatchRequest,
  type ContainerActionResult,
  type ContainersChanged,
  type ContainersListResult,
  type ContainersReapResult,
} from '../protocol/index.js';
import { isAbsolute, relative, resolve } from 'node:path';
import { ContainerEventFollower, containerBackends, type ContainerBackend, type FollowerOptions } from '../sandbox/index.js';
import type { ServerContext } from './context.js';
import { runRootsOf } from './runRoots.js';

/** Test seams: a backend double and the follower's timings. */
export interface ContainerRequestOptions {
  readonly backend?: ContainerBackend;
  readonly follower?: Omit<FollowerOptions, 'open' | 'refresh' | 'log'>;
}

export interface ContainerRequests {
  /** Stops following Docker's events for good; the server calls it on shutdown. */
  stop(): void;
}

/** One line for the log: how many containers, or why there is no list. */
function describe(result: ContainersListResult): string {
  if (!result.daemon.reachable) return `daemon unreachable (${result.daemon.reason})`;
  const running = result.containers.filter((c) => c.state === 'running').length;
  const orphans = result.containers.filter((c) => !c.ownerAlive).length;
  return `${result.containers.length} container${result.containers.length === 1 ? '' : 's'}, ${running} running, ${orphans} orphaned`;
}

/** Whether a run folder lies under one of the roots (a root itself is no run folder). */
export function underRunRoots(runDir: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(resolve(root), resolve(runDir));
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  });
}

/**
 * The containers the view shows: those of the first backend in the registry that runs containers
 * (`sandbox/backends.ts`; docker is the only one today, so the view merges no lists).
 */
function containersView(): ContainerBackend {
  const [first] = containerBackends();
  if (first === undefined) throw new Error('No sandbox backend runs containers, so the Containers view has none to show.');
  return first.view();
}

export function registerContainerRequests(server: ServerContext, options: ContainerRequestOptions = {}): ContainerRequests {
  const backend = options.backend ?? containersView();
  const log = (line: string) => {
    if (!server.isStopped) server.connection.console.log(`Containers: ${line}`);
  };
  const debug = (line: string) => {
    if (!server.isStopped) server.connection.console.debug(`Containers: ${line}`);
  };
  /** The last list the client got (as a response or a push), to push only what is new. */
  let lastSent: string | undefined;

  /** The backend's list, each container marked with whether its run folder is the workspace's. */
  const list = async (): Promise<ContainersListResult> => {
    const result = await backend.list();
    if (!result.daemon.reachable || !result.containers.some((c) => c.runDir !== undefined))
      return { ...result, containers: result.containers.map((c) => ({ ...c, inWorkspace: false })) };
    const roots = (await runRootsOf(server)).map((r) => r.path);
    return { ...result, containers: result.containers.map((c) => ({ ...c, inWorkspace: c.runDir !== undefined && underRunRoots(c.runDir, roots) })) };
  };

  const refresh = async (reason: string): Promise<void> => {
    const result = await list();
    const key = JSON.stringify(result);
    const changed = key !== lastSent;
    if (changed) log(`refresh (${reason}): ${describe(result)}`);
    else debug(`refresh (${reason}): ${describe(result)}, unchanged`);
    if (!changed || server.isStopped) return;
    lastSent = key;
    const payload: ContainersChanged = { ...result, reason };
    await server.connection.sendNotification(containersChangedNotification, payload);
  };
  const follower = new ContainerEventFollower({ ...options.follower, open: backend.openEvents, refresh, log });

  server.connection.onRequest(containersListRequest, async (): Promise<ContainersListResult> => {
    const result = await list();
    lastSent = JSON.stringify(result);
    debug(`refresh (list requested): ${describe(result)}`);
    return result;
  });
  server.connection.onRequest(containersWatchRequest, (raw: unknown): null => {
    follower.watch(containersWatchParamsSchema.parse(raw).watching);
    return null;
  });
  server.connection.onRequest(containerActionRequest, async (raw: unknown): Promise<ContainerActionResult> => {
    const params = containerActionParamsSchema.parse(raw);
    const result = await backend.action(params);
    log(`${params.action} ${params.id.slice(0, 12)}: ${result.message}`);
    // The event of a stop or removal refreshes the view too; the debounce makes the two one refresh.
    if (result.ok && (params.action === 'stop' || params.action === 'remove')) follower.nudge(`after ${params.action} ${params.id.slice(0, 12)}`);
    return result;
  });
  server.connection.onRequest(containersReapRequest, async (): Promise<ContainersReapResult> => {
    const result = await backend.reap();
    log(`reap: ${result.message}`);
    if (result.removed > 0) follower.nudge('after reaping orphans');
    return result;
  });
  return { stop: () => follower.stop() };
}
