/**
 * Appending lines to a file that a crash or a full disk may have left with a torn last line. A
 * record appended after a torn line would be glued onto it and both would be lost to every reader,
 * so an appender repairs the tail before its first append and again after a failed one: a JSON
 * Lines file drops the torn fragment (it was never a whole record), a text log ends it with a
 * newline (its words are kept, and the next line starts on a line of its own).
 */
import { appendFile, open } from 'node:fs/promises';

const chunkBytes = 64 * 1024;

/** The offset just past the file's last newline (0 when it has none). */
async function lastLineEnd(handle: import('node:fs/promises').FileHandle, size: number): Promise<number> {
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunkBytes);
    const buffer = Buffer.alloc(end - start);
    await handle.read(buffer, 0, buffer.length, start);
    const i = buffer.lastIndexOf(0x0a);
    if (i >= 0) return start + i + 1;
    end = start;
  }
  return 0;
}

export type TailRepair = 'drop' | 'terminate';

/**
 * Repairs a last line without its newline: `drop` truncates the file after its last newline,
 * `terminate` appends the newline. Returns how many bytes the torn line held (0 when the file is
 * whole or missing).
 */
export async function repairTornTail(path: string, how: TailRepair = 'drop'): Promise<number> {
  let handle;
  try {
    handle = await open(path, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return 0;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return 0;
    const keep = await lastLineEnd(handle, size);
    if (how === 'drop') await handle.truncate(keep);
    else await handle.write('\n', size);
    return size - keep;
  } finally {
    await handle.close();
  }
}

/**
 * Appends whole lines to one file. Each `append` writes its text in one call; the tail is repaired
 * before the first append and after any append that failed (a full disk can write part of a line
 * and then refuse the rest), so the file never holds a torn line followed by a whole one.
 */
export class LineAppender {
  private repaired = false;

  constructor(
    readonly path: string,
    private readonly how: TailRepair = 'drop',
    /** Told how many bytes a torn line held when one was repaired. */
    private readonly onRepair?: (bytes: number) => void,
  ) {}

  async append(text: string): Promise<void> {
    if (!this.repaired) {
      const torn = await repairTornTail(this.path, this.how);
      if (torn > 0) this.onRepair?.(torn);
      this.repaired = true;
    }
    try {
      await appendFile(this.path, text, 'utf8');
    } catch (error) {
      this.repaired = false;
      // The repair itself can fail on a failing disk; the caller still sees the append's error.
      await repairTornTail(this.path, this.how).catch(() => 0);
      throw error;
    }
  }
}
