/**
 * Writes a file atomically: a temporary file in the same folder, flushed, then renamed over the
 * target, so a reader (or a crash) never sees half a file.
 */
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

let written = 0;

/** `mode` sets the file's permissions from its creation on (0o600 for a file holding a secret). */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode?: number): Promise<void> {
  // Unique per call: two writes of one path in the same millisecond must not share a temporary file.
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.${++written}.tmp`);
  try {
    const handle = await open(tmp, 'w', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    // A full disk or a failed rename leaves no temporary file behind.
    await rm(tmp, { force: true });
    throw err;
  }
}
