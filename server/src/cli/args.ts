/**
 * The one argument parser of `gp` commands: `node:util` parseArgs, strict, with its exceptions
 * turned into the answer a person needs, namely what was wrong and the command's usage:
 *
 *     gp dataset validate: unknown option --foo (did you mean --json?)
 *     Usage: gp dataset validate FILE... [--json] [--max-problems N]
 *            (gp dataset validate --help says more)
 *
 * and exit code 2. A command declares its options once and gets typed values back:
 *
 *     const args = parseCommandArgs(command, argv, { json: { type: 'boolean' } }, io);
 *     if (!args.ok) return args.exit;
 *     const n = intFlag('--max-problems', args.values['max-problems'], args.errors, 0);
 *     if (args.errors.length > 0) return usageError(command, io, args.errors);
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closest } from '../util/closest.js';
import { sandboxBackendChoices } from '../protocol/sandboxBackends.js';
import type { Io } from './output.js';
import { errorMessage } from '../util/errors.js';

/** What a usage error needs to know about its command. */
export interface CommandUsage {
  /** The words after `gp`: `dataset validate`, `rollout`. */
  readonly name: string;
  /** The usage text: synopsis lines, then description lines indented by six spaces. */
  readonly usage: string;
}

/** The options of one command as `util.parseArgs` takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;
type Options = CommandOptions;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>['values'];

export interface ParsedArgs<O extends Options> {
  readonly ok: true;
  readonly values: Values<O>;
  readonly positionals: string[];
  /** Problems found after parsing (bad numbers, missing files); `usageError` prints them. */
  readonly errors: string[];
}

export interface FailedArgs {
  readonly ok: false;
  /** The exit code of a usage error, 2; the message is already printed. */
  readonly exit: 2;
}

/** The synopsis of a usage text: its lines up to the first description line (indented by six). */
export function synopsisOf(usage: string): string {
  const lines = usage.split('\n');
  const end = lines.findIndex((l, i) => i > 0 && /^ {6}\S/.test(l));
  return (end < 0 ? lines : lines.slice(0, end)).map((l) => l.replace(/^ {2}(?=gp )/, '')).join('\n');
}

/**
 * Prints `gp NAME: message` for each message, then the command's synopsis, and returns 2: the one
 * shape of a usage error, whichever command and whichever mistake.
 */
export function usageError(command: CommandUsage, io: Io, messages: readonly string[]): 2 {
  for (const m of messages) io.err(`gp ${command.name}: ${m}`);
  const synopsis = synopsisOf(command.usage).split('\n');
  io.err(`Usage: ${synopsis.map((l, i) => (i === 0 ? l : `       ${l.trimStart()}`)).join('\n')}`);
  io.err(`       (gp ${command.name} --help says more)`);
  return 2;
}

/** Node's parseArgs messages, rewritten in our words; a typo of an option gets a suggestion. */
function explain(error: unknown, options: Options): string {
  const message = errorMessage(error);
  const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
  if (unknown !== undefined) {
    const names = Object.keys(options).map((o) => `--${o}`);
    const guess = closest(unknown, names);
    return `unknown option ${unknown}${guess === undefined ? '' : ` (did you mean ${guess}?)`}.`;
  }
  const missing = /^Option '(?:-\w, )?(--[^ ]+) <value>' argument missing/.exec(message)?.[1];
  if (missing !== undefined) return `${missing} needs a value.`;
  // The rest of Node's message explains `--`; its first sentence is the useful part.
  return message.replace(/\. To specify a positional argument.*$/s, '.');
}

/**
 * Parses `argv` (the words after the command's name) against `options`. On a bad option it prints
 * the usage error and returns `{ ok: false, exit: 2 }`.
 */
export function parseCommandArgs<const O extends Options>(command: CommandUsage, argv: readonly string[], options: O, io: Io): ParsedArgs<O> | FailedArgs {
  try {
    const parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    return { ok: true, values: parsed.values, positionals: parsed.positionals, errors: [] };
  } catch (error) {
    return { ok: false, exit: usageError(command, io, [explain(error, options)]) };
  }
}

/** Whether `argv` asks for help before any `--` (after which words are operands, not options). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** The `--backend` flag as every command's usage shows it, its values read from the one list of backends. */
export const backendFlagUsage = `[--backend ${sandboxBackendChoices.join('|')}]`;
