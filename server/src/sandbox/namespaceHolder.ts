/**
 * One bubblewrap per local sandbox, kept for its life, whose namespaces each command enters.
 *
 * A `bwrap` per command pays for a new mount namespace every time: the pivot to the new root and
 * the teardown at exit each wait for an RCU grace period in the kernel, which made a command's
 * round trip about twice that of plain spawning. So the sandbox starts one `bwrap` (namespaces and
 * mounts as bubblewrap.ts builds them, running `sleep infinity`), and each command enters its
 * namespaces with `nsenter`, then gets a PID namespace of its own (`unshare --pid --fork
 * --kill-child`: a timeout that kills the command's process group kills that namespace's first
 * process, and with it every process the command started, daemons included), then drops every
 * capability and sets no-new-privileges (`setpriv`) before bash starts, as bwrap does for the
 * commands it runs. nsenter, unshare and setpriv are util-linux's, on every Debian.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** A running holder: the host PID of its namespaces' first process, and which namespaces it has. */
export interface NamespaceHolder {
  readonly pid: number;
  readonly namespaces: readonly string[];
  /** Whether the holder is still running; a command falls back to a `bwrap` of its own when it is not. */
  alive(): boolean;
  stop(): void;
}

/** nsenter's flag for each namespace bwrap reports in its `--info-fd` JSON. */
const enterFlags: Record<string, string> = {
  'mnt-namespace': '-m',
  'pid-namespace': '-p',
  'net-namespace': '-n',
  'ipc-namespace': '-i',
  'uts-namespace': '-u',
  'cgroup-namespace': '-C',
};

/** Whether the util-linux tools a holder needs are here. */
export function holderToolsPresent(): boolean {
  return ['/usr/bin/nsenter', '/usr/bin/unshare', '/usr/bin/setpriv'].every((tool) => existsSync(tool));
}

/**
 * Starts `bwrap <args> --info-fd 3 -- sh -c 'echo ready; exec sleep infinity'` with `env` (the
 * namespace's first process shows it in /proc/1/environ, so it must be a command's environment,
 * never ours) and waits for bwrap to report the PID of its child and for the sleeper to say it
 * runs: bwrap reports the PID before it has made the mounts, and a command entering then would
 * find a half-made file system. Undefined when bwrap fails or says nothing in 10 s.
 */
export async function startHolder(bwrap: string, args: readonly string[], env: Record<string, string>): Promise<NamespaceHolder | undefined> {
  const child = spawn(bwrap, [...args, '--info-fd', '3', '--', 'sh', '-c', 'echo ready && exec sleep infinity >/dev/null'], { detached: true, stdio: ['ignore', 'pipe', 'ignore', 'pipe'], env });
  let exited = false;
  child.on('exit', () => (exited = true));
  const [info, ready] = await Promise.all([readInfo(child), saysReady(child)]);
  // The holder lives as long as the sandbox, which closes it; it must not keep `gp` running.
  child.unref();
  const pid = child.pid;
  if (info === undefined || !ready || pid === undefined || exited) {
    kill(pid);
    return undefined;
  }
  return {
    pid: info.pid,
    namespaces: info.namespaces,
    alive: () => !exited,
    stop: () => kill(pid),
  };
}

/** Whether the holder's command printed `ready` (so every mount is made) within 10 s. */
function saysReady(child: ChildProcess): Promise<boolean> {
  const stream = child.stdout;
  if (stream === null) return Promise.resolve(false);
  return new Promise((done) => {
    let text = '';
    const finish = (value: boolean) => {
      clearTimeout(timer);
      stream.removeAllListeners('data');
      // The sleeper writes nothing more (its stdout is /dev/null), so closing our end is safe.
      stream.destroy();
      done(value);
    };
    const timer = setTimeout(() => finish(false), 10_000);
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('ready\n')) finish(true);
    });
    stream.on('end', () => finish(false));
  });
}

function readInfo(child: ChildProcess): Promise<{ pid: number; namespaces: string[] } | undefined> {
  const stream = child.stdio[3];
  if (stream === null || stream === undefined) return Promise.resolve(undefined);
  return new Promise((done) => {
    let text = '';
    const finish = (value: { pid: number; namespaces: string[] } | undefined) => {
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.destroy();
      done(value);
    };
    const timer = setTimeout(() => finish(undefined), 10_000);
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    // bwrap closes the descriptor once it has written all of it; closing it earlier would let a
    // last write raise SIGPIPE, which ends bwrap and with it the holder.
    stream.on('end', () => {
      try {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const pid = parsed['child-pid'];
        finish(typeof pid === 'number' ? { pid, namespaces: Object.keys(parsed).filter((key) => key in enterFlags) } : undefined);
      } catch {
        finish(undefined);
      }
    });
    child.on('error', () => finish(undefined));
  });
}

/** The program and arguments that run `bash -c script` inside the holder's namespaces. */
export function enterArgs(holder: NamespaceHolder, script: string): { file: string; args: string[] } {
  const flags = holder.namespaces.flatMap((name) => {
    const flag = enterFlags[name];
    return flag === undefined ? [] : [flag];
  });
  return {
    file: '/usr/bin/nsenter',
    args: [
      '-t', String(holder.pid), '-U', ...flags, '--preserve-credentials', '--',
      '/usr/bin/unshare', '--pid', '--fork', '--kill-child', '--',
      '/usr/bin/setpriv', '--bounding-set', '-all', '--inh-caps', '-all', '--no-new-privs', '--',
      'bash', '-c', script,
    ],
  };
}

function kill(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // It has already exited.
  }
}
