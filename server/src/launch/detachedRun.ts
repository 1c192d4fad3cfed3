/**
 * Starting a planned launch as a detached `gp` process: it gets its own session (so it outlives
 * the editor and the server), its output goes to the run's `run.log` (appended, so a resume keeps
 * the earlier output), and nothing waits for it. The run then reports itself through its own
 * files, exactly as a run typed in a terminal does.
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

export interface StartedRun {
  readonly pid: number;
  readonly logFile: string;
}

export async function startDetached(plan: LaunchPlan, gp: GpCommand): Promise<StartedRun> {
  const layout = runLayout(plan.runDir);
  await mkdir(layout.dir, { recursive: true });
  const log = await open(layout.runLog, 'a');
  try {
    await log.write(`\n# ${isoTimestamp(new Date())} launched from the editor in ${plan.cwd}:\n# ${plan.display}\n`);
    const child = spawn(gp.program, [...gp.prefix, ...plan.args], {
      cwd: plan.cwd,
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      // Inside VS Code the server runs on Electron's Node; this makes the same binary act as Node.
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    const pid = await new Promise<number>((resolvePid, reject) => {
      child.once('error', reject);
      child.once('spawn', () => resolvePid(child.pid ?? -1));
    });
    child.unref();
    return { pid, logFile: layout.runLog };
  } finally {
    // The child holds its own copy of the descriptor; ours is no longer needed.
    await log.close();
  }
}
