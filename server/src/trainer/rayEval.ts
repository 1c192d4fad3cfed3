/**
 * `gp eval … --ray ADDRESS`: a large evaluation as one Ray job on the same engine. The job's driver
 * (python/graph_planner_verl/eval_shards.py) splits the tasks into one shard per node and has Ray
 * spread the shards over the cluster, each running our own `gp eval` on its node's Docker into
 * `<run>/shards/shard-<k>/`. When the job has ended, the shards are merged into the run folder as
 * one evaluation: their trajectories, instance reports and episode events, and one `report.json`
 * built from every shard's task outcomes. Ray schedules; we only split and merge.
 */
import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentConfig } from '../config/index.js';
import { withAbsolutePaths } from '../datasets/index.js';
import type { RunReport, TaskOutcome } from '../protocol/runs.js';
import { reportFromOutcomes, type InfrastructureFailed, type PlannedTask } from '../rollout/index.js';
import { EventLog, readEvents, readReport, writeReport, type RunLayout } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';
import { RayJobsClient } from './rayJobs.js';
import { RunRecord } from './runRecord.js';
import { launchRayJob, raySubmissionId, shellCommand } from './trainerProcess.js';

export interface RayEvalOptions {
  readonly config: ExperimentConfig;
  readonly runName: string;
  readonly runDir: string;
  readonly layout: RunLayout;
  readonly tasks: readonly PlannedTask[];
  /** The run's resolved config, which every shard evaluates with. */
  readonly resolvedConfig: string;
  readonly ray: string;
  /** Shards to make; one per alive node when absent. */
  readonly shards?: number;
  readonly python: string;
  readonly adapterDir: string;
  /** How a node starts our CLI: the node executable and `dist/cli.js`. */
  readonly cli: readonly string[];
  readonly dataset: string;
  readonly command: string;
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
}

export interface RayEvalResult {
  readonly state: 'finished' | 'failed' | 'interrupted';
  readonly reason: string;
  readonly report: RunReport | undefined;
  readonly shards: number;
}

export async function runRayEval(options: RayEvalOptions): Promise<RayEvalResult> {
  const { runDir, layout } = options;
  const shardsDir = join(runDir, 'shards');
  await mkdir(shardsDir, { recursive: true });
  const tasksFile = join(shardsDir, 'tasks.jsonl');
  // Paths in a task are relative to its file; the shards read a file elsewhere, so they become absolute.
  await writeFile(tasksFile, options.tasks.map((t) => JSON.stringify(withAbsolutePaths(t.task, t.baseDir))).join('\n') + '\n');
  const specFile = join(shardsDir, 'spec.json');
  await writeFile(specFile, JSON.stringify({ tasks_file: tasksFile, shards: options.shards ?? null, run_dir: runDir, cli: options.cli, args: ['--config', options.resolvedConfig] }, null, 2));

  const events = new EventLog(layout.events);
  const record = new RunRecord(layout, options.command, options.tasks.length);
  await record.status('running');
  await events.append({ kind: 'run-start', command: options.command, total: options.tasks.length, resumed: 0 });

  const onLine = record.outputLines(options.log);
  let handle;
  try {
    handle = await launchRayJob({
      client: new RayJobsClient({ address: options.ray }),
      submissionId: raySubmissionId(options.runName, 'eval'),
      entrypoint: shellCommand([options.python, '-m', 'graph_planner_verl.eval_shards', specFile]),
      envVars: { PYTHONPATH: options.adapterDir },
      metadata: { gp_run: options.runName, gp_command: 'eval' },
      onLine,
    });
  } catch (error) {
    const reason = `the Ray job could not be submitted: ${errorMessage(error)}`;
    await events.append({ kind: 'run-end', state: 'failed', reason });
    await events.flush();
    await record.status('failed', reason);
    return { state: 'failed', reason, report: undefined, shards: 0 };
  }
  options.log(`evaluation: ${handle.where}`);
  const trainer = handle;
  const onAbort = (): void => void trainer.stop();
  options.signal.addEventListener('abort', onAbort, { once: true });
  const end = await trainer.ended;
  options.signal.removeEventListener('abort', onAbort);

  const merged = await mergeShards(options, events);
  Object.assign(record.counts, { finished: merged.tasks.length, resolved: merged.tasks.filter((t) => t.resolved).length });
  const state = options.signal.aborted ? 'interrupted' : end.ok ? 'finished' : 'failed';
  const reason = options.signal.aborted ? 'interrupted: the Ray job was stopped' : end.ok ? `${merged.shards} shard(s) merged` : `the Ray job failed: ${end.reason}; see ${layout.runLog}`;
  // A shard's infrastructure failures stay beside the merged rate, never in it.
  const report = reportFromOutcomes({ run: options.runName, agent: options.config.rollout.agent, dataset: options.dataset, createdAt: new Date(), state, planned: options.tasks.length, infrastructure: merged.infrastructure, fallbackEnabled: options.config.rollout.agent === 'model' && options.config.rollout.fallback_to_rule }, merged.tasks);
  await writeReport(layout.report, report);
  await events.append({ kind: 'run-end', state, reason });
  await events.flush();
  await record.status(state, reason);
  return { state, reason, report, shards: merged.shards };
}

/** Copies each shard's trajectories, instance reports and episode events into the run, and collects its task outcomes. */
async function mergeShards(options: RayEvalOptions, events: EventLog): Promise<{ tasks: TaskOutcome[]; infrastructure: InfrastructureFailed[]; shards: number }> {
  const shardsDir = join(options.runDir, 'shards');
  const names = (await readdir(shardsDir).catch(() => [] as string[])).filter((n) => /^shard-\d+$/.test(n)).sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)));
  const tasks: TaskOutcome[] = [];
  const infrastructure: InfrastructureFailed[] = [];
  for (const name of names) {
    const dir = join(shardsDir, name);
    const report = await readReport(join(dir, 'report.json')).catch(() => undefined);
    if (report === undefined) {
      options.log(`warning: ${dir} has no report.json; its tasks count as not finished (see ${join(dir, 'shard.log')})`);
      continue;
    }
    for (const sub of ['trajectories', 'reports', 'tests', 'preimages']) {
      if (existsSync(join(dir, sub))) await cp(join(dir, sub), join(options.runDir, sub), { recursive: true, force: false, errorOnExist: false });
    }
    const shardEvents = await readEvents(join(dir, 'events.jsonl'));
    for (const event of shardEvents.records) {
      if (event.kind === 'episode-start' || event.kind === 'episode-end' || event.kind === 'warning') {
        const { ts: _ts, ...rest } = event;
        await events.append(rest);
      }
    }
    tasks.push(...report.tasks);
    infrastructure.push(...(report.infrastructure_failures ?? []));
  }
  return { tasks, infrastructure, shards: names.length };
}
