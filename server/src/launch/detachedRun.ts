/**
 * Starting a planned launch as a detached `gp` process: it gets its own session (so it outlives
 * the editor and the server), its output goes to the run's `run.log` (appended, so a resume keeps
 * the earlier output), and nothing keeps the server alive for it. The run then reports itself
 * through its own files, exactly as a run typed in a terminal does; while the server lives it also
 * hears the process exit (`exited`), so a launch that dies before it reports is accounted for
 * (launch/launchExit.ts).
 */
import { spawn } from 'node:child_process';
import { mkdir, open } from 'node:fs/promises';
import { runLayout } from '../runs/index.js';
import { isoTimestamp } from '../util/time.js';
import type { LaunchPlan } from './launchPlan.js';

/** How to run `gp`: a program and the arguments before the command (the bundled CLI script under Node). */
export interface GpCommand {
  readonly program: string;
  readonly prefix: readonly string[];
}

/** How the process ended: its status or the signal that ended it, and when (ms since the epoch). */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly at: number;
}

export interface StartedRun {
  readonly pid: number;
  readonly logFile: string;
  /** Where this launch's output begins in `run.log`, after the lines written before it. */
  readonly logOffset: number;
  /** When the launch was started (ms since the epoch). */
  readonly startedAt: number;
  /** Settles when the process exits (never, if the server ends first). */
  readonly exited: Promise<ProcessExit>;
}

export async function startDetached(plan: LaunchPlan, gp: GpCommand): Promise<StartedRun> {
  const layout = runLayout(plan.runDir);
  await mkdir(layout.dir, { recursive: true });
  const log = await open(layout.runLog, 'a');
  const startedAt = Date.now();
  try {
    await log.write(`\n# ${isoTimestamp(new Date(startedAt))} launched from the editor in ${plan.cwd}:\n# ${plan.display}\n`);
    const logOffset = (await log.stat()).size;
    const child = spawn(gp.program, [...gp.prefix, ...plan.args], {
      cwd: plan.cwd,
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      // Inside VS Code the server runs on Electron's Node; this makes the same binary act as Node.
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    const exited = new Promise<ProcessExit>((resolveExit) => child.once('exit', (code, signal) => resolveExit({ code, signal, at: Date.now() })));
    const pid = await new Promise<number>((resolvePid, reject) => {
      child.once('error', reject);
      child.once('spawn', () => resolvePid(child.pid ?? -1));
    });
    // Unreferenced, the process does not keep the server alive; its exit is still heard while the server runs.
    child.unref();
    return { pid, logFile: layout.runLog, logOffset, startedAt, exited };
  } finally {
    // The child holds its own copy of the descriptor; ours is no longer needed.
    await log.close();
  }
}
