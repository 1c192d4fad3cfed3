/**
 * Files as they were before a candidate patch, kept in the run directory (`preimages/<sha256>`)
 * once per content: a thousand candidates against the same file cost one copy. With them the
 * trajectory viewer rebuilds every patch as a whole-file diff after the sandbox is gone. A file
 * over the per-file cap, or past the run's total cap, is recorded as skipped with the reason, so
 * the viewer can say why it cannot show the whole file instead of showing a wrong one.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Preimage } from '../protocol/observation.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { runLayout } from './layout.js';

export interface PreimageLimits {
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
}

export const defaultPreimageLimits: PreimageLimits = { maxFileBytes: 2 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };

export class PreimageStore {
  private readonly dir: string;
  /** Bytes this store wrote: the cap bounds what one rollout process adds to the run (a resumed run counts again from zero). */
  private written = 0;
  private readonly known = new Set<string>();
  /** Writes in flight by hash: episodes running in parallel often keep the same file at once. */
  private readonly writing = new Map<string, Promise<string | undefined>>();

  constructor(
    runDir: string,
    private readonly limits: PreimageLimits = defaultPreimageLimits,
  ) {
    this.dir = runLayout(runDir).preimages;
  }

  /** Records `content` as the pre-image of `path`; `undefined` content means the file did not exist. */
  async record(path: string, content: Buffer | undefined): Promise<Preimage> {
    if (content === undefined) return { path, sha256: null };
    if (content.length > this.limits.maxFileBytes)
      return { path, sha256: null, skipped: `${content.length} bytes is over the ${this.limits.maxFileBytes}-byte cap for one pre-image` };
    const sha256 = createHash('sha256').update(content).digest('hex');
    if (this.known.has(sha256)) return { path, sha256 };
    // One keeping per content at a time: parallel episodes often keep the same file at once. The
    // promise is in the map before anything is awaited, so a second caller always finds it.
    let keeping = this.writing.get(sha256);
    if (keeping === undefined) {
      keeping = this.keep(sha256, content);
      this.writing.set(sha256, keeping);
      const settled = keeping;
      void settled
        .finally(() => {
          if (this.writing.get(sha256) === settled) this.writing.delete(sha256);
        })
        .catch(() => undefined);
    }
    const skipped = await keeping;
    return skipped === undefined ? { path, sha256 } : { path, sha256: null, skipped };
  }

  /** Writes the content once; resolves to why it was not kept, or undefined when it is on disk. */
  private async keep(sha256: string, content: Buffer): Promise<string | undefined> {
    const file = join(this.dir, sha256);
    const exists = await stat(file).then(
      () => true,
      () => false,
    );
    if (!exists) {
      if (this.written + content.length > this.limits.maxTotalBytes) return `this run's pre-images reached their ${this.limits.maxTotalBytes}-byte cap`;
      this.written += content.length;
      try {
        await mkdir(this.dir, { recursive: true });
        await writeFileAtomic(file, content);
      } catch (error) {
        this.written -= content.length;
        throw error;
      }
    }
    this.known.add(sha256);
    return undefined;
  }
}

/** A stored pre-image's content, or undefined when the run does not hold it (deleted, or never written). */
export async function readPreimage(runDir: string, sha256: string): Promise<Buffer | undefined> {
  if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined;
  try {
    return await readFile(join(runLayout(runDir).preimages, sha256));
  } catch {
    return undefined;
  }
}
