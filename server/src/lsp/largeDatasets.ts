/**
 * Finds dataset files too large for the editor to synchronise and has them validated from disk.
 * The walk (`workspaceFiles.ts`) is bounded, so opening a huge workspace costs little.
 */
import { stat } from 'node:fs/promises';
import { errorMessage } from '../util/errors.js';
import { findWorkspaceFiles } from './workspaceFiles.js';

export interface LargeDatasetScan {
  readonly roots: readonly string[];
  /** When given, only these files are considered (a file watcher reported them). */
  readonly paths?: readonly string[] | undefined;
  readonly minBytes: number;
  readonly skip: (path: string) => boolean;
  readonly validate: (path: string) => Promise<void>;
  readonly log: (message: string) => void;
}

export async function scanLargeDatasets(scan: LargeDatasetScan): Promise<number> {
  const candidates = scan.paths ? [...scan.paths] : await findJsonl(scan.roots);
  let validated = 0;
  for (const path of candidates) {
    if (scan.skip(path)) continue;
    try {
      const s = await stat(path);
      if (!s.isFile() || s.size < scan.minBytes) continue;
      scan.log(`Validating ${path} (${(s.size / 1e6).toFixed(1)} MB) from disk.`);
      await scan.validate(path);
      validated++;
    } catch (err) {
      scan.log(`Could not validate ${path}: ${errorMessage(err)}`);
    }
  }
  return validated;
}

function findJsonl(roots: readonly string[]): Promise<string[]> {
  return findWorkspaceFiles(roots, (name) => name.endsWith('.jsonl'));
}
