/**
 * The `gp` command line a terminal shows above a command's output, so a person sees what runs and
 * can type it again. It is only shown: the command itself is started with its argument vector
 * (gpTerminal.ts). Each argument is quoted as a POSIX shell would need it, and a control character
 * is shown as an escape (protocol/terminalText.ts), so the line cannot act on the terminal either.
 * Pure, so it is unit-tested.
 */
import { visibleLine } from '../../server/src/protocol/terminalText.js';

/**
 * One argument quoted for a POSIX shell: single quotes, in which nothing is expanded, so a path
 * holding `$(...)` or backticks reads as it is; a quote inside is `'\''`.
 */
export function quoteArg(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** `gp ARGS` as shown: each argument quoted, control characters shown as escapes. */
export function gpDisplayLine(args: readonly string[]): string {
  return ['gp', ...args.map((arg) => quoteArg(visibleLine(arg)))].join(' ');
}
