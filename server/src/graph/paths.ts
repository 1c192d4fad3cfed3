/**
 * Mapping a path as written in a traceback or an issue (`/testbed/app/calc.py`,
 * `/usr/lib/python3/site-packages/app/calc.py`, `./app/calc.py`, `app\calc.py`) onto a file of the
 * graph: the repository root inside the sandbox is cut off, then the longest path suffix that is a
 * file of the graph wins. A suffix of one segment (`calc.py`) is accepted only for relative paths
 * and for files directly in an installation folder (`site-packages/six.py`), so a standard-library
 * `utils.py` does not land on the repository's `utils.py`. A path inside an installation folder
 * also finds the file under a source folder (`site-packages/pkg/x.py` → `src/pkg/x.py`).
 */

const installFolders = new Set(['site-packages', 'dist-packages', 'testbed']);
/** Folders a Python project keeps its package in, besides the root (the `src/` layout). */
const sourceFolders = ['src', 'lib', 'python'];

/** POSIX separators, no `./` or duplicate slashes. */
export function normalisePath(raw: string): string {
  return raw
    .trim()
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .replace(/^(\.\/)+/, '');
}

/**
 * The graph file a written path means, or undefined. `roots` are absolute folders that hold the
 * repository (the sandbox workdir, plus the graph's root inside it).
 */
export function mapRepoPath(raw: string, hasFile: (path: string) => boolean, roots: readonly string[] = []): string | undefined {
  const path = normalisePath(raw);
  if (path === '') return undefined;
  if (hasFile(path)) return path;
  for (const root of roots) {
    const prefix = root.endsWith('/') ? root : `${root}/`;
    if (path.startsWith(prefix) && hasFile(path.slice(prefix.length))) return path.slice(prefix.length);
  }
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  const absolute = path.startsWith('/');
  for (let i = 0; i < parts.length; i += 1) {
    const suffix = parts.slice(i).join('/');
    const single = i === parts.length - 1;
    if (single && absolute && !installFolders.has(parts[i - 1] ?? '')) break;
    if (hasFile(suffix)) return suffix;
  }
  // An installed package (`…/site-packages/marshmallow/fields.py`) is the repository's code under
  // a source folder when the project uses one (`src/marshmallow/fields.py`): the frame of a test
  // run against the installed copy points at the right line of the right file.
  const installed = parts.findIndex((p) => installFolders.has(p));
  if (installed >= 0 && installed < parts.length - 1) {
    const inside = parts.slice(installed + 1).join('/');
    for (const folder of sourceFolders) if (hasFile(`${folder}/${inside}`)) return `${folder}/${inside}`;
  }
  return undefined;
}
