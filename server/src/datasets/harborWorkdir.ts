/**
 * The working directory a converted Harbor task starts from on the local backend, which builds no
 * image (docs/field-formats.md, "Running a Harbor task"): what the Dockerfile's final stage copies
 * from its build context into the working directory with plain `COPY` and `ADD` instructions. What
 * only a build reproduces is not there, and said: `RUN` steps, copies from other stages or URLs,
 * wildcards, and files copied elsewhere in the image, which the task's tests may need.
 */
import { cp, mkdir } from 'node:fs/promises';
import { lstat } from 'node:fs/promises';
import { basename, join, posix, resolve } from 'node:path';
import type { DockerfileFacts } from '../util/dockerfile.js';
import { isWithin } from '../util/pathWithin.js';

export interface MirroredWorkdir {
  /** Files or folders copied into the working directory, as the Dockerfile names them. */
  readonly copied: readonly string[];
  /** What the local working directory lacks that the image has, one line each; empty when nothing. */
  readonly missing: readonly string[];
}

/** Mirrors the Dockerfile's copies into `target` (the local working directory, already made). */
export async function mirrorWorkdir(facts: DockerfileFacts, context: string, workdir: string, target: string): Promise<MirroredWorkdir> {
  const copied: string[] = [];
  const missing: string[] = [];
  if (facts.runs > 0) missing.push(`${facts.runs} RUN step(s) of the Dockerfile's final stage`);
  for (const copy of facts.copies) {
    const where = `line ${copy.line} (${copy.keyword} ${[...copy.sources, copy.dest].join(' ')})`;
    if (copy.flags.includes('from')) {
      missing.push(`${where}: a copy from another stage or image`);
      continue;
    }
    if (copy.workdir === undefined) {
      missing.push(`${where}: its working directory is set through a variable`);
      continue;
    }
    const dest = posix.resolve(copy.workdir, copy.dest);
    const relativeDest = posix.relative(workdir, dest);
    if (relativeDest.startsWith('..') || posix.isAbsolute(relativeDest)) {
      missing.push(`${where}: copies outside the working directory ${workdir}`);
      continue;
    }
    const intoFolder = copy.dest.endsWith('/') || copy.sources.length > 1;
    for (const source of copy.sources) {
      if (/[*?[]/.test(source) || /^[a-z]+:\/\//i.test(source) || source.includes('$')) {
        missing.push(`${where}: ${source} is a pattern, a URL or a variable`);
        continue;
      }
      const from = resolve(context, source);
      const info = isWithin(from, context) ? await lstat(from).catch(() => undefined) : undefined;
      if (info === undefined) {
        missing.push(`${where}: ${source} is not in the build context`);
        continue;
      }
      if (copy.keyword === 'ADD' && info.isFile() && /\.(tar|tgz|tar\.(gz|bz2|xz))$/i.test(source)) {
        missing.push(`${where}: ADD unpacks the archive ${source}`);
        continue;
      }
      const into = join(target, ...relativeDest.split('/').filter((p) => p !== ''));
      // Docker copies a folder's contents, and a file into a folder when the destination says so.
      const to = info.isDirectory()
        ? into
        : intoFolder || (await lstat(into).catch(() => undefined))?.isDirectory() === true
          ? join(into, basename(from))
          : into;
      await mkdir(info.isDirectory() ? to : join(to, '..'), { recursive: true });
      await cp(from, to, { recursive: true });
      copied.push(source);
    }
  }
  return { copied, missing };
}
