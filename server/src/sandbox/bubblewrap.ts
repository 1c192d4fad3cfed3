/**
 * The local backend's isolation: task commands run under bubblewrap (`bwrap`, Debian's
 * `bubblewrap`) in their own user, PID, IPC, UTS and network namespaces, with a fresh `/proc` and
 * `/dev`, the rest of the file system read-only, the user's home and `/run` hidden, and only the
 * sandbox's own folder (working copy, scratch, HOME) and its `/tmp` writable. Without it a command
 * could read `gp`'s environment through `/proc/$PPID/environ`, reach any server on the loopback and
 * write the user's files.
 *
 * Where bubblewrap cannot run (not installed, or the kernel or a container refuses user namespaces)
 * the local backend runs commands as before and says so once (localSandbox.ts). `GP_LOCAL_ISOLATION=off`
 * turns it off on purpose, for debugging a command that behaves differently inside.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';
import { isWithin } from '../util/pathWithin.js';

/** Whether task commands on the local backend run under bubblewrap, and if not, why. */
export type LocalIsolation = { readonly kind: 'bubblewrap'; readonly bwrap: string } | { readonly kind: 'none'; readonly reason: string };

/** The variable that turns the isolation off (`off`, `0` or `false`), for debugging. */
export const isolationSwitch = 'GP_LOCAL_ISOLATION';

/** The namespaces every command gets; the network's is added unless the task allows the network. */
const unshared = ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];

/**
 * `--die-with-parent` ends the namespace when `gp` (or the timeout's SIGKILL) ends bwrap, and the
 * PID namespace's first process takes every other process in it along. `--new-session` keeps a
 * command from pushing characters into a terminal `gp` was started from (TIOCSTI).
 */
const lifetime = ['--die-with-parent', '--new-session', '--cap-drop', 'ALL'];

let probed: Promise<LocalIsolation> | undefined;

/**
 * Whether bubblewrap runs here, probed once per process with the namespaces and mounts a command
 * gets: a container without user namespaces, or one whose `/proc` is partly masked (Docker's
 * default), refuses `--proc`, and that must show now rather than on every command.
 */
export function localIsolation(env: NodeJS.ProcessEnv = process.env): Promise<LocalIsolation> {
  const setting = (env[isolationSwitch] ?? '').trim().toLowerCase();
  if (setting === 'off' || setting === '0' || setting === 'false') {
    return Promise.resolve({ kind: 'none', reason: `${isolationSwitch}=${env[isolationSwitch] ?? ''} turns bubblewrap off` });
  }
  probed ??= probe(env['PATH'] ?? '');
  return probed;
}

function findBwrap(path: string): string | undefined {
  for (const folder of path.split(delimiter)) {
    if (folder === '' || !isAbsolute(folder)) continue;
    const candidate = join(folder, 'bwrap');
    if (existsSync(candidate)) return candidate;
  }
  return existsSync('/usr/bin/bwrap') ? '/usr/bin/bwrap' : undefined;
}

function probe(path: string): Promise<LocalIsolation> {
  const bwrap = findBwrap(path);
  if (bwrap === undefined) return Promise.resolve({ kind: 'none', reason: 'bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)' });
  const args = [...unshared, '--unshare-net', ...lifetime, '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'];
  return new Promise((done) => {
    execFile(bwrap, args, { env: { PATH: '/usr/bin:/bin' }, timeout: 10_000, encoding: 'utf8' }, (error, _stdout, stderr) => {
      if (error === null) done({ kind: 'bubblewrap', bwrap });
      else done({ kind: 'none', reason: `${bwrap} cannot run here (${stderr.trim().split('\n').slice(-1)[0] || error.message}); user namespaces may be off` });
    });
  });
}

/** Where a sandbox's commands may write, and what they may see of the user's home. */
export interface BubblewrapLayout {
  /** The sandbox's folder (working copy, scratch, HOME), writable at its own path. */
  readonly sandboxDir: string;
  /** The host folder that is `/tmp` inside, kept between the commands of one sandbox. */
  readonly tmp: string;
  /** The host's network namespace (loopback included), or a namespace with only its own loopback. */
  readonly network: boolean;
  /** Host folders under the hidden home that commands need, bound back read-only. */
  readonly readOnly: readonly string[];
  /** Host folders under the hidden home that commands may write (the repository setup's pip cache). */
  readonly writable?: readonly string[];
  /** The user's home, hidden under an empty tmpfs. */
  readonly userHome: string;
}

/**
 * bwrap's arguments up to `--`, after which the command follows. Order matters: a later mount
 * lands on top of an earlier one, so `/tmp` and the hidden home come before the folders bound back
 * into them, and the sandbox's own folder comes last (it may lie under either).
 */
export function bubblewrapArgs(layout: BubblewrapLayout): string[] {
  const args = [...unshared, ...(layout.network ? [] : ['--unshare-net']), ...lifetime];
  args.push('--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev');
  // /run holds sockets a read-only mount does not close (Docker's, D-Bus's, an ssh-agent's):
  // connecting to a socket needs no write to the file system.
  args.push('--tmpfs', '/run');
  if (layout.network) args.push(...resolverBack());
  args.push('--bind', layout.tmp, '/tmp');
  if (layout.userHome !== '/' && layout.userHome !== '') args.push('--tmpfs', layout.userHome);
  for (const folder of layout.readOnly) args.push('--ro-bind-try', folder, folder);
  for (const folder of layout.writable ?? []) args.push('--bind-try', folder, folder);
  args.push('--bind', layout.sandboxDir, layout.sandboxDir);
  return args;
}

/** With the network, `/etc/resolv.conf` often links into `/run` (systemd-resolved), so it is bound back. */
function resolverBack(): string[] {
  try {
    const real = realpathSync('/etc/resolv.conf');
    return isWithin(real, '/run') ? ['--ro-bind', real, real] : [];
  } catch {
    return [];
  }
}

/**
 * The folders under the user's home or the host's `/tmp` (both hidden inside) that commands need to
 * see: the PATH entries there (pyenv's shims, `~/.local/bin`) with, for a venv's `bin`, the venv and
 * its base interpreter, and for another prefix's `bin`, its `lib`; pyenv's root (its shims run `pyenv
 * exec`), and `extra`: the built Python environments, the prefix of the interpreter each venv was
 * made from (uv and pyenv keep them under the home), uv's own folder. Everything else there
 * (`~/.ssh`, `~/.aws`, tokens, other sandboxes) stays hidden. Folders elsewhere are visible anyway,
 * read-only, and are left out.
 */
export function foldersToShow(env: NodeJS.ProcessEnv, extra: readonly (string | undefined)[], home = homedir()): string[] {
  const hidden = [home, '/tmp'].filter((root) => root !== '/' && root !== '');
  const wanted = new Set<string>();
  const add = (folder: string | undefined) => {
    if (folder === undefined || folder === '' || !isAbsolute(folder) || hidden.includes(folder) || !existsSync(folder)) return;
    if (hidden.some((root) => isWithin(folder, root))) wanted.add(folder);
  };
  for (const folder of (env['PATH'] ?? '').split(delimiter)) {
    add(folder);
    // A PATH entry that is a venv's or a Python prefix's `bin` needs its packages too: the venv
    // itself and the interpreter it was made from, or the prefix's `lib` (a conda environment).
    const prefix = dirname(folder);
    if (basename(folder) !== 'bin' || !isAbsolute(folder)) continue;
    if (existsSync(join(prefix, 'pyvenv.cfg'))) {
      add(prefix);
      add(venvBasePrefix(prefix));
    } else add(join(prefix, 'lib'));
  }
  add(env['PYENV_ROOT'] ?? join(home, '.pyenv'));
  for (const folder of extra) add(folder);
  return [...wanted].sort();
}

/** The prefix of the interpreter a venv was made from (`home =` in its pyvenv.cfg, one level up). */
export function venvBasePrefix(venv: string): string | undefined {
  try {
    const line = readFileSync(join(venv, 'pyvenv.cfg'), 'utf8')
      .split('\n')
      .find((l) => /^home\s*=/.test(l));
    const bin = line?.replace(/^home\s*=\s*/, '').trim();
    return bin === undefined || bin === '' ? undefined : dirname(bin);
  } catch {
    return undefined;
  }
}
