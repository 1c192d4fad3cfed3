/**
 * Finds files in the workspace folders: a bounded walk (depth and entry count) that skips
 * dependency, VCS and output folders, so a huge workspace costs little. The large-dataset scan,
 * the Tasks view and the run roots all find their files through it.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

const skippedFolders = new Set(['node_modules', '.git', '.cache', 'dist', 'outputs', '.venv', '__pycache__']);
const maxDepth = 6;
const maxEntries = 20_000;

/** Files under `roots` whose name passes `nameFilter` and whose path passes `accept`, in walk order. */
export async function findWorkspaceFiles(
  roots: readonly string[],
  nameFilter: (name: string) => boolean,
  accept: (path: string) => boolean = () => true,
): Promise<string[]> {
  const found: string[] = [];
  let budget = maxEntries;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > maxDepth || budget <= 0) return;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (--budget <= 0) return;
      const p = join(dir, e.name);
      if (e.isDirectory() && !skippedFolders.has(e.name)) await walk(p, depth + 1);
      else if (e.isFile() && nameFilter(e.name) && accept(p)) found.push(p);
    }
  };
  for (const r of roots) await walk(r, 0);
  return found;
}
