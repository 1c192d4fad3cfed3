/**
 * A prepare run writes everything into a staging folder beside its outputs and moves the files
 * into place only when the whole run succeeded, so a crash, a Ctrl-C or a bad input file never
 * leaves half a dataset under the final names: either the previous outputs or the new ones.
 * Staging folders of dead processes are removed by the next run.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';

const prefix = '.prepare-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

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
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) await rm(join(outDir, name), { recursive: true, force: true });
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
    this.stream = createWriteStream(path, { encoding: 'utf8' });
  }

  async write(line: string): Promise<void> {
    this.lines++;
    if (!this.stream.write(`${line}\n`)) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
}

/** Moves `files` (paths relative to `staging`) to the same relative paths under `outDir`, in order. */
export async function commitStaging(staging: string, outDir: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const target = join(outDir, file);
    await mkdir(join(target, '..'), { recursive: true });
    await rename(join(staging, file), target);
  }
  await rm(staging, { recursive: true, force: true });
}
