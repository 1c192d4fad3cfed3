/**
 * The Python files of a source distribution as repository-relative texts. An sdist unpacks as
 * `<Project>-<version>/…`; that first folder is dropped so paths read as in the repository
 * (`django/db/models/query.py`, `lib/matplotlib/axes/_base.py`). Gzipped tars are read in memory,
 * keeping only the files the graph would read; zips go through the system's `unzip`, when there is one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { isPythonSource, type SourceFile } from '../server/src/graph/index.js';
import { errorMessage } from '../server/src/util/errors.js';

export type Unpacked = { readonly ok: true; readonly files: SourceFile[] } | { readonly ok: false; readonly reason: string };

/** The path inside the repository, or undefined for the top folder itself. */
export function repositoryPath(archivePath: string): string | undefined {
  const path = archivePath.replace(/^\.\//, '');
  const slash = path.indexOf('/');
  return slash < 0 || slash === path.length - 1 ? undefined : path.slice(slash + 1);
}

const wanted = (path: string | undefined): path is string => path !== undefined && isPythonSource(path);

/** Python's default source encoding is UTF-8; a byte-order mark is not part of the text. */
function decode(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const byPath = (a: SourceFile, b: SourceFile): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

async function unpackTarGz(bytes: Buffer): Promise<SourceFile[]> {
  const archive = extract();
  const input = Readable.from([bytes]).pipe(createGunzip());
  input.on('error', (error: Error) => archive.destroy(error));
  input.pipe(archive);
  const files: SourceFile[] = [];
  for await (const entry of archive) {
    const path = repositoryPath(entry.header.name);
    if (entry.header.type !== 'file' || !wanted(path)) {
      entry.resume();
      continue;
    }
    const parts: Buffer[] = [];
    for await (const chunk of entry) parts.push(chunk as Buffer);
    files.push({ path, text: decode(Buffer.concat(parts)) });
  }
  return files.sort(byPath);
}

async function unpackZip(bytes: Buffer): Promise<Unpacked> {
  if (spawnSync('unzip', ['-v'], { stdio: 'ignore' }).status !== 0) return { ok: false, reason: 'a zip sdist needs the system unzip, which is not installed' };
  const dir = await mkdtemp(join(tmpdir(), 'gp-bench-sdist-'));
  try {
    const archive = join(dir, 'sdist.zip');
    await writeFile(archive, bytes);
    const out = join(dir, 'out');
    const result = spawnSync('unzip', ['-qq', '-o', archive, '*.py', '-d', out], { encoding: 'utf8' });
    // Exit 11 means no file matched the pattern: an sdist without Python files, not a failure.
    if (result.status !== 0 && result.status !== 11)
      return { ok: false, reason: `unzip failed (exit ${result.status ?? result.signal}): ${result.stderr.trim()}` };
    const files: SourceFile[] = [];
    for (const entry of await readdir(out, { recursive: true, withFileTypes: true }).catch(() => [])) {
      if (!entry.isFile()) continue;
      const full = join(entry.parentPath, entry.name);
      const path = repositoryPath(relative(out, full).split(sep).join('/'));
      if (wanted(path)) files.push({ path, text: decode(await readFile(full)) });
    }
    return { ok: true, files: files.sort(byPath) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The sdist's Python files, by its file name's extension. */
export async function unpackSdist(filename: string, bytes: Buffer): Promise<Unpacked> {
  try {
    if (filename.endsWith('.tar.gz') || filename.endsWith('.tgz')) return { ok: true, files: await unpackTarGz(bytes) };
    if (filename.endsWith('.zip')) return await unpackZip(bytes);
    return { ok: false, reason: `${filename}: only .tar.gz and .zip sdists are read` };
  } catch (error) {
    return { ok: false, reason: `${filename} could not be unpacked: ${errorMessage(error)}` };
  }
}
