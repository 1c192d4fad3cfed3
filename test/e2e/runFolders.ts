/**
 * The run folders a scenario's launches write under the workspace's `outputs/`: listing them,
 * reading a run's status, and ending the runs a scenario left running (runs are detached from the
 * editor on purpose, so closing code-server does not end them).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runStatusSchema, type RunStatus } from '../../server/src/protocol/runs.js';
import { processAlive } from '../../server/src/util/processAlive.js';
import type { Session } from './harness.js';

/** Run folders under the workspace's `outputs/` whose name starts with `prefix`, sorted. */
export function runsNamed(s: Session, prefix: string): string[] {
  const out = join(s.workspace, 'outputs');
  return existsSync(out)
    ? readdirSync(out)
        .filter((n) => n.startsWith(prefix))
        .sort()
    : [];
}

/** The run's `status.json`, checked against its schema; throws when missing or malformed. */
export function statusOf(s: Session, run: string): RunStatus {
  return runStatusSchema.parse(JSON.parse(readFileSync(join(s.workspace, 'outputs', run, 'status.json'), 'utf8')));
}

/** Kills every run of the session whose status says running and whose process is alive. */
export function endLiveRuns(s: Session | undefined): void {
  if (s === undefined) return;
  for (const run of runsNamed(s, '')) {
    try {
      const status = statusOf(s, run);
      if (status.state === 'running' && processAlive(status.pid)) process.kill(status.pid, 'SIGKILL');
    } catch {
      // Not a run with a readable status; nothing to end.
    }
  }
}
