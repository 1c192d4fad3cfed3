/**
 * The run a trajectory belongs to, as the trajectory viewer states it for an episode with nothing
 * to step through: its name, its state (a `running` run whose process is gone reads `interrupted`,
 * as `gp runs list` says) and why it ended. A trajectory outside a run folder's `trajectories/`
 * has none.
 */
import { basename, dirname } from 'node:path';
import type { EpisodeHeader } from '../protocol/episodeView.js';
import { readRun } from '../runs/index.js';

export type TrajectoryRun = NonNullable<EpisodeHeader['run']>;

export async function runOfTrajectory(trajectory: string): Promise<TrajectoryRun | undefined> {
  if (basename(dirname(trajectory)) !== 'trajectories') return undefined;
  const run = await readRun(dirname(dirname(trajectory)));
  if (run === undefined) return undefined;
  const status = run.status;
  if (status === undefined) return { name: run.name, state: 'unknown', reason: run.problem ?? null };
  if (run.stale) return { name: run.name, state: 'interrupted', reason: `its process (pid ${status.pid}) is gone without recording an end` };
  return { name: run.name, state: status.state, reason: status.exit_reason ?? null };
}
