/**
 * A prepare run writes everything into a staging folder beside its outputs and moves the files
 * into place only when the whole run succeeded, so a crash, a Ctrl-C or a bad input file never
 * leaves half a dataset under the final names: either the previous outputs or the new ones.
 * Staging folders of dead processes are removed by the next run.
 */
import { createWriteStream, existsSync, mkdirSync, renameSync, type WriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { processAlive } from '../util/processAlive.js';

const prefix = '.prepare-';

/** Removes staging folders left in `outDir` by processes that no longer run. */
export async function removeStaleStaging(outDir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(outDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^\.prepare-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) await rm(join(outDir, name), { recursive: true, force: true });
  }
}

export async function createStaging(outDir: string): Promise<string> {
  await mkdir(outDir, { recursive: true });
  await removeStaleStaging(outDir);
  const dir = join(outDir, `${prefix}${process.pid}-${Date.now().toString(36)}`);
  await mkdir(join(dir, 'instances'), { recursive: true });
  return dir;
}

/** An append-only line writer that waits when the stream's buffer is full, so memory stays flat. */
export class LineWriter {
  private readonly stream: WriteStream;
  lines = 0;

  constructor(path: string) {
    // A large buffer: task lines are kilobytes each, and with the default 16 KiB the writer would
    // wait for a drain every few lines.
    this.stream = createWriteStream(path, { encoding: 'utf8', highWaterMark: 4 * 1024 * 1024 });
  }

  async write(line: string): Promise<void> {
    this.lines++;
    if (!this.stream.write(`${line}\n`)) await once(this.stream, 'drain');
  }

  /** Flushes and closes the file; closing again does nothing. */
  async close(): Promise<void> {
    if (this.stream.writableEnded) return;
    await new Promise<void>((resolve, reject) => this.stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
}

/**
 * Moves `files` (paths relative to `staging`) to the same relative paths under `outDir`, in order.
 * The renames are synchronous: a dataset has thousands of instance files, and a rename through
 * the promise API costs a thread-pool round trip each.
 */
export async function commitStaging(staging: string, outDir: string, files: readonly string[], options: { wholeDir?: string } = {}): Promise<void> {
  const made = new Set<string>();
  // A first run into an empty output folder moves the instance folder in one rename.
  const whole = options.wholeDir;
  const moveWhole = whole !== undefined && !existsSync(join(outDir, whole));
  if (moveWhole) renameSync(join(staging, whole), join(outDir, whole));
  for (const file of files) {
    if (moveWhole && file.startsWith(`${whole}/`)) continue;
    const target = join(outDir, file);
    const parent = dirname(target);
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    renameSync(join(staging, file), target);
  }
  await rm(staging, { recursive: true, force: true });
}
