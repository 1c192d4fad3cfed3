/**
 * One bubblewrap per local sandbox, kept for its life, running a bash session that runs the
 * sandbox's commands, as the docker backend's session does in a container (shellSession.ts).
 *
 * A `bwrap` per command pays for a new mount namespace every time: the pivot to the new root and
 * the teardown at exit each wait for an RCU grace period in the kernel, which made a command's
 * round trip about twice that of plain spawning; entering the namespaces per command (nsenter,
 * unshare, setpriv) still cost 1.6 to 1.8 times. Here a command costs one subshell of a running bash.
 *
 * Each script is written to the session's stdin after a one-line call of the driver and run as a
 * background job in its own process group (`set -m`); after it ends the driver writes an end
 * marker with the exit code to both streams. A timeout sends the session SIGUSR1, whose trap kills
 * the job's group and then every other process in the sandbox's PID namespace but the session and
 * bwrap: a daemon that left the group (`setsid`) goes too. The session started with the command's
 * allow-listed environment (bwrap shows it in /proc/1/environ), and bwrap dropped every capability.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { ScriptSession, type SessionRunOptions, type SessionRunResult } from './scriptSession.js';

export class HolderShell extends ScriptSession {
  /** Commands wait their turn: the session runs one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    /** The host PID of the session's bash, which SIGUSR1 reaches. */
    private readonly sessionPid: number,
  ) {
    super();
    child.stdout.on('data', (c: Buffer) => this.received('stdout', c));
    child.stderr.on('data', (c: Buffer) => this.received('stderr', c));
    child.on('exit', () => this.end('the sandbox session ended'));
    child.on('error', (error) => this.end(`the sandbox session failed: ${error.message}`));
  }

  /**
   * Starts `bwrap <args> --info-fd 3 -- bash` with `env` and waits until the session says it runs,
   * so every mount is made. Undefined when bwrap fails or says nothing in 10 s.
   */
  static async start(bwrap: string, args: readonly string[], env: Record<string, string>): Promise<HolderShell | undefined> {
    const child = spawn(bwrap, [...args, '--info-fd', '3', '--', 'bash', '--noprofile', '--norc'], {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      env,
    }) as unknown as ChildProcessWithoutNullStreams & { stdio: unknown[] };
    const info = child.stdio[3] as NodeJS.ReadableStream | null;
    const nonce = randomBytes(8).toString('hex');
    child.stdin.write(`printf 'ready-${nonce}\\n'\n`);
    const [initPid, ready] = await Promise.all([readChildPid(info), readLine(child, `ready-${nonce}`)]);
    const sessionPid = initPid === undefined ? undefined : childOf(initPid);
    if (!ready || sessionPid === undefined) {
      kill(child.pid);
      return undefined;
    }
    const shell = new HolderShell(child, sessionPid);
    child.stdin.write(shell.driver(holderDriver));
    // The session lives as long as the sandbox, which closes it; it must not keep `gp` running.
    child.unref();
    return shell;
  }

  /** Runs one script after those before it. */
  run(script: string, options: SessionRunOptions): Promise<SessionRunResult> {
    const turn = this.queue.then(() => this.runScript(script, options));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Ends the session and every process in the sandbox; a command still running gets the error. */
  close(): void {
    this.end('the sandbox was closed');
    kill(this.child.pid);
  }

  protected write(text: string): void {
    this.child.stdin.write(text);
  }

  /** SIGUSR1's trap in the session kills the job's group and the rest of the PID namespace (`holderDriver`). */
  protected killCommand(): void {
    signal(this.sessionPid, 'SIGUSR1');
  }
}

/**
 * The session's way of running a job: its exit is waited for in a loop, because SIGUSR1's trap
 * interrupts `wait`; the trap kills the job's group, then every process of the PID namespace but
 * bwrap (1) and this session.
 */
const holderDriver = {
  prologue: [
    '__gp_job=',
    '__gp_kill() { [ -n "$__gp_job" ] && kill -KILL -- -"$__gp_job"; local p; for p in /proc/[0-9]*; do p=${p#/proc/}; [ "$p" != 1 ] && [ "$p" != $$ ] && kill -KILL "$p"; done; }',
    'trap __gp_kill USR1',
  ],
  inJob: 'trap - USR1; ',
  waitForJob: ['__gp_job=$!', 'while :; do wait "$__gp_job"; rc=$?; kill -0 "$__gp_job" 2>/dev/null || break; done', '__gp_job='],
};

/** bwrap's `--info-fd` JSON, read to its end (closing it early would let a last write end bwrap). */
function readChildPid(stream: NodeJS.ReadableStream | null): Promise<number | undefined> {
  if (stream === null) return Promise.resolve(undefined);
  return new Promise((done) => {
    let text = '';
    const timer = setTimeout(() => done(undefined), 10_000);
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.on('end', () => {
      clearTimeout(timer);
      try {
        const pid = (JSON.parse(text) as Record<string, unknown>)['child-pid'];
        done(typeof pid === 'number' ? pid : undefined);
      } catch {
        done(undefined);
      }
    });
    stream.on('error', () => done(undefined));
  });
}

/** Whether the session printed `line` within 10 s; the bytes before it are dropped. */
function readLine(child: ChildProcessWithoutNullStreams, line: string): Promise<boolean> {
  return new Promise((done) => {
    let text = '';
    const finish = (value: boolean) => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      done(value);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes(`${line}\n`)) finish(true);
    };
    const timer = setTimeout(() => finish(false), 10_000);
    child.stdout.on('data', onData);
    child.on('exit', () => finish(false));
  });
}

/** The host PID of `parent`'s one child (bwrap's first process inside starts exactly one: the session). */
function childOf(parent: number): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses, so the fields are read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) return Number(name);
    } catch {
      // The process ended while the list was read.
    }
  }
  return undefined;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // It has already exited.
  }
}

function kill(pid: number | undefined): void {
  if (pid !== undefined) signal(-pid, 'SIGKILL');
}
