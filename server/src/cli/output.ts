/** How the CLI prints findings: `file:line:col severity code message`, one per line, like compilers. */
import type { LineCounter } from 'yaml';
import type { LocatedFinding } from '../config/index.js';
import type { Finding } from '../protocol/index.js';
import { formatPath } from '../config/index.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export function formatLocated(file: string, lines: LineCounter, f: LocatedFinding): string {
  const pos = lines.linePos(f.range.start);
  return `${file}:${pos.line}:${pos.col} ${f.severity} ${f.code} ${f.message}`;
}

/** A finding about a command-line value has no place in the file; it names the key instead. */
export function formatUnlocated(file: string, f: Finding): string {
  return `${file}: ${f.severity} ${f.code} ${f.message}${f.path.length ? ` [${formatPath(f.path)}]` : ''}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * An integer flag: undefined when absent; otherwise the number, or a message pushed onto `errors`
 * when it is not an integer of at least `min`, so a command can report every bad flag at once.
 */
export function intFlag(name: string, value: string | undefined, errors: string[], min = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min) {
    errors.push(min === 1 ? `${name} needs a positive integer, not '${value}'.` : `${name} needs an integer of at least ${min}, not '${value}'.`);
    return undefined;
  }
  return n;
}
