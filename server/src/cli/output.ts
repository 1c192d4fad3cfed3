/**
 * What every `gp` command prints through: the output pair, counts in words, integer flags and the
 * cap on findings. Config findings are formatted in `configFindings.ts`. It also holds the exit
 * statuses shared by every command and those `main.ts` ends a command with, which `--help` and the
 * CLI reference list beside each command's own.
 */

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** A status a command ends with, and what it means for that command. */
export interface ExitStatus {
  readonly code: number;
  readonly meaning: string;
}

/**
 * The statuses that mean the same wherever a command returns them. Each command lists the ones it
 * returns in its row of commands.ts, beside what its own 0 and 1 mean, so `--help` and the CLI
 * reference (docs/reference/cli.md) say them from one place.
 */
export const exitStatus = {
  usage: { code: 2, meaning: 'a usage error: an unknown flag, a bad value or a missing argument' },
  usageOrConfig: { code: 2, meaning: 'a usage error, or the config has errors: nothing was started' },
  interrupted: { code: 130, meaning: 'interrupted (Ctrl-C), after closing what it had opened' },
} as const satisfies Record<string, ExitStatus>;

/** What main.ts ends any command with when the command itself could not finish. */
export const programExits = {
  internalError: { code: 70, meaning: 'an internal error (a bug): the stack is printed' },
  machineFailure: { code: 74, meaning: 'the machine failed under it (a full disk, a failing file system): gp says what to do' },
} as const satisfies Record<string, ExitStatus>;

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
