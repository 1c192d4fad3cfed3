/**
 * Files to and from tar streams, the format of Docker's archive endpoints (`GET/PUT
 * /containers/{id}/archive`). A whole repository crosses in one request this way, instead of one
 * exec per file.
 */
import type { Readable } from 'node:stream';
import { extract, pack } from 'tar-stream';
import type { TreeFile } from './sandbox.js';

export interface PackEntry {
  name: string;
  content: Buffer;
  mode?: number;
}

/** A tar archive holding the given files (parents are created by Docker when it unpacks). */
export async function packFiles(entries: readonly PackEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    archive.on('data', (c: unknown) => chunks.push(c as Buffer));
    archive.on('end', () => resolve());
    archive.on('error', reject);
  });
  for (const e of entries) {
    await new Promise<void>((resolve, reject) => {
      archive.entry({ name: e.name, mode: e.mode ?? 0o644, size: e.content.length, mtime: new Date() }, e.content, (err) => (err ? reject(err) : resolve()));
    });
  }
  archive.finalize();
  await done;
  return Buffer.concat(chunks);
}

export interface ExtractOptions {
  maxFileBytes: number;
  /** Called with the path relative to the archive's top folder. */
  include: (path: string) => boolean;
  /** Drop the first path segment (Docker names entries after the requested folder). */
  stripFirst: boolean;
}

/** Reads regular files out of a tar stream; large and excluded files are drained, not kept. */
export async function extractFiles(stream: Readable, options: ExtractOptions): Promise<TreeFile[]> {
  const ex = extract();
  stream.on('error', (err: Error) => ex.destroy(err));
  stream.pipe(ex);
  const files: TreeFile[] = [];
  for await (const entry of ex) {
    const { header } = entry;
    let name = header.name.replace(/^\.\//, '');
    if (options.stripFirst) name = name.includes('/') ? name.slice(name.indexOf('/') + 1) : '';
    const wanted =
      header.type === 'file' && name !== '' && (header.size ?? 0) <= options.maxFileBytes && !name.split('/').includes('.git') && options.include(name);
    if (!wanted) {
      entry.resume();
      continue;
    }
    const parts: Buffer[] = [];
    for await (const chunk of entry) parts.push(chunk as Buffer);
    files.push({ path: name, content: Buffer.concat(parts), mode: header.mode ?? 0o644 });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
