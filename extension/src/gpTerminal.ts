/**
 * Runs a `gp` command in a terminal of its own name (reused while it is still open), as a person
 * would type it, so its output, colours and exit code stay where they can be read and re-run.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from './ctx.js';
import { gpCommandLine } from './gpCommandLine.js';

export interface GpTerminalRequest {
  readonly name: string;
  readonly cwd: string;
  readonly args: readonly string[];
  readonly icon: string;
}

export function runGpInTerminal(ctx: Ctx, request: GpTerminalRequest): void {
  const reusable = vscode.window.terminals.find((t) => t.name === request.name && t.exitStatus === undefined);
  const terminal = reusable ?? vscode.window.createTerminal({ name: request.name, cwd: request.cwd, iconPath: new vscode.ThemeIcon(request.icon), env: { ELECTRON_RUN_AS_NODE: '1' } });
  terminal.show();
  terminal.sendText(gpCommandLine({ node: process.execPath, cli: join(ctx.extension.extensionPath, 'dist', 'cli.js'), args: request.args, platform: process.platform }));
}
