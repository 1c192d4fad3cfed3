/**
 * Finding one run by name or folder, and the two things a person does to a run from outside it:
 * stopping it (SIGINT to its process, the same clean interrupt as Ctrl-C in its terminal) and
 * removing its folder (refused while it runs). `gp runs stop|rm` use these, and so does the
 * editor's Runs view (lsp/runRequests.ts), so a run behaves the same whichever side acts on it.
 */
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { readRun, statusIsLive, type RunListing } from './discover.js';
import { runLayout } from './layout.js';
import { readStatus } from './status.js';

export type FoundRun = { readonly ok: true; readonly run: RunListing } | { readonly ok: false; readonly reason: string };

/**
 * A run named `ref` under one of `roots`, or the run folder `ref` is a path to. A folder without a
 * `status.json` or a `resolved_config.yaml` is not a run, and is never acted on.
 */
export async function findRun(ref: string, roots: readonly string[], cwd: string): Promise<FoundRun> {
  const candidates = ref.includes('/') || isAbsolute(ref) ? [resolve(cwd, ref)] : roots.map((r) => join(resolve(cwd, r), ref));
  for (const dir of candidates) {
    const run = await readRun(dir);
    if (run !== undefined) return { ok: true, run };
  }
  return { ok: false, reason: `no run ${ref} under ${roots.join(', ')} (a run folder holds status.json or resolved_config.yaml; gp runs list shows them)` };
}

/** What a listing's state means to a person: a `running` status whose process is gone was interrupted. */
export function effectiveState(run: RunListing): string {
  if (run.status === undefined) return 'unknown';
  return run.stale ? 'interrupted' : run.status.state;
}

export type StopResult =
  | { readonly kind: 'stopped'; readonly state: string }
  | { readonly kind: 'still-running'; readonly waitedMs: number }
  | { readonly kind: 'not-running'; readonly state: string }
  | { readonly kind: 'elsewhere'; readonly host: string };

/**
 * Sends SIGINT to a live run on this host and waits up to `waitMs` for its status to leave
 * `running` (the run ends its episodes and closes their sandboxes first).
 */
export async function stopRun(run: RunListing, waitMs: number, kill: (pid: number, signal: NodeJS.Signals) => void = process.kill): Promise<StopResult> {
  const status = run.status;
  if (status === undefined || !statusIsLive(status)) return { kind: 'not-running', state: effectiveState(run) };
  if (status.host !== hostname()) return { kind: 'elsewhere', host: status.host };
  kill(status.pid, 'SIGINT');
  const layout = runLayout(run.dir);
  const started = Date.now();
  while (Date.now() - started < waitMs) {
    await new Promise((r) => setTimeout(r, 100));
    const read = await readStatus(layout.status);
    if (read.ok && !statusIsLive(read.status)) return { kind: 'stopped', state: read.status.state === 'running' ? 'interrupted' : read.status.state };
  }
  return { kind: 'still-running', waitedMs: waitMs };
}

export type RemoveResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Deletes a run's folder; refused while the run is live (stop it first). */
export async function removeRun(run: RunListing): Promise<RemoveResult> {
  if (run.status !== undefined && statusIsLive(run.status)) {
    return {
      ok: false,
      reason: `${basename(run.dir)} is still running (pid ${run.status.pid} on ${run.status.host}); stop it first (gp runs stop ${basename(run.dir)})`,
    };
  }
  // The process outlives its final status for a moment and may still write a file (atomic writes
  // add a temporary entry beside their target) while the folder is emptied: rm then fails with
  // ENOTEMPTY, seen in test/server/runsView.test.ts on a loaded machine, so it retries.
  await rm(run.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  return { ok: true };
}
