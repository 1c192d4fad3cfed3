/**
 * Failures of the machine rather than of the input: a full disk, a read-only or failing device, no
 * memory, too many open files. They are told apart by the `errno` code Node puts on the error (or
 * on an error in its `cause` chain), so a command can say what happened and what to do instead of
 * printing a stack trace, and a run can record them as infrastructure failures, never as a task's
 * result.
 */

export type IoFailureKind = 'disk-full' | 'out-of-memory' | 'io';

export interface IoFailure {
  readonly kind: IoFailureKind;
  /** The errno code, e.g. `ENOSPC`. */
  readonly errno: string;
  /** The file the operation was on, when Node names it. */
  readonly path: string | undefined;
  readonly message: string;
}

const kinds: Readonly<Record<string, IoFailureKind>> = {
  ENOSPC: 'disk-full',
  EDQUOT: 'disk-full',
  EFBIG: 'disk-full',
  ENOMEM: 'out-of-memory',
  EIO: 'io',
  EROFS: 'io',
  EMFILE: 'io',
  ENFILE: 'io',
};

/** The error and every error in its `cause` chain, outermost first (at most 8, in case of a cycle). */
export function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 8) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** The first `errno` code in the error's chain. */
export function errnoCode(error: unknown): string | undefined {
  for (const e of errorChain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  }
  return undefined;
}

/** The machine's failure behind `error`, or undefined when it is not one. */
export function ioFailure(error: unknown): IoFailure | undefined {
  for (const e of errorChain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    const kind = kinds[code];
    if (kind === undefined) continue;
    const path = (e as { path?: unknown }).path;
    return { kind, errno: code, path: typeof path === 'string' ? path : undefined, message: e instanceof Error ? e.message : String(e) };
  }
  return undefined;
}

/** What to do about a machine failure, in one sentence for a person. */
export function ioFailureAdvice(failure: IoFailure): string {
  const where = failure.path === undefined ? '' : ` writing ${failure.path}`;
  switch (failure.kind) {
    case 'disk-full':
      return `the disk is full (${failure.errno}${where}): free some space and run the command again`;
    case 'out-of-memory':
      return `the machine ran out of memory (${failure.errno}${where}): close other programs or lower the parallelism and run the command again`;
    case 'io':
      return `the file system failed (${failure.errno}${where}): check the disk and run the command again`;
  }
}
