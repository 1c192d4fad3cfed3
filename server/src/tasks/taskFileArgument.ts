/**
 * What is wrong with a path given where a task file is expected, said so that a person can act on
 * it: a folder names the dataset files inside it (`gp rollout datasets/sample` means one of
 * `datasets/sample/*.jsonl`), and a missing file names the closest existing one. Every command that
 * reads a task file asks this first, so none of them ends in "internal error: EISDIR".
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { closest } from '../util/closest.js';
import { errorMessage } from '../util/errors.js';

/** Task files are JSONL, or a `.json` file of one task or a list (`loadTasks.ts`). */
function isTaskFile(entry: Dirent): boolean {
  return entry.isFile() && /\.jsonl?$/i.test(entry.name);
}

function listed(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Files named in a message before "and N more". */
const namedFiles = 5;

/** `shown` joined with a name inside it, keeping how the person wrote it. */
function inside(shown: string, name: string): string {
  return `${shown.replace(/\/+$/, '')}/${name}`;
}

/**
 * Undefined when `path` is a file that can be read; otherwise one sentence naming the path as the
 * person wrote it (`shown`) and what to pass instead.
 */
export function taskFileProblem(path: string, shown: string): string | undefined {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return `${shown}: cannot read it (${errorMessage(error)}).`;
    const near = closest(
      basename(path),
      listed(dirname(path))
        .filter(isTaskFile)
        .map((e) => e.name),
    );
    return `${shown}: no such file.${near === undefined ? '' : ` Did you mean ${join(dirname(shown), near)}?`}`;
  }
  if (!isFolder) return undefined;
  const files = listed(path)
    .filter(isTaskFile)
    .map((e) => e.name)
    .sort();
  if (files.length === 0) return `${shown} is a folder with no task file (.jsonl) in it; pass a task file.`;
  const more = files.length > namedFiles ? ` and ${files.length - namedFiles} more` : '';
  return `${shown} is a folder; pass one of its task files: ${files
    .slice(0, namedFiles)
    .map((f) => inside(shown, f))
    .join(', ')}${more}.`;
}
