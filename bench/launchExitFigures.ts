/**
 * The figure of a launch that dies before its run reports (`--only launch-exit`, issue 37): how
 * long from the detached `gp` exiting to the message the editor turns into its failed notice.
 *
 * - ours: a fresh `node dist/server.js --stdio` on a workspace whose task file has no valid line is
 *   asked to start a rollout on it (`graphPlanner/launch/start`, as *Start Rollout…* does); `gp`
 *   exits with status 2 in its first second, the server writes the run's failure with the first
 *   error of its log and sends `graphPlanner/launch/exited`. The figure is from the process's exit,
 *   as the server heard it (`exitedAt`), to that notification reaching this client; the extension
 *   shows the notice on receipt (extension/src/liveRuns.ts).
 * - anchor: in the same server, from a `status.json` written into a new folder of the watched run
 *   root to the `runs/changed` push that carries it: the road by which every other run's end
 *   reaches the editor, measured alongside. `ratio` = ours / anchor.
 * - goal: ours p50 under 1 s (before, such a launch was never reported: the progress gave up after 120 s).
 *
 * Runnable on its own: `npx tsx bench/launchExitFigures.ts` prints the outcome as JSON.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LaunchExited, LaunchSpec, LaunchStartResult, RunsChanged } from '../server/src/protocol/index.js';
import type { RunStatus } from '../server/src/protocol/runs.js';
import { errorMessage } from '../server/src/util/errors.js';
import type { BenchResult } from './result.js';
import { startServerSession } from './serverSession.js';
import { summarize } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';

export const launchExitFigureName = 'launch-exit-to-failed-notice';
const samples = 9;
const timeoutMs = 60_000;

/** Resolves with the first notification `accept` takes (its receipt time), or rejects after the deadline. */
type Waiter = { readonly accept: (method: string, params: unknown) => boolean; readonly resolve: (at: number, params: unknown) => void };

export async function benchLaunchExit(log: (line: string) => void): Promise<FigureOutcome> {
  const root = mkdtempSync(join(tmpdir(), 'gp-bench-exit-'));
  mkdirSync(join(root, 'configs', 'experiments'), { recursive: true });
  mkdirSync(join(root, 'datasets'), { recursive: true });
  writeFileSync(join(root, 'datasets', 'bad.jsonl'), '{"task_id": 5}\n{"repo": "x"}\n');
  writeFileSync(
    join(root, 'configs', 'experiments', 'bad.yaml'),
    'experiment:\n  name: bad\npaths:\n  dataset_train: datasets/bad.jsonl\n  dataset_val: datasets/bad.jsonl\nsandbox:\n  backend: local\n',
  );
  const waiters = new Set<Waiter>();
  const session = await startServerSession(root, (method, params) => {
    const at = Date.now();
    for (const w of [...waiters]) if (w.accept(method, params)) w.resolve(at, params);
  });
  const next = <T>(accept: Waiter['accept'], what: string): Promise<{ at: number; params: T }> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no ${what} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const waiter: Waiter = {
        accept,
        resolve: (at, params) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve({ at, params: params as T });
        },
      };
      waiters.add(waiter);
    });
  const spec: LaunchSpec = {
    mode: 'new',
    run: {
      kind: 'rollout',
      config: join(root, 'configs', 'experiments', 'bad.yaml'),
      taskFiles: [join(root, 'datasets', 'bad.jsonl')],
      tasks: [],
      agent: null,
      backend: null,
      parallel: null,
      attempts: null,
      sets: [],
      cwd: root,
    },
  };
  const ours: number[] = [];
  const anchor: number[] = [];
  try {
    await session.connection.sendRequest('graphPlanner/runs/list', {});
    await session.connection.sendRequest('graphPlanner/runs/watch', { watching: true, by: 'liveRuns' });
    // One unmeasured round warms the file cache and the server.
    for (let i = 0; i <= samples; i++) {
      const exited = next<LaunchExited>((m, p) => m === 'graphPlanner/launch/exited' && (p as LaunchExited).reported === false, 'launch/exited');
      const started = (await session.connection.sendRequest('graphPlanner/launch/start', spec)) as LaunchStartResult;
      if (!started.ok) throw new Error(`the launch did not start: ${started.reason}`);
      const exit = await exited;
      if (exit.params.run?.state !== 'failed' || exit.params.error === null)
        throw new Error(`the exit did not carry a failed run and its error: ${JSON.stringify(exit.params)}`);
      const o = exit.at - exit.params.exitedAt;
      const a = await statusToPush(root, i, next);
      if (i === 0) continue;
      ours.push(o);
      anchor.push(a);
      log(`launch-exit: sample ${i}/${samples}: exit → notification ${o} ms, status.json → runs/changed ${a} ms`);
    }
  } finally {
    await session.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const o = summarize(ours);
  const a = summarize(anchor);
  const result: BenchResult = {
    name: launchExitFigureName,
    what: `a detached gp rollout on a task file with no valid line: its exit (as the language server heard it) → graphPlanner/launch/exited at the client, carrying the failed run and its first error; median of ${samples}`,
    unit: 'ms',
    ours: o.median,
    anchor: a.median,
    anchorName: 'a status.json written into a new run folder → its runs/changed push (same server)',
    ratio: o.median / Math.max(1, a.median),
    goal: 'ours p50 < 1000 ms',
    pass: o.median < 1000,
    details: { ours_p90: o.p90, anchor_p90: a.p90 },
  };
  return { results: [result], notMeasured: [] };
}

/** A finished status written into a new folder of the watched root, until its `runs/changed` push (ms). */
async function statusToPush(root: string, i: number, next: <T>(accept: Waiter['accept'], what: string) => Promise<{ at: number; params: T }>): Promise<number> {
  const dir = join(root, 'outputs', `anchor-${i}`);
  const pushed = next<RunsChanged>(
    (m, p) => m === 'graphPlanner/runs/changed' && (p as RunsChanged).changed.some((r) => r.dir === dir && r.state === 'finished'),
    'runs/changed for the anchor',
  );
  const status: RunStatus = {
    state: 'finished',
    command: 'gp rollout anchor.jsonl',
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    ended_at: new Date().toISOString(),
    episodes: { total: 1, finished: 1, resolved: 1, errored: 0 },
  };
  const written = Date.now();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'status.json'), JSON.stringify(status));
  return (await pushed).at - written;
}

if (require.main === module) {
  benchLaunchExit((l) => process.stderr.write(`${l}\n`)).then(
    (outcome) => process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
