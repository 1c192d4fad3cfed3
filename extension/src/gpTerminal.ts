/**
 * Runs a `gp` command in a terminal of its own name, so its output and exit code stay where they
 * can be read. The command is started with an argument vector (the editor's own Node running the
 * bundled CLI), never typed into a shell: a task id or a path from a dataset reaches `gp` as one
 * argument whatever characters it holds, where text sent to a shell could end a quote with a
 * control character and run what follows (issue 21). The terminal is a pseudo-terminal that shows
 * the process's output; Ctrl-C stops the command as it would in a shell.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionState } from './extensionState.js';
import { gpDisplayLine } from './gpCommandLine.js';

export interface GpTerminalRequest {
  readonly name: string;
  readonly cwd: string;
  readonly args: readonly string[];
  readonly icon: string;
}

/** The terminal a name last ran in, and whether its process still runs. */
const terminals = new Map<string, { terminal: vscode.Terminal; process: GpProcessTerminal }>();
/** Whether the listener that forgets closed terminals is registered (once per activation). */
let forgetting = false;

export function runGpInTerminal(extensionState: ExtensionState, request: GpTerminalRequest): void {
  // A finished run's terminal gives way to the new one; a running one is left to finish beside it.
  const previous = terminals.get(request.name);
  if (previous !== undefined && !previous.process.running) previous.terminal.dispose();
  const process = new GpProcessTerminal(join(extensionState.extension.extensionPath, 'dist', 'cli.js'), request);
  const terminal = vscode.window.createTerminal({ name: request.name, pty: process, iconPath: new vscode.ThemeIcon(request.icon) });
  terminals.set(request.name, { terminal, process });
  if (!forgetting) {
    forgetting = true;
    extensionState.extension.subscriptions.push(
      vscode.window.onDidCloseTerminal((closed) => {
        for (const [name, entry] of terminals) if (entry.terminal === closed) terminals.delete(name);
      }),
    );
  }
  terminal.show();
}

/** A terminal's lines end with CR LF; a process's output ends them with LF alone. */
function forTerminal(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

class GpProcessTerminal implements vscode.Pseudoterminal {
  private readonly written = new vscode.EventEmitter<string>();
  private readonly closed = new vscode.EventEmitter<number | void>();
  readonly onDidWrite = this.written.event;
  readonly onDidClose = this.closed.event;
  private child: ChildProcess | undefined;
  private exited = false;

  constructor(
    private readonly cli: string,
    private readonly request: GpTerminalRequest,
  ) {}

  get running(): boolean {
    return this.child !== undefined && !this.exited;
  }

  open(): void {
    this.written.fire(`\x1b[2m${forTerminal(gpDisplayLine(this.request.args))}\x1b[0m\r\n`);
    // ELECTRON_RUN_AS_NODE makes the editor's own executable a plain Node, so no Node need be installed.
    const child = spawn(process.execPath, [this.cli, ...this.request.args], {
      cwd: this.request.cwd,
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.setEncoding('utf8').on('data', (text: string) => this.written.fire(forTerminal(text)));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => this.written.fire(forTerminal(text)));
    child.on('error', (error) => {
      this.exited = true;
      this.written.fire(forTerminal(`\ngp could not start: ${error.message}\n`));
    });
    child.on('close', (code, signal) => {
      this.exited = true;
      const how = code === null ? `was stopped by ${signal ?? 'a signal'}` : `exited with code ${code}`;
      this.written.fire(forTerminal(`\n[gp ${how}; press any key to close this terminal]\n`));
    });
  }

  handleInput(data: string): void {
    if (this.exited) {
      this.closed.fire(this.child?.exitCode ?? undefined);
      return;
    }
    // Ctrl-C stops the command cleanly (gp's first interrupt), as it would in a shell.
    if (data.includes('\x03')) this.child?.kill('SIGINT');
  }

  close(): void {
    if (this.running) this.child?.kill('SIGINT');
  }
}
