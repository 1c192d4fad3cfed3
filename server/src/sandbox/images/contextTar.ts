/**
 * A Docker build context: the files of a folder, read once, fingerprinted, and packed into the tar
 * stream that the Engine's build endpoint reads. The docker CLI would apply `.dockerignore`; we talk
 * to the Engine API, so the few things that must never reach an image are left out here.
 */
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import type { HashInput } from './recipeHash.js';

/**
 * Names skipped anywhere in a context: what running the sample's tests on the host leaves behind,
 * and version control folders, which would make the image's own `git init` see a second repository.
 */
const ignoredNames = new Set(['__pycache__', '.pytest_cache', '.git', '.mypy_cache', '.DS_Store']);
const ignoredSuffixes = ['.pyc', '.pyo'];

export function isIgnored(name: string): boolean {
  return ignoredNames.has(name) || ignoredSuffixes.some((s) => name.endsWith(s));
}

/**
 * Every file and symbolic link under `dir`, with `/`-separated relative names, sorted. With
 * `include`, only those top-level entries (files or folders) are read, and each must exist: a
 * context that sends the builder only what its Dockerfile copies keeps everything else (a sample's
 * `gold.diff`) out of the image, and out of the hash that decides when to rebuild.
 */
export async function readContextFiles(dir: string, include?: readonly string[]): Promise<HashInput[]> {
  const files: HashInput[] = [];
  const visit = async (name: string): Promise<void> => {
    const path = join(dir, name);
    const stat = await lstat(path);
    if (stat.isDirectory()) {
      for (const entry of await readdir(path)) if (!isIgnored(entry)) await visit(name.length === 0 ? entry : `${name}/${entry}`);
    } else if (stat.isSymbolicLink()) files.push({ name, content: Buffer.alloc(0), linkTarget: await readlink(path) });
    else if (stat.isFile()) files.push({ name, content: await readFile(path), mode: stat.mode & 0o111 ? 0o755 : 0o644 });
  };
  for (const name of include ?? ['']) await visit(name);
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The files as an uncompressed tar. Times are fixed and owners are root, so the same files always
 * give the same bytes, whoever checked them out and when.
 */
export async function packContext(files: readonly HashInput[]): Promise<Buffer> {
  const tar = pack();
  // Read while writing, so that the pack stream never has to hold more than it is handed.
  const done = (async () => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of tar as AsyncIterable<unknown>) {
      // tar-stream yields bytes; anything else would be a bug in it, not a problem with the files.
      if (!(chunk instanceof Uint8Array)) throw new TypeError('tar-stream yielded a chunk that is not bytes');
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  })();
  const common = { mtime: new Date(0), uid: 0, gid: 0, uname: 'root', gname: 'root' };
  for (const file of files) {
    if (file.linkTarget !== undefined) {
      tar.entry({ ...common, name: file.name, type: 'symlink', linkname: file.linkTarget, mode: 0o777 });
    } else {
      const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
      tar.entry({ ...common, name: file.name, mode: file.mode ?? 0o644 }, content);
    }
  }
  tar.finalize();
  return done;
}
