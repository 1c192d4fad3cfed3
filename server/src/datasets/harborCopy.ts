/**
 * Copying a Harbor task folder into a prepared dataset, checked first: everything the copy takes is
 * a regular file or folder inside the task folder, and the folder is not unreasonably large. A
 * task folder comes from someone else's repository, and its copy becomes an image's build context
 * and the verifier's `/tests`: a symbolic link leading out of it would carry this machine's files
 * (an SSH key, a token) into an image or a sandbox. A link that stays inside is copied as the file
 * it points to, so the copy holds no links at all.
 */
import { chmod, copyFile, lstat, mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { isWithin } from '../util/pathWithin.js';

/** How large a task folder may be; the defaults are far above any real Harbor task's. */
export interface CopyLimits {
  readonly files: number;
  readonly totalBytes: number;
  readonly fileBytes: number;
}

export const defaultCopyLimits: CopyLimits = { files: 10_000, totalBytes: 1024 * 1024 * 1024, fileBytes: 256 * 1024 * 1024 };

export type FolderCheck = { readonly ok: true; readonly files: readonly string[] } | { readonly ok: false; readonly problem: string };

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 0)} MiB`;
}

/**
 * The files of `dir` (relative, `/`-separated), or the first reason it cannot be copied: a link that
 * leads outside it or nowhere, something that is neither a file nor a folder, too many files, a
 * file or a whole too large. Nothing is read but the folder's entries and sizes.
 */
export async function checkTaskFolder(dir: string, limits: CopyLimits = defaultCopyLimits): Promise<FolderCheck> {
  const root = await realpath(dir);
  const files: string[] = [];
  let total = 0;
  const visit = async (path: string): Promise<string | undefined> => {
    for (const name of (await readdir(path)).sort()) {
      const full = join(path, name);
      const rel = relative(dir, full).split(sep).join('/');
      let info = await lstat(full);
      if (info.isSymbolicLink()) {
        const target = await realpath(full).catch(() => undefined);
        if (target === undefined) return `${full} is a symbolic link that points nowhere; replace it with the file it should be`;
        if (!isWithin(target, root))
          return `${full} is a symbolic link to ${target}, outside the task folder; a task's files must be inside its folder (copy the file in instead of linking to it)`;
        info = await stat(full);
      }
      if (info.isDirectory()) {
        const problem = await visit(full);
        if (problem !== undefined) return problem;
        continue;
      }
      if (!info.isFile()) return `${full} is neither a file nor a folder (a device, socket or pipe); remove it from the task folder`;
      if (info.size > limits.fileBytes)
        return `${full} is ${mib(info.size)}, more than the ${mib(limits.fileBytes)} one file of a task may be; keep large data out of the task folder`;
      total += info.size;
      files.push(rel);
      if (files.length > limits.files) return `${dir} holds more than ${limits.files} files; is it a task folder?`;
      if (total > limits.totalBytes) return `${dir} holds more than ${mib(limits.totalBytes)}; keep large data out of the task folder`;
    }
    return undefined;
  };
  const problem = await visit(dir);
  return problem === undefined ? { ok: true, files } : { ok: false, problem };
}

/** Copies the checked `files` of `from` into `to`, links followed (they lead inside, as checked). */
export async function copyTaskFiles(from: string, to: string, files: readonly string[]): Promise<void> {
  const made = new Set<string>();
  for (const file of files) {
    const source = join(from, ...file.split('/'));
    const target = join(to, ...file.split('/'));
    const parent = dirname(target);
    if (!made.has(parent)) {
      await mkdir(parent, { recursive: true });
      made.add(parent);
    }
    await copyFile(source, target);
    // The scripts keep their executable bit whatever the umask, as in their source.
    await chmod(target, (await stat(source)).mode & 0o777);
  }
}
