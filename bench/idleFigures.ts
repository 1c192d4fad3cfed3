/**
 * The workbench's idle cost in real VS Code (`--only idle`): CPU time used by the extension host
 * and our server over a quiet window (default 60 s, `GP_BENCH_IDLE_SECONDS`) with the Graph Planner
 * views open on a workspace holding 50 runs (one of them live) and nothing changing, against the same
 * window with the views closed (the Explorer shown instead), measured in the same code-server session.
 * The views watch runs and Docker only while visible and poll no file, so the two should be close;
 * the figure is reported, the goal being no polling beyond the Containers view's 30 s fallback.
 * Runnable on its own: `npx tsx bench/idleFigures.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResult } from './result.js';
import { cpuMsOf, writeRuns } from './runsFigures.js';
import { sig3 } from './sandboxSupport.js';
import type { FigureOutcome } from './yamlFigures.js';
import { errorMessage } from '../server/src/util/errors.js';

const figureName = 'workbench-idle-cpu';

interface Processes {
  readonly extensionHost: number;
  readonly server: number;
}

/** The extension host and our server among code-server's process group. */
function processesOf(group: number, tempDir: string): Processes {
  let extensionHost = -1;
  let server = -1;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const pgrp = Number(stat.split(') ')[1]?.split(' ')[2]);
      if (pgrp !== group) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes('--type=extensionHost')) extensionHost = Number(entry);
      if (cmdline.includes(join(tempDir, 'extensions')) && cmdline.includes('dist/server.js')) server = Number(entry);
    } catch {
      // The process ended while we looked.
    }
  }
  if (extensionHost < 0 || server < 0)
    throw new Error(`could not find the extension host (${extensionHost}) and our server (${server}) in process group ${group}`);
  return { extensionHost, server };
}

async function cpuOver(p: Processes, seconds: number): Promise<{ extensionHost: number; server: number }> {
  const before = { extensionHost: cpuMsOf(p.extensionHost), server: cpuMsOf(p.server) };
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return { extensionHost: cpuMsOf(p.extensionHost) - before.extensionHost, server: cpuMsOf(p.server) - before.server };
}

export async function benchIdle(log: (line: string) => void): Promise<FigureOutcome> {
  const harness = await import('../test/e2e/harness.js');
  try {
    harness.checkPrerequisites();
  } catch (error) {
    return { results: [], notMeasured: [{ name: figureName, reason: errorMessage(error) }] };
  }
  const views = await import('../test/e2e/views.js');
  const workbench = await import('../test/e2e/workbench.js');
  const scenarios = await import('../test/e2e/scenarios.js');
  const seconds = Number(process.env['GP_BENCH_IDLE_SECONDS'] ?? '60');
  const session = await harness.startSession({ fixture: 'workbench' });
  try {
    writeRuns(session.workspace, 50);
    const group = session.codeServer.pid ?? -1;
    // As the end-to-end tests do: the server is ready before the views are opened from the activity bar.
    await scenarios.loggedMs(session, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
    await session.page.locator('.part.activitybar .action-label[aria-label^="Graph Planner"]').click({ timeout: 30_000 });
    await views.waitForRow(session.page, 'Runs', 'the 50 runs', (r) => r.label === 'run-049');
    const procs = processesOf(group, session.tempDir);
    // Settle: the first listing and the views' first answers are not idle time.
    await new Promise((r) => setTimeout(r, 5000));
    const open = await cpuOver(procs, seconds);
    log(`  idle with the views open: extension host ${open.extensionHost} ms, server ${open.server} ms CPU in ${seconds} s`);
    await workbench.runCommand(session.page, 'View: Show Explorer');
    await new Promise((r) => setTimeout(r, 5000));
    const closed = await cpuOver(procs, seconds);
    log(`  idle with the views closed: extension host ${closed.extensionHost} ms, server ${closed.server} ms CPU in ${seconds} s`);
    const ours = open.extensionHost + open.server;
    const anchor = closed.extensionHost + closed.server;
    const result: BenchResult = {
      name: figureName,
      what: `CPU of the extension host and our server over ${seconds} s in code-server, views open on 50 runs (one live), nothing changing`,
      unit: 'ms CPU',
      ours,
      anchor,
      anchorName: 'the same window with the views closed',
      ratio: anchor === 0 ? (ours === 0 ? 1 : Number.POSITIVE_INFINITY) : ours / anchor,
      goal: 'report; no polling beyond the 30 s fallback (ours - anchor < 1% of the window)',
      pass: ours - anchor < seconds * 1000 * 0.01,
      details: {
        openExtensionHostMs: open.extensionHost,
        openServerMs: open.server,
        closedExtensionHostMs: closed.extensionHost,
        closedServerMs: closed.server,
        seconds: sig3(seconds),
      },
    };
    return { results: [result], notMeasured: [] };
  } finally {
    await harness.stopSession(session);
  }
}

if (require.main === module) {
  benchIdle((line) => console.error(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
