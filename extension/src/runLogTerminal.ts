/**
 * A terminal that follows the `run.log` of a run started detached (launch/detachedRun.ts): it
 * shows the log from where this launch began and each byte appended after, and says when the
 * process has ended. The run does not belong to the terminal: closing it stops only the
 * following, while Ctrl-C sends the run the interrupt `gp` takes as "finish cleanly", as Ctrl-C
 * in a shell would. Nothing is typed into a shell; the log is read as a file, and its control
 * characters (a task id can hold any) are shown as escapes, never sent to the terminal.
 */
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import * as vscode from 'vscode';
import { terminalSafe } from '../../server/src/protocol/terminalText.js';

export interface FollowedRun {
  readonly name: string;
  readonly icon: string;
  readonly logFile: string;
  readonly pid: number;
  /** The command line as shown (`gp dataset verify …`). */
  readonly display: string;
  /** What the terminal says once the process has ended. */
  readonly ended: string;
}

const pollMs = 400;

/** A terminal's lines end with CR LF; a process's output ends them with LF alone. */
function forTerminal(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function followRunLog(run: FollowedRun): vscode.Terminal {
  const terminal = vscode.window.createTerminal({ name: run.name, pty: new RunLogTerminal(run), iconPath: new vscode.ThemeIcon(run.icon) });
  terminal.show(true);
  return terminal;
}

class RunLogTerminal implements vscode.Pseudoterminal {
  private readonly written = new vscode.EventEmitter<string>();
  private readonly closed = new vscode.EventEmitter<number | void>();
  readonly onDidWrite = this.written.event;
  readonly onDidClose = this.closed.event;
  private timer: NodeJS.Timeout | undefined;
  private offset = 0;
  /** Keeps a UTF-8 sequence cut by a read until its last bytes arrive. */
  private readonly decoder = new StringDecoder('utf8');
  private reading = false;
  private ended = false;

  constructor(private readonly run: FollowedRun) {}

  open(): void {
    this.written.fire(
      `\x1b[2m${forTerminal(`Following ${this.run.logFile} (pid ${this.run.pid}); closing this terminal leaves the run running, Ctrl-C stops it.`)}\x1b[0m\r\n`,
    );
    this.timer = setInterval(() => void this.poll(), pollMs);
    void this.poll();
  }

  handleInput(data: string): void {
    if (this.ended) {
      this.closed.fire();
      return;
    }
    if (data.includes('\x03') && alive(this.run.pid)) {
      try {
        process.kill(this.run.pid, 'SIGINT');
        this.written.fire('\r\n\x1b[2m[sent Ctrl-C: the run finishes its running tasks and stops]\x1b[0m\r\n');
      } catch {
        // It ended meanwhile; the next poll says so.
      }
    }
  }

  close(): void {
    this.stop();
  }

  private stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Shows what was appended; once the process is gone and the log is read to its end, says so and stops. */
  private async poll(): Promise<void> {
    if (this.reading || this.ended) return;
    this.reading = true;
    try {
      // Whether it is alive is asked before reading, so the last bytes it wrote are read before the end is shown.
      const running = alive(this.run.pid);
      const text = await this.readMore();
      if (text !== '') this.written.fire(forTerminal(terminalSafe(text)));
      if (!running) {
        this.ended = true;
        this.stop();
        this.written.fire(forTerminal(`\n[${this.run.ended}; press any key to close this terminal]\n`));
      }
    } finally {
      this.reading = false;
    }
  }

  private async readMore(): Promise<string> {
    let handle;
    try {
      handle = await open(this.run.logFile, 'r');
    } catch {
      return '';
    }
    try {
      const { size } = await handle.stat();
      if (size <= this.offset) return '';
      const buffer = Buffer.alloc(size - this.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
      this.offset += bytesRead;
      return this.decoder.write(buffer.subarray(0, bytesRead));
    } finally {
      await handle.close();
    }
  }
}
