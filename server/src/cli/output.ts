/**
 * What every `gp` command prints through: the output pair, counts in words, integer flags and the
 * cap on findings. Config findings are formatted in `configFindings.ts`.
 */

export interface Io {
  out(line: string): void;
  err(line: string): void;
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

/**
 * Findings printed per file when `--max-problems` is not given: a file with thousands of problems
 * would otherwise scroll its first, most telling ones away. The summary line still counts all.
 */
export const defaultMaxProblems = 50;

/** The line after a capped list of findings. */
export function moreProblems(hidden: number): string {
  return `… and ${hidden} more (use --max-problems 0 to see all)`;
}

/**
 * A printer that prints at most `max` lines (0: all) and counts the rest; `finish` prints the
 * `moreProblems` line when it held some back.
 */
export function cappedPrinter(io: Io, max: number): { print(line: string): void; finish(): void } {
  let shown = 0;
  let hidden = 0;
  return {
    print(line) {
      if (max > 0 && shown >= max) hidden++;
      else {
        shown++;
        io.out(line);
      }
    },
    finish() {
      if (hidden > 0) io.out(moreProblems(hidden));
    },
  };
}
