/**
 * What a detached launch left when its process exited (issue 37): whether its run reported an end
 * of its own, and the first error of this launch's output. A process that exits before its run
 * says it ended (a task file whose every line fails validation exits in its first second, before
 * any run file is written) gets its `status.json` written as failed, with that error as its reason,
 * so the Runs view, `gp runs list` and a later window see the attempt, not only this window.
 */
import { open } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { LogError } from '../protocol/launch.js';
import type { RunStatus } from '../protocol/runs.js';
import { firstLogError, readStatus, runLayout, writeStatus } from '../runs/index.js';
import { isoTimestamp } from '../util/time.js';
import { startDetached, type GpCommand, type ProcessExit, type StartedRun } from './detachedRun.js';
import type { LaunchPlan } from './launchPlan.js';

/** What `settleLaunchExit` needs of the launch. */
export interface ExitedLaunch {
  readonly runDir: string;
  readonly cwd: string;
  /** The command line as shown; the failure record's `command`, from which the Runs view tells the run's kind. */
  readonly display: string;
  readonly pid: number;
  readonly logFile: string;
  readonly logOffset: number;
  readonly startedAt: number;
}

export interface SettledExit {
  /** The run wrote its own end; false when this wrote the failure. */
  readonly reported: boolean;
  /** The first error of this launch's output when this wrote the failure; null when the run reported or printed nothing. */
  readonly error: LogError | null;
}

/** A started launch and how it will end: its exit, and what the exit left in the run folder. */
export interface FollowedLaunch extends StartedRun {
  readonly ended: Promise<ProcessExit & SettledExit>;
}

/** Starts a planned launch detached (launch/detachedRun.ts) and settles its exit when it comes. */
export async function startFollowed(plan: LaunchPlan, gp: GpCommand): Promise<FollowedLaunch> {
  const started = await startDetached(plan, gp);
  const launch: ExitedLaunch = { runDir: plan.runDir, cwd: plan.cwd, display: plan.display, ...started };
  const ended = started.exited.then(async (exit) => ({ ...exit, ...(await settleLaunchExit(launch, exit)) }));
  return { ...started, ended };
}

/** A launch's output is read up to this much; its first error is near its start. */
const maxLogBytes = 256 * 1024;

export async function settleLaunchExit(launch: ExitedLaunch, exit: ProcessExit): Promise<SettledExit> {
  const layout = runLayout(launch.runDir);
  const read = await readStatus(layout.status);
  const ours = read.ok && read.status.pid === launch.pid;
  // The run said how it ended; its own reason stands.
  if (ours && read.status.state !== 'running') return { reported: true, error: null };
  // Another process's live run (a second launch refused by the run's lock): its status is not ours to write.
  if (read.ok && !ours && read.status.state === 'running') return { reported: true, error: null };
  const error = firstLogError(await launchOutput(launch), launch.cwd);
  const how = exit.signal !== null ? `was ended by ${exit.signal}` : `exited with status ${exit.code ?? '?'}`;
  const reason = error?.message ?? `gp ${how} before its run reported; run.log holds its output`;
  const status: RunStatus = {
    state: 'failed',
    command: launch.display,
    pid: launch.pid,
    host: hostname(),
    started_at: ours ? read.status.started_at : isoTimestamp(new Date(launch.startedAt)),
    ended_at: isoTimestamp(new Date(exit.at)),
    exit_reason: reason,
    episodes: read.ok ? read.status.episodes : { total: 0, finished: 0, resolved: 0, errored: 0 },
  };
  await writeStatus(layout.status, status);
  return { reported: false, error };
}

/** This launch's part of `run.log` (a resume appends to the earlier output). */
async function launchOutput(launch: ExitedLaunch): Promise<string> {
  try {
    const file = await open(launch.logFile, 'r');
    try {
      const buffer = Buffer.alloc(maxLogBytes);
      const { bytesRead } = await file.read(buffer, 0, maxLogBytes, launch.logOffset);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  } catch {
    return '';
  }
}
