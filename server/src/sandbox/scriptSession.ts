/**
 * What the two long-lived bash sessions share (the docker backend's in a container,
 * shellSession.ts, and the local backend's inside its bubblewrap, holderShell.ts): each script is
 * written to bash's stdin after a one-line call of the driver, ends with a NUL byte, and runs as a
 * background job in its own process group (`set -m`), so a timeout can kill its whole tree and
 * leave the session alive. After the job ends the driver writes an end marker with the exit code to
 * both streams; output before the marker belongs to the command, and stdout and stderr never mix.
 * The session's own stderr goes to /dev/null (commands get the real one through fd 3), so bash's
 * job reports ("Killed …") never appear in a command's output.
 *
 * The two differ only in how bytes reach bash, how they come back, and how a timeout kills a
 * command, which each subclass says.
 */
import { randomBytes } from 'node:crypto';
import { MarkerScanner } from './dockerStream.js';
import { OutputCapture } from './outputCapture.js';
import type { ExecResult } from '../protocol/sandbox.js';
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

/** A session's result as a sandbox's `exec` returns it; `started` is the call's start on `performance.now()`'s clock. */
export function execResultOf(r: SessionRunResult, started: number): ExecResult {
  return {
    exitCode: r.exitCode,
    stdout: r.stdout.text(),
    stderr: r.stderr.text(),
    durationMs: performance.now() - started,
    timedOut: r.timedOut,
    truncated: r.stdout.truncated || r.stderr.truncated,
    stdoutBytes: r.stdout.bytes,
    stderrBytes: r.stderr.bytes,
  };
}

interface Pending {
  stdout: MarkerScanner;
  stderr: MarkerScanner;
  settle: (exitCode: string | null, error?: Error) => void;
}

/** How one session's driver runs a job: lines before the function, and the job's launch and wait. */
export interface DriverParts {
  /** Lines run once, before `__gp_run` is defined (traps, state). */
  readonly prologue: readonly string[];
  /** Shell text run first inside the job's subshell (`trap - USR1;`), or empty. */
  readonly inJob: string;
  /** Lines after the job starts in the background (`$!`), which leave its exit status in `rc`. */
  readonly waitForJob: readonly string[];
}

export abstract class ScriptSession {
  private nextId = 1;
  private pending: Pending | undefined;
  private ended: string | undefined;
  protected readonly nonce = randomBytes(8).toString('hex');

  /** Writes text to bash's stdin. */
  protected abstract write(text: string): void;
  /** Kills the running command `id` at its time limit (the session itself is blocked in `wait`). */
  protected abstract killCommand(id: number): void;

  get alive(): boolean {
    return this.ended === undefined;
  }

  /** Output of the session's bash, as it arrives. */
  protected received(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    this.pending?.[stream].push(chunk);
  }

  /** Runs one script; the caller serialises calls (one command at a time per session). */
  protected runScript(script: string, options: SessionRunOptions): Promise<SessionRunResult> {
    if (this.ended !== undefined) return Promise.reject(new SessionEnded(this.ended));
    const id = this.nextId++;
    const stdout = new OutputCapture(options.maxOutputBytes, options.onOutput && ((text) => options.onOutput?.({ stream: 'stdout', text })));
    const stderr = new OutputCapture(options.maxOutputBytes, options.onOutput && ((text) => options.onOutput?.({ stream: 'stderr', text })));
    return new Promise<SessionRunResult>((resolve, reject) => {
      let timedOut = false;
      const codes: string[] = [];
      const timer = setTimeout(() => {
        timedOut = true;
        this.killCommand(id);
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
        stdout: new MarkerScanner(
          marker,
          terminator,
          (c) => stdout.push(c),
          (v) => settle(v),
        ),
        stderr: new MarkerScanner(
          marker,
          terminator,
          (c) => stderr.push(c),
          (v) => settle(v),
        ),
        settle,
      };
      this.pending = pending;
      // The script follows its command line and ends with a NUL byte, which no shell text contains.
      this.write(`__gp_run ${id}\n${script.replace(/\0/g, '')}\0`);
    });
  }

  /** The session stopped; a command still running gets the error. */
  protected end(why: string): void {
    if (this.ended !== undefined) return;
    this.ended = why;
    this.pending?.settle(null, new SessionEnded(why));
  }

  /**
   * The driver, written once. It costs no process per command beyond the command's own subshell:
   * the script is read with the `read` builtin (up to the NUL byte), run as a background job so
   * that `set -m` makes it a process-group leader, and reported with `printf`. Inside the job,
   * `set +m` keeps the command's own children in its group, so a timeout kills them too; fd 3
   * (the real stderr, while bash's own messages go to /dev/null) is closed for the command.
   */
  protected driver(parts: DriverParts): string {
    const t = `$'\\036'GP${this.nonce}`;
    return [
      'exec 3>&2 2>/dev/null',
      'set -m',
      ...parts.prologue,
      '__gp_run() {',
      '  local __gp_s rc',
      "  IFS= read -r -d '' __gp_s",
      `  ( set +m; set --; ${parts.inJob}eval "$__gp_s" ) </dev/null 2>&3 3>&- &`,
      ...parts.waitForJob.map((line) => `  ${line}`),
      `  printf '%sE%s:%s\\037' ${t} "$1" "$rc"`,
      `  printf '%sE%s:%s\\037' ${t} "$1" "$rc" >&3`,
      '}',
      '',
    ].join('\n');
  }
}
