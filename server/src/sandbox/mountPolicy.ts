/**
 * Which host folders a task may mount into its container. A task file comes from whoever prepared
 * the dataset, and a mount is a door from the container onto this machine: `/:/host` or the Docker
 * socket gives the task the whole host. So a mount is refused unless the user allowed its host
 * folder (`sandbox.allowed_mount_roots`, `--allow-mount-root`; empty by default), and `/` and
 * anything holding the Docker socket are refused whatever the user allowed. Paths are compared as
 * the kernel will see them: symbolic links followed and `..` resolved, so no spelling gets round it.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { dockerSocketPaths, type MountSpec } from '../protocol/sandbox.js';
import { isWithin } from '../util/pathWithin.js';
import { SandboxError } from './sandbox.js';

/**
 * Where Docker's socket lives on the hosts we run on, and what `DOCKER_HOST` names: each both as
 * spelt and with its links followed, since `/var/run` is a link to `/run` on some hosts only, and a
 * mount of `/var` is refused on every host alike.
 */
function dockerSockets(env: NodeJS.ProcessEnv): string[] {
  const sockets: string[] = [...dockerSocketPaths];
  const host = env['DOCKER_HOST'];
  if (host?.startsWith('unix://') === true) sockets.push(resolve(host.slice('unix://'.length)));
  return [...new Set([...sockets, ...sockets.map(realPath)])];
}

/**
 * The path with every symbolic link followed. A path that does not exist yet (Docker would create
 * it) is resolved through its nearest existing ancestor, so `allowed/link-to-etc/new` still lands
 * on `/etc/new`.
 */
export function realPath(path: string, depth = 0): string {
  const absolute = resolve(path);
  let head = absolute;
  const tail: string[] = [];
  // An entry that exists, a link that points nowhere included (existsSync would step over it).
  while (lstatSync(head, { throwIfNoEntry: false }) === undefined) {
    const parent = dirname(head);
    if (parent === head) break;
    tail.unshift(basename(head));
    head = parent;
  }
  let real: string;
  try {
    real = realpathSync(head);
  } catch {
    // A link that points nowhere: Docker would create its target, so the target is what is judged.
    real = depth < 40 && lstatSync(head).isSymbolicLink() ? realPath(resolve(dirname(head), readlinkSync(head)), depth + 1) : head;
  }
  return tail.length === 0 ? real : join(real, ...tail);
}

export interface MountRefusal {
  readonly mount: MountSpec;
  /** What is wrong, and what to do, in one sentence. */
  readonly reason: string;
  /** Refused whatever the allowed roots say (`/`, the Docker socket). */
  readonly never: boolean;
}

/** Why a mount is refused, or undefined when it may go ahead. */
export function refuseMount(mount: MountSpec, allowedRoots: readonly string[], env: NodeJS.ProcessEnv = process.env): MountRefusal | undefined {
  const host = realPath(mount.host);
  const shown = host === resolve(mount.host) ? mount.host : `${mount.host} (really ${host})`;
  if (host === '/') return { mount, never: true, reason: `mounting ${shown} would give the task the whole host; it is never allowed` };
  const spelt = resolve(mount.host);
  const socket = dockerSockets(env).find((s) => isWithin(s, host) || isWithin(s, spelt));
  if (socket !== undefined) {
    return { mount, never: true, reason: `mounting ${shown} would give the task the Docker socket (${socket}), and with it the host; it is never allowed` };
  }
  const roots = allowedRoots.map(realPath);
  if (roots.some((root) => isWithin(host, root))) return undefined;
  const how = roots.length === 0 ? 'no host folder is allowed' : `the allowed roots are ${roots.join(', ')}`;
  return {
    mount,
    never: false,
    reason: `mounting ${shown} is refused: ${how}. If you trust this dataset, add the folder to sandbox.allowed_mount_roots or pass --allow-mount-root ${host}`,
  };
}

/** Every refused mount of a sandbox, in the order the task gives them. */
export function refusedMounts(mounts: readonly MountSpec[], allowedRoots: readonly string[], env: NodeJS.ProcessEnv = process.env): MountRefusal[] {
  return mounts.flatMap((m) => refuseMount(m, allowedRoots, env) ?? []);
}

/** Throws before anything is created when a sandbox's mounts are not all allowed. */
export function assertMountsAllowed(spec: {
  readonly task: string;
  readonly mounts: readonly MountSpec[];
  readonly allowedMountRoots: readonly string[];
}): void {
  const refused = refusedMounts(spec.mounts, spec.allowedMountRoots);
  if (refused.length === 0) return;
  throw new SandboxError(`Task ${spec.task}: ${refused.map((r) => r.reason).join('; ')}.`, 'mount-refused');
}
