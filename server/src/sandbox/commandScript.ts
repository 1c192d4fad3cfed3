/**
 * Turns a command (an argv list or a shell string) plus its working directory and environment
 * into one bash script. Both backends run commands this way, so quoting and the meaning of
 * "argv without a shell" are decided in one place.
 */
import type { Command } from './sandbox.js';

/** Quotes one word for bash: single quotes, with embedded single quotes closed and escaped. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ScriptParts {
  command: Command;
  cwd: string;
  env?: Record<string, string> | undefined;
  /** Lines run before anything else (the docker backend records the process id here). */
  prologue?: readonly string[];
  /** `ulimit -v` in KiB; the local backend's memory limit. */
  memoryKiB?: number | undefined;
}

/**
 * The script. A missing working directory exits with 125 and says so on stderr, which is what
 * a person needs to see; an invalid environment variable name is a programming error.
 */
export function commandScript(parts: ScriptParts): string {
  const lines: string[] = [...(parts.prologue ?? [])];
  lines.push(`cd -- ${shellQuote(parts.cwd)} || { echo "graph-planner: no such directory: ${parts.cwd.replace(/["$`\\]/g, '\\$&')}" >&2; exit 125; }`);
  for (const [name, value] of Object.entries(parts.env ?? {})) {
    if (!envName.test(name)) throw new Error(`Invalid environment variable name: ${JSON.stringify(name)}`);
    lines.push(`export ${name}=${shellQuote(value)}`);
  }
  if (parts.memoryKiB !== undefined) lines.push(`ulimit -v ${Math.max(1, Math.floor(parts.memoryKiB))}`);
  if (typeof parts.command === 'string') {
    lines.push(parts.command);
  } else {
    if (parts.command.length === 0) throw new Error('An argv command needs at least one word.');
    lines.push(`exec ${parts.command.map(shellQuote).join(' ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The command as one line of text, for logs and error messages. */
export function describeCommand(command: Command): string {
  const text = typeof command === 'string' ? command : command.map(shellQuote).join(' ');
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
