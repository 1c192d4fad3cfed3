/**
 * The launch figure (`--only launch`): how long `gp rollout` takes from its start to the start of
 * its first episode, which is what resolving the config (read, merge, validate, preflight, disk
 * checks), loading the tasks and preparing the run folder cost a person at every launch.
 *
 * - ours: spawn `node dist/cli.js rollout datasets/sample/tasks.jsonl --config
 *   configs/experiments/planner_debug.yaml --backend local --limit 1 --run-dir <tmp>` and time the
 *   spawn until `events.jsonl` in the run folder holds an `episode-start` event; the process is
 *   then interrupted (Ctrl-C, as a person would) and awaited, so no two samples overlap.
 * - anchor: `node dist/cli.js --version` to its exit, the cost of starting Node and loading the
 *   same bundle, measured in the same run. `ratio` = ours / anchor; what lies above 1 is launch work.
 * - before: with `GP_BENCH_BASELINE_DIR` naming a built checkout of an earlier commit (its
 *   `dist/cli.js` and the same files), the same measurement on it, interleaved with ours, so a
 *   before/after comparison comes from one run on one machine; the goal is then ours ≤ before × 1.1.
 *
 * Samples interleave the programs so that other work on the two cores falls on all of them alike.
 * Runnable on its own: `npx tsx bench/launchFigures.ts` prints the outcome as JSON.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../server/src/util/errors.js';
import type { BenchResult } from './result.js';
import { summarize } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';
import { repoRoot } from './yamlServers.js';

export const launchFigureName = 'rollout-start-to-first-episode';
const samples = 7;
const timeoutMs = 60_000;

/** Spawn → the first `episode-start` event of the run; the run is then interrupted and awaited. */
async function startToFirstEpisode(root: string): Promise<number> {
  const runDir = mkdtempSync(join(tmpdir(), 'gp-bench-launch-'));
  const events = join(runDir, 'events.jsonl');
  const args = [
    join(root, 'dist', 'cli.js'),
    'rollout',
    join(root, 'datasets', 'sample', 'tasks.jsonl'),
    '--config',
    join(root, 'configs', 'experiments', 'planner_debug.yaml'),
    '--backend',
    'local',
    '--limit',
    '1',
    '--run-dir',
    runDir,
  ];
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    for (;;) {
      if (existsSync(events) && readFileSync(events, 'utf8').includes('"kind":"episode-start"')) return performance.now() - started;
      if (child.exitCode !== null)
        throw new Error(`gp rollout exited ${child.exitCode} before an episode started: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
      if (performance.now() - started > timeoutMs) throw new Error(`no episode started within ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 1));
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
    rmSync(runDir, { recursive: true, force: true });
  }
}

/** Spawn → exit of `gp --version`: Node's start and the bundle's load, nothing else. */
async function versionOnly(root: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), '--version'], { cwd: root, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0) throw new Error(`gp --version exited ${code}`);
  return performance.now() - started;
}

export async function benchLaunch(log: (line: string) => void): Promise<FigureOutcome> {
  if (!existsSync(join(repoRoot, 'dist', 'cli.js'))) {
    return {
      results: [],
      notMeasured: [{ name: launchFigureName, reason: 'dist/cli.js is missing: run npm run build (npm run bench builds unless --no-build)' }],
    };
  }
  const baseline = process.env['GP_BENCH_BASELINE_DIR'];
  if (baseline !== undefined && !existsSync(join(baseline, 'dist', 'cli.js'))) {
    return {
      results: [],
      notMeasured: [{ name: launchFigureName, reason: `GP_BENCH_BASELINE_DIR=${baseline} has no dist/cli.js: build that checkout first` }],
    };
  }
  const ours: number[] = [];
  const anchor: number[] = [];
  const before: number[] = [];
  // One unmeasured round warms the file cache for every program.
  for (let i = 0; i <= samples; i++) {
    const o = await startToFirstEpisode(repoRoot);
    const a = await versionOnly(repoRoot);
    const b = baseline === undefined ? undefined : await startToFirstEpisode(baseline);
    if (i === 0) continue;
    ours.push(o);
    anchor.push(a);
    if (b !== undefined) before.push(b);
    log(`launch: sample ${i}/${samples}: ours ${o.toFixed(0)} ms, anchor ${a.toFixed(0)} ms${b === undefined ? '' : `, before ${b.toFixed(0)} ms`}`);
  }
  const o = summarize(ours);
  const a = summarize(anchor);
  const b = before.length > 0 ? summarize(before) : undefined;
  const result: BenchResult = {
    name: launchFigureName,
    what: `gp rollout spawn → first episode-start event (planner_debug.yaml, one sample task, local backend), median of ${samples}`,
    unit: 'ms',
    ours: o.median,
    anchor: a.median,
    anchorName: 'gp --version (Node start + bundle load)',
    ratio: o.median / a.median,
    goal: b === undefined ? 'reported only (set GP_BENCH_BASELINE_DIR for a before/after goal)' : 'ours <= before x 1.1',
    pass: b === undefined ? true : o.median <= b.median * 1.1,
    details: {
      ours_p90: o.p90,
      anchor_p90: a.p90,
      ...(b === undefined ? {} : { before_median: b.median, before_p90: b.p90, before_dir: baseline ?? '' }),
    },
  };
  return { results: [result], notMeasured: [] };
}

if (require.main === module) {
  benchLaunch((l) => process.stderr.write(`${l}\n`)).then(
    (outcome) => process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
