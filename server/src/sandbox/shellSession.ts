/**
 * One long-lived bash process inside a container that runs the sandbox's commands. A Docker exec
 * costs about 50 ms (create, start, inspect) and throughput stops near 20 execs/s on two cores,
 * so commands go through this session instead: each command is written to bash's stdin after a
 * one-line call of the driver and run as a background job in its own process group (`set -m`), so a
 * timeout can kill the command's whole process tree and leave the session alive. After the job
 * ends, the driver writes an end marker with the exit code to both streams; output before the
 * marker belongs to the command, and stdout and stderr never mix.
 *
 * The session's own stderr is sent to /dev/null (the commands get the real one through fd 3) so
 * that bash's job reports ("Killed …") never appear in a command's output.
 */
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { DockerFrameParser, MarkerScanner } from './dockerStream.js';
import { OutputCapture } from './outputCapture.js';
import type { OutputChunk } from './sandbox.js';

const terminator = 0x1f;

export interface SessionRunOptions {
  timeoutMs: number;
  maxOutputBytes: number;
  onOutput?: ((chunk: OutputChunk) => void) | undefined;
}

export interface SessionRunResult {
  exitCode: number | null;
  stdout: OutputCapture;
  stderr: OutputCapture;
  timedOut: boolean;
}

/** Why a session stopped answering; the sandbox turns it into an error a person can act on. */
export class SessionEnded extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionEnded';
  }
}

interface Pending {
  stdout: MarkerScanner;
  stderr: MarkerScanner;
  settle: (exitCode: string | null, error?: Error) => void;
}

export class ShellSession {
  private nextId = 1;
  private pending: Pending | undefined;
  private ended: string | undefined;
  private readonly nonce = randomBytes(8).toString('hex');
  private readonly parser: DockerFrameParser;

  private constructor(
    private readonly container: Docker.Container,
    private readonly socket: Duplex,
  ) {
    this.parser = new DockerFrameParser((stream, chunk) => this.pending?.[stream].push(chunk));
    socket.on('data', (data: Buffer) => this.parser.push(data));
    const end = (why: string) => this.end(why);
    socket.on('end', () => end('the session stream ended'));
    socket.on('close', () => end('the session stream closed'));
    socket.on('error', (error: Error) => end(`the session stream failed: ${error.message}`));
  }

  static async start(container: Docker.Container): Promise<ShellSession> {
    const exec = await container.exec({
      Cmd: ['bash', '--noprofile', '--norc'],
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
    });
    const socket = (await exec.start({ hijack: true, stdin: true })) as Duplex;
    const session = new ShellSession(container, socket);
    socket.write(session.driver());
    return session;
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  /** Runs one script; the caller serialises calls (one command at a time per session). */
  run(script: string, options: SessionRunOptions): Promise<SessionRunResult> {
    if (this.ended !== undefined) return Promise.reject(new SessionEnded(this.ended));
    const id = this.nextId++;
    const stdout = new OutputCapture(options.maxOutputBytes, options.onOutput && ((text) => options.onOutput?.({ stream: 'stdout', text })));
    const stderr = new OutputCapture(options.maxOutputBytes, options.onOutput && ((text) => options.onOutput?.({ stream: 'stderr', text })));
    return new Promise<SessionRunResult>((resolve, reject) => {
      let timedOut = false;
      const codes: string[] = [];
      const timer = setTimeout(() => {
        timedOut = true;
        void this.killCommand(id);
      }, options.timeoutMs);
      const settle = (code: string | null, error?: Error) => {
        if (error) {
          clearTimeout(timer);
          this.pending = undefined;
          reject(error);
          return;
        }
        if (code !== null) codes.push(code);
        if (!(pending.stdout.finished && pending.stderr.finished)) return;
        clearTimeout(timer);
        this.pending = undefined;
        const exit = Number(codes[0]);
        resolve({ exitCode: timedOut ? null : Number.isInteger(exit) ? exit : null, stdout, stderr, timedOut });
      };
      const marker = `\x1eGP${this.nonce}E${id}:`;
      const pending: Pending = {
        stdout: new MarkerScanner(marker, terminator, (c) => stdout.push(c), (v) => settle(v)),
        stderr: new MarkerScanner(marker, terminator, (c) => stderr.push(c), (v) => settle(v)),
        settle,
      };
      this.pending = pending;
      // The script follows its command line and ends with a NUL byte, which no shell text contains.
      this.socket.write(`__gp_run ${id}\n${script.replace(/\0/g, '')}\0`);
    });
  }

  /** Ends the session; a command still running gets the error. */
  close(): void {
    this.end('the session was closed');
    this.socket.destroy();
  }

  private end(why: string): void {
    if (this.ended !== undefined) return;
    this.ended = why;
    this.pending?.settle(null, new SessionEnded(why));
  }

  /**
   * Kills a command's process group through a separate exec: the session itself is blocked in
   * `wait`. The pid file may not exist yet when the limit is tiny, so this retries briefly.
   */
  private async killCommand(id: number): Promise<void> {
    // The pid file holds "<command id> <pid>" of the latest command; act only when it is ours.
    const pidFile = `/tmp/.gp-${this.nonce}.pid`;
    const script = `for i in 1 2 3 4 5 6 7 8 9 10; do read -r n p < ${pidFile} 2>/dev/null; if [ "$n" = ${id} ]; then kill -KILL -- -$p 2>/dev/null; exit 0; fi; sleep 0.1; done; exit 1`;
    try {
      const exec = await this.container.exec({ Cmd: ['bash', '-c', script], AttachStdout: false, AttachStderr: false });
      await exec.start({ Detach: true });
    } catch {
      // The container is gone; the session stream ends too and the command gets that error.
    }
  }

  /**
   * The driver, written once. It costs no process per command beyond the command's own subshell:
   * the script is read with the `read` builtin (up to the NUL byte), run as a background job so
   * that `set -m` makes it a process-group leader, and reported with `printf`. Inside the job,
   * `set +m` keeps the command's own children in its group, so a timeout kills them too; fd 3
   * (the real stderr, while bash's own messages go to /dev/null) is closed for the command.
   */
  private driver(): string {
    const t = `$'\\036'GP${this.nonce}`;
    return [
      'exec 3>&2 2>/dev/null',
      'set -m',
      '__gp_run() {',
      "  local __gp_s",
      "  IFS= read -r -d '' __gp_s",
      '  ( set +m; set --; eval "$__gp_s" ) </dev/null 2>&3 3>&- &',
      `  echo "$1 $!" > /tmp/.gp-${this.nonce}.pid`,
      '  wait "$!"',
      '  local rc=$?',
      `  printf '%sE%s:%s\\037' ${t} "$1" "$rc"`,
      `  printf '%sE%s:%s\\037' ${t} "$1" "$rc" >&3`,
      '}',
      '',
    ].join('\n');
  }
}
