/**
 * Finding runs under an output folder (for `gp runs list` and the extension's runs view): every
 * folder with a `status.json` or a `resolved_config.yaml`, with its status when it has a valid one.
 * A run whose status says `running` but whose process is gone (on this host) is reported as such.
 */
import { errorMessage } from '../util/errors.js';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import type { RunStatus } from '../protocol/runs.js';
import { runLayout } from './layout.js';
import { readStatus } from './status.js';
import { processAlive } from '../util/processAlive.js';

export interface RunListing {
  readonly name: string;
  readonly dir: string;
  readonly status: RunStatus | undefined;
  /** Why there is no status (no file, not valid). */
  readonly problem: string | undefined;
  /** The status says running, but its process is not alive on this host: the run crashed. */
  readonly stale: boolean;
  readonly hasReport: boolean;
}

/** Whether a `running` status belongs to a process that still runs here (other hosts count as alive). */
export function statusIsLive(status: RunStatus): boolean {
  return status.state === 'running' && (status.host !== hostname() || processAlive(status.pid));
}

/** Runs under `outputDir`, newest first (by start time, then name); none when the folder is missing. */
export async function listRuns(outputDir: string): Promise<RunListing[]> {
  let entries;
  try {
    entries = await readdir(outputDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const runs: RunListing[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const run = await readRun(join(outputDir, entry.name));
    if (run !== undefined) runs.push(run);
  }
  return runs.sort((a, b) => (b.status?.started_at ?? '').localeCompare(a.status?.started_at ?? '') || b.name.localeCompare(a.name));
}

/** The listing of one run folder; undefined when the folder is not a run (no status.json, no resolved_config.yaml). */
export async function readRun(dir: string): Promise<RunListing | undefined> {
  const layout = runLayout(dir);
  if (!existsSync(layout.status) && !existsSync(layout.resolvedConfig)) return undefined;
  const read = await readStatus(layout.status);
  const status = read.ok ? read.status : undefined;
  return {
    name: basename(dir),
    dir: layout.dir,
    status,
    problem: read.ok ? undefined : read.reason,
    stale: status !== undefined && status.state === 'running' && !statusIsLive(status),
    hasReport: existsSync(layout.report),
  };
}

/**
 * The runs under several roots (the Tasks view follows every run root), and a problem per root
 * that could not be listed: one unreadable root does not hide the others.
 */
export async function listRunsUnder(roots: readonly string[], problems: string[]): Promise<RunListing[]> {
  const out: RunListing[] = [];
  for (const root of roots) {
    try {
      out.push(...(await listRuns(root)));
    } catch (error) {
      problems.push(`${root}: ${errorMessage(error)}`);
    }
  }
  return out;
}
