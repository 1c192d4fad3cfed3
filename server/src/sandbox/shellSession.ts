/**
 * One long-lived bash process inside a container that runs the sandbox's commands. A Docker exec
 * costs about 50 ms (create, start, inspect) and throughput stops near 20 execs/s on two cores,
 * so commands go through this session instead (scriptSession.ts says how a session runs them).
 * Its bytes travel over a hijacked exec stream in Docker's frames; a timeout kills the command's
 * process group through a separate exec, since the session itself is blocked in `wait`.
 */
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { DockerFrameParser } from './dockerStream.js';
import { ScriptSession, type SessionRunOptions, type SessionRunResult } from './scriptSession.js';

export { SessionEnded, type SessionRunOptions, type SessionRunResult } from './scriptSession.js';

export class ShellSession extends ScriptSession {
  private readonly parser: DockerFrameParser;

  private constructor(
    private readonly container: Docker.Container,
    private readonly socket: Duplex,
  ) {
    super();
    this.parser = new DockerFrameParser((stream, chunk) => this.received(stream, chunk));
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
    // The job's pid goes to a file a timeout's separate exec reads: "<command id> <pid>".
    socket.write(session.driver({ prologue: [], inJob: '', waitForJob: [`echo "$1 $!" > ${session.pidFile}`, 'wait "$!"', 'rc=$?'] }));
    return session;
  }

  /** Runs one script; the caller serialises calls (one command at a time per session). */
  run(script: string, options: SessionRunOptions): Promise<SessionRunResult> {
    return this.runScript(script, options);
  }

  /** Ends the session; a command still running gets the error. */
  close(): void {
    this.end('the session was closed');
    this.socket.destroy();
  }

  protected write(text: string): void {
    this.socket.write(text);
  }

  private get pidFile(): string {
    return `/tmp/.gp-${this.nonce}.pid`;
  }

  /** The pid file may not exist yet when the limit is tiny, so the kill retries briefly. */
  protected killCommand(id: number): void {
    // The pid file holds "<command id> <pid>" of the latest command; act only when it is ours.
    const script = `for i in 1 2 3 4 5 6 7 8 9 10; do read -r n p < ${this.pidFile} 2>/dev/null; if [ "$n" = ${id} ]; then kill -KILL -- -$p 2>/dev/null; exit 0; fi; sleep 0.1; done; exit 1`;
    void (async () => {
      try {
        const exec = await this.container.exec({ Cmd: ['bash', '-c', script], AttachStdout: false, AttachStderr: false });
        await exec.start({ Detach: true });
      } catch {
        // The container is gone; the session stream ends too and the command gets that error.
      }
    })();
  }
}
