/**
 * A lock between processes on one machine, held while a function runs: a `<path>.lock` file
 * created exclusively, holding the owner's process id. A lock whose owner has died is taken over;
 * one held by a live process is waited for, up to a limit.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { processAlive } from './processAlive.js';

export interface FileLockOptions {
  /** How long to wait for a live owner; 0 fails at once. */
  timeoutMs?: number;
  pollMs?: number;
  /** The error when the wait ends (the owner's process id when the lock names one). */
  busy?: (owner: number | undefined) => Error;
}

export async function withFileLock<T>(path: string, work: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    try {
      const handle = await open(lock, 'wx');
      try {
        await handle.write(String(process.pid));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      // An empty file is a lock being written right now; only a named, dead owner is taken over.
      if (Number.isInteger(owner) && owner > 0 && !processAlive(owner)) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() >= deadline) {
        const named = Number.isInteger(owner) && owner > 0 ? owner : undefined;
        throw options.busy?.(named) ?? new Error(`${lock} is held by process ${named ?? 'unknown'}; remove it if no such process is running`);
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 20));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}
