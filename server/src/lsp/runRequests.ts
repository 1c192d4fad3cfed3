/**
 * The Runs view's requests and launching (declared in `protocol/runsView.ts` and
 * `protocol/launch.ts`): listing runs under the workspace's run roots, watching them while the view
 * is visible and pushing what changed, a run's episodes, stop and delete, and planning and starting
 * a launch through the engine's launcher. Run reading and control are `runs/`'s; this module only
 * connects them to the client.
 */
import {
  launchExitedNotification,
  launchPlanRequest,
  launchSpecSchema,
  launchStartRequest,
  runActionParamsSchema,
  runActionRequest,
  runEpisodesParamsSchema,
  runEpisodesRequest,
  runsChangedNotification,
  runsListRequest,
  runsWatchParamsSchema,
  runsWatchRequest,
  type LaunchExited,
  type LaunchPlanResult,
  type LaunchStartResult,
  type RunActionResult,
  type RunEpisodesResult,
  type RunsChanged,
  type RunsListResult,
} from '../protocol/index.js';
import { readRun, removeRun, RunsWatcher, stopRun } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';
import type { ServerContext } from './context.js';
import type { LaunchEnd } from './services.js';
import { runRootsOf } from './runRoots.js';

export class RunRequests {
  readonly watcher: RunsWatcher;
  private roots: string[] = [];
  /** Who asks for the runs to be watched: the Runs view while visible, the live runs while a run is live. */
  private readonly watchers = new Set<'view' | 'liveRuns'>();

  constructor(private readonly server: ServerContext) {
    this.watcher = new RunsWatcher({
      onChange: (change) => {
        const payload: RunsChanged = { ...change, sentAt: Date.now() };
        server.background(server.connection.sendNotification(runsChangedNotification, payload));
      },
      log: (m) => server.connection.console.log(m),
    });
  }

  register(): void {
    const { connection } = this.server;
    connection.onRequest(runsListRequest, async (): Promise<RunsListResult> => {
      await this.updateRoots();
      return this.watcher.list();
    });
    connection.onRequest(runsWatchRequest, async (raw: unknown): Promise<null> => {
      const { watching, by } = runsWatchParamsSchema.parse(raw);
      const before = this.watchers.size > 0;
      if (watching) this.watchers.add(by);
      else this.watchers.delete(by);
      const now = this.watchers.size > 0;
      if (watching) await this.updateRoots();
      await this.watcher.watch(now);
      if (now !== before)
        connection.console.log(
          now ? `Runs: watching ${this.roots.join(', ')} (for ${[...this.watchers].join(' and ')}).` : 'Runs: nothing asks for them; no longer watching runs.',
        );
      return null;
    });
    connection.onRequest(runEpisodesRequest, (raw: unknown): Promise<RunEpisodesResult> => this.watcher.episodes(runEpisodesParamsSchema.parse(raw).dir));
    connection.onRequest(runActionRequest, async (raw: unknown): Promise<RunActionResult> => {
      const { dir, action } = runActionParamsSchema.parse(raw);
      const run = await readRun(dir);
      if (run === undefined) return { ok: false, message: `${dir} is not a run folder any more.` };
      if (action === 'remove') {
        const removed = await removeRun(run);
        return removed.ok ? { ok: true, message: `Deleted ${run.name}.` } : { ok: false, message: removed.reason };
      }
      // The view does not wait for the run to end: its status change arrives as a push.
      const stopped = await stopRun(run, 0);
      switch (stopped.kind) {
        case 'still-running':
        case 'stopped':
          return { ok: true, message: `Sent Ctrl-C to ${run.name} (pid ${run.status?.pid ?? '?'}): it ends its running episodes and closes their sandboxes.` };
        case 'not-running':
          return { ok: false, message: `${run.name} is not running (${stopped.state}).` };
        case 'elsewhere':
          return { ok: false, message: `${run.name} runs on ${stopped.host}; stop it there (gp runs stop ${run.name}).` };
      }
    });
    connection.onRequest(launchPlanRequest, async (raw: unknown): Promise<LaunchPlanResult> => {
      const launch = this.server.services.launch;
      const spec = launchSpecSchema.parse(raw);
      if (launch === undefined) return { args: [], display: '', cwd: '', runDir: '', findings: [], refused: 'This server cannot launch runs.', values: null };
      const { command: _command, ...plan } = await launch.plan(spec);
      return plan;
    });
    connection.onRequest(launchStartRequest, async (raw: unknown): Promise<LaunchStartResult> => {
      const launch = this.server.services.launch;
      if (launch === undefined) return { ok: false, reason: 'This server cannot launch runs.', findings: [] };
      // Planned again: the files may have changed since the person saw the plan.
      const plan = await launch.plan(launchSpecSchema.parse(raw));
      if (plan.refused !== null) return { ok: false, reason: plan.refused, findings: [] };
      const errors = plan.findings.filter((f) => f.severity === 'error');
      if (errors.length > 0)
        return {
          ok: false,
          reason: `the config has ${errors.length === 1 ? 'an error' : `${errors.length} errors`}; nothing was started.`,
          findings: plan.findings,
        };
      try {
        const started = await launch.start(plan);
        this.server.connection.console.log(`Launched ${plan.display} (pid ${started.pid}) in ${plan.cwd}; output in ${started.logFile}`);
        this.server.background(started.ended.then((end) => this.reportExit(plan.runDir, started.pid, end)));
        return {
          ok: true,
          pid: started.pid,
          runDir: plan.runDir,
          logFile: started.logFile,
          display: plan.display,
          kind: plan.command === 'dataset verify' ? 'verify' : plan.command,
        };
      } catch (error) {
        return { ok: false, reason: `gp could not be started: ${errorMessage(error)}`, findings: [] };
      }
    });
  }

  /**
   * Tells the client that a launch's process exited, with its run as it is now (issue 37): a run
   * that never reported has had its failure written (launch/launchExit.ts), and the notice the
   * client shows needs no wait for the folder's change.
   */
  private async reportExit(runDir: string, pid: number, end: LaunchEnd): Promise<void> {
    const run = (await this.watcher.reread(runDir)) ?? null;
    const payload: LaunchExited = {
      runDir,
      pid,
      code: end.code,
      signal: end.signal,
      reported: end.reported,
      run,
      error: end.error,
      exitedAt: end.at,
      sentAt: Date.now(),
    };
    this.server.connection.console.log(
      `Launch in ${runDir} (pid ${pid}) exited ${end.signal ?? `with status ${end.code ?? '?'}`}${end.reported ? '' : `, before its run reported: ${end.error?.message ?? 'no error printed'}`}`,
    );
    await this.server.connection.sendNotification(launchExitedNotification, payload);
  }

  /** Re-reads the run roots (experiments may have changed their output_dir). */
  async updateRoots(): Promise<void> {
    const roots = await runRootsOf(this.server);
    this.roots = roots.map((r) => r.path);
    await this.watcher.setRoots(this.roots);
  }

  dispose(): void {
    this.watcher.dispose();
  }
}
