/**
 * Which sandbox host an episode goes to (issue 22: one host per Ray node that offers sandboxes,
 * the environment service their one front door). In order of preference:
 *
 * 1. a host on the rollout worker's own node, so the worker's requests stay on its machine;
 * 2. a host whose daemon already has the task's image, so no pull delays the episode;
 * 3. the least loaded host (the smallest share of its slots in use; then the most free slots).
 *
 * Only live hosts with a free slot are candidates; with none, the episode waits (undefined). Ties
 * go to the host id's order, so the choice is the same for the same state. Pure: the hosts'
 * state in, a host out; `hostPool.ts` asks it for each episode it leases a slot to.
 */

export interface HostState {
  readonly id: string;
  /** The Ray node the host runs on. */
  readonly node: string;
  readonly slots: number;
  /** Episodes running on it now. */
  readonly busy: number;
  readonly alive: boolean;
  /** Images its daemon holds. */
  readonly images: ReadonlySet<string>;
}

export interface RouteRequest {
  /** The node of the rollout worker asking, when it says. */
  readonly workerNode?: string;
  /** The task's image, when it has one. */
  readonly image?: string;
}

export interface RouteChoice {
  readonly host: HostState;
  readonly reason: 'worker-node' | 'has-image' | 'least-loaded';
}

function lessLoaded(a: HostState, b: HostState): number {
  const share = a.busy / a.slots - b.busy / b.slots;
  if (share !== 0) return share;
  const free = b.slots - b.busy - (a.slots - a.busy);
  if (free !== 0) return free;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function chooseHost(hosts: readonly HostState[], request: RouteRequest): RouteChoice | undefined {
  const free = hosts.filter((h) => h.alive && h.slots > 0 && h.busy < h.slots).sort(lessLoaded);
  const local = request.workerNode === undefined ? undefined : free.find((h) => h.node === request.workerNode);
  if (local !== undefined) return { host: local, reason: 'worker-node' };
  const withImage = request.image === undefined ? undefined : free.find((h) => h.images.has(request.image ?? ''));
  if (withImage !== undefined) return { host: withImage, reason: 'has-image' };
  const least = free[0];
  return least === undefined ? undefined : { host: least, reason: 'least-loaded' };
}

/** Slots over every live host, and how many are in use: what the capacity preflight compares against. */
export function clusterSlots(hosts: readonly HostState[]): { slots: number; busy: number; hosts: number } {
  const live = hosts.filter((h) => h.alive);
  return { slots: live.reduce((n, h) => n + h.slots, 0), busy: live.reduce((n, h) => n + h.busy, 0), hosts: live.length };
}
