/**
 * A `gp` command line for the editor's terminal: the editor's own Node running the bundled CLI
 * (the terminal sets ELECTRON_RUN_AS_NODE, so no Node need be installed), each argument quoted for
 * the platform's shell. Pure, so the quoting is unit-tested.
 */

/**
 * One argument quoted for the terminal's shell: single quotes on both, POSIX shells and
 * PowerShell (VS Code's default on Windows). Single quotes are literal in both, so a path holding
 * `$(...)` or backticks is never run; a quote inside is `'\\''` for POSIX and `''` for PowerShell.
 */
export function quoteArg(arg: string, platform: NodeJS.Platform): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  if (platform === 'win32') return `'${arg.replace(/'/g, "''")}'`;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export interface GpCommand {
  /** The Node that runs the CLI: the editor's own. */
  readonly node: string;
  /** The bundled CLI, `<extensionPath>/dist/cli.js`. */
  readonly cli: string;
  /** The arguments after `gp`. */
  readonly args: readonly string[];
  readonly platform: NodeJS.Platform;
}

export function gpCommandLine(command: GpCommand): string {
  const line = [command.node, command.cli, ...command.args].map((arg) => quoteArg(arg, command.platform)).join(' ');
  // PowerShell runs a quoted program name only after the call operator.
  return command.platform === 'win32' ? `& ${line}` : line;
}
