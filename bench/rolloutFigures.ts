/**
 * The rollout figures (`--only rollout`): real rule-agent episodes on the sample tasks in Docker.
 *
 * - Environment overhead per step: for every step of the `--parallel 1` run, the environment's time
 *   minus the time of the commands the task itself runs (`env_ms − task_commands_ms`), p50, against
 *   the sandbox's command round trip (p50 of `sandbox.exec(['true'])` in a container of the sample
 *   image, measured in the same process). Goal: p50 below two round trips.
 * - Throughput with `--parallel 2` and `--parallel 4`, anchored on `--parallel 1` over the same
 *   tasks: wall seconds per episode, so `ratio` = eps/min(1) / eps/min(N) (below 1 is faster). There
 *   is no fixed goal; the figures are reported so a regression shows.
 *
 * Every container carries `graph-planner.run=bench-rollout-*-<pid>` and is removed at the end.
 * Without a daemon or without the images the figures are listed as not measured, with the reason.
 * Runnable on its own: `npx tsx bench/rolloutFigures.ts` prints the outcome as JSON.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type Docker from 'dockerode';
import { defaultSandboxOptions, containerReaper, episodeDepsFromConfig } from '../server/src/launch/index.js';
import { experimentConfigSchema, type ExperimentConfig } from '../server/src/config/index.js';
import { trajectoryLineSchema } from '../server/src/protocol/runs.js';
import { sandboxSpecSchema } from '../server/src/protocol/sandbox.js';
import { planEpisodes, runRollout, type PlannedTask, type RolloutResult } from '../server/src/rollout/index.js';
import { connectDocker } from '../server/src/sandbox/dockerClient.js';
import { DockerSandbox } from '../server/src/sandbox/dockerSandbox.js';
import { reapContainers } from '../server/src/sandbox/containers.js';
import { loadTasks } from '../server/src/tasks/index.js';
import type { BenchResult } from './result.js';
import { sampleImage, sampleWorkdir, sig3, spreadDetails, timed } from './sandboxSupport.js';
import { percentiles } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';
import { errorMessage } from '../server/src/util/errors.js';

export const overheadFigureName = 'rollout-env-overhead-per-step';
export const throughputFigureNames = ['rollout-throughput-parallel-2', 'rollout-throughput-parallel-4'] as const;
const allNames = [overheadFigureName, ...throughputFigureNames];
const datasets = ['datasets/samples.jsonl', 'datasets/sample/tasks.jsonl'];
const overheadGoal = 2;
const execWarmup = 20;
const execSamples = 200;

interface Measured {
  readonly parallel: number;
  readonly result: RolloutResult;
  readonly wallMs: number;
  readonly runDir: string;
}

function notMeasured(names: readonly string[], reason: string): FigureOutcome {
  return { results: [], notMeasured: names.map((name) => ({ name, reason })) };
}

/** The sample tasks whose image this engine has; the others are named in the log. */
export async function sampleTasks(docker: Docker, log: (line: string) => void): Promise<PlannedTask[]> {
  const out: PlannedTask[] = [];
  for (const file of datasets) {
    const path = resolve(file);
    const loaded = await loadTasks(path).catch(() => ({ tasks: [], problems: [`${file}: not readable`] }));
    for (const p of loaded.problems) log(`rollout: ${p}`);
    for (const { task, line } of loaded.tasks) {
      const image = task.sandbox.docker_image;
      const present =
        image !== undefined &&
        (await docker
          .getImage(image)
          .inspect()
          .then(
            () => true,
            () => false,
          ));
      if (present) out.push({ task, baseDir: dirname(path), source: `${file}:${line}` });
      else log(`rollout: skipping ${task.task_id}: image ${image ?? '(none)'} is not on this engine`);
    }
  }
  return out;
}

export async function execRoundTrips(run: string): Promise<number[]> {
  const sandbox = await DockerSandbox.open(
    sandboxSpecSchema.parse({ ...defaultSandboxOptions(), backend: 'docker', image: sampleImage, workdir: sampleWorkdir, run, task: 'exec-anchor' }),
  );
  try {
    for (let i = 0; i < execWarmup; i++) await sandbox.exec(['true']);
    const samples: number[] = [];
    for (let i = 0; i < execSamples; i++) {
      const { ms, value } = await timed(() => sandbox.exec(['true']));
      if (value.exitCode !== 0) throw new Error(`true exited with ${value.exitCode}`);
      samples.push(ms);
    }
    return samples;
  } finally {
    await sandbox.close();
  }
}

async function rollout(config: ExperimentConfig, tasks: readonly PlannedTask[], parallel: number, log: (line: string) => void): Promise<Measured> {
  const runName = `bench-rollout-p${parallel}-${process.pid}`;
  const runDir = join(mkdtempSync(join(tmpdir(), 'gp-bench-rollout-')), runName);
  const reaper = containerReaper(config, runName);
  const started = performance.now();
  const result = await runRollout(planEpisodes(tasks, 1), {
    runDir,
    runName,
    command: `bench rollout --parallel ${parallel}`,
    agent: 'rule',
    dataset: datasets.join(', '),
    parallel,
    signal: new AbortController().signal,
    deps: episodeDepsFromConfig(config, runName, runDir),
    ...(reaper === undefined ? {} : { reapContainers: reaper }),
  });
  const wallMs = performance.now() - started;
  log(`rollout: --parallel ${parallel}: ${result.report.total} episodes, ${result.report.resolved} resolved, ${(wallMs / 1000).toFixed(1)} s`);
  return { parallel, result, wallMs, runDir };
}

/** `env_ms − task_commands_ms` of every step line of the run's trajectories, with the action's type. */
function stepOverheads(m: Measured): { type: string; ms: number }[] {
  const out: { type: string; ms: number }[] = [];
  for (const t of m.result.report.tasks) {
    for (const line of readFileSync(join(m.runDir, t.trajectory), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const record = trajectoryLineSchema.parse(JSON.parse(line));
      if (record.type === 'step' && record.action !== undefined)
        out.push({ type: record.action.type, ms: Math.max(0, record.timings.env_ms - record.timings.task_commands_ms) });
    }
  }
  return out;
}

/** p50 and count of the overhead per action type, so the tail can be read (repairs apply patches and update the graph). */
function byActionType(steps: readonly { type: string; ms: number }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const type of [...new Set(steps.map((s) => s.type))].sort()) {
    const ms = steps.filter((s) => s.type === type).map((s) => s.ms);
    out[`${type}P50Ms`] = sig3(percentiles(ms).p50);
    out[`${type}Steps`] = ms.length;
  }
  return out;
}

const errored = (m: Measured) => m.result.report.tasks.filter((t) => t.termination_reason === 'error').length;

function overheadFigure(base: Measured, roundTrips: readonly number[]): BenchResult {
  const steps = stepOverheads(base);
  const overheads = steps.map((s) => s.ms);
  const ours = percentiles(overheads).p50;
  const anchor = percentiles(roundTrips).p50;
  const ratio = ours / anchor;
  return {
    name: overheadFigureName,
    what: `environment time per step outside the task's own commands (env_ms − task_commands_ms), p50 of ${overheads.length} steps of ${base.result.report.total} rule-agent episodes on the sample tasks in Docker (--parallel 1), vs p50 of ${roundTrips.length} sandbox.exec(['true']) round trips in a ${sampleImage} container`,
    unit: 'ms',
    ours: sig3(ours),
    anchor: sig3(anchor),
    anchorName: 'sandbox.exec round trip',
    ratio,
    goal: `ratio < ${overheadGoal}`,
    pass: ratio < overheadGoal && errored(base) === 0,
    // The environment times steps with Date.now(), so `ours` has a resolution of 1 ms.
    details: { ...spreadDetails('ours', overheads), ...byActionType(steps), ...spreadDetails('anchor', roundTrips), erroredEpisodes: errored(base) },
  };
}

function throughputFigure(base: Measured, m: Measured, name: string): BenchResult {
  const perEpisode = (x: Measured) => x.wallMs / 1000 / Math.max(1, x.result.report.total);
  const epsPerMin = (x: Measured) => (x.result.report.total * 60_000) / x.wallMs;
  const ours = perEpisode(m);
  const anchor = perEpisode(base);
  return {
    name,
    what: `wall time per episode of ${m.result.report.total} rule-agent episodes on the sample tasks in Docker with --parallel ${m.parallel}, vs --parallel 1 on the same tasks; ratio = eps/min(1) / eps/min(${m.parallel}); ${cpus().length} cores`,
    unit: 's/episode',
    ours: sig3(ours),
    anchor: sig3(anchor),
    anchorName: 'gp rollout --parallel 1',
    ratio: ours / anchor,
    goal: 'reported only (no fixed goal)',
    pass: errored(m) === 0 && errored(base) === 0,
    details: {
      oursEpisodesPerMin: sig3(epsPerMin(m)),
      anchorEpisodesPerMin: sig3(epsPerMin(base)),
      oursResolved: m.result.report.resolved,
      anchorResolved: base.result.report.resolved,
      oursErrored: errored(m),
      cores: cpus().length,
    },
  };
}

export async function benchRollout(log: (line: string) => void = (line) => console.error(line)): Promise<FigureOutcome> {
  let docker: Docker;
  try {
    ({ docker } = await connectDocker());
    await docker.getImage(sampleImage).inspect();
  } catch (error) {
    return notMeasured(
      allNames,
      `Docker or ${sampleImage} is not available (${errorMessage(error)}); build the images with \`npx tsx scripts/buildImages.ts\``,
    );
  }
  const tasks = await sampleTasks(docker, log);
  if (tasks.length === 0) return notMeasured(allNames, 'none of the sample tasks has its image on this engine');
  const config = experimentConfigSchema.parse({ sandbox: { backend: 'docker' }, rollout: { agent: 'rule' } });
  const anchorRun = `bench-rollout-exec-${process.pid}`;
  const dirs: string[] = [];
  try {
    const roundTrips = await execRoundTrips(anchorRun);
    const runs: Measured[] = [];
    for (const parallel of [1, 2, 4]) {
      const m = await rollout(config, tasks, parallel, log);
      dirs.push(dirname(m.runDir));
      runs.push(m);
    }
    roundTrips.push(...(await execRoundTrips(anchorRun)));
    const [base, two, four] = runs;
    if (base === undefined || two === undefined || four === undefined) throw new Error('a rollout did not run');
    return {
      results: [
        overheadFigure(base, roundTrips),
        throughputFigure(base, two, 'rollout-throughput-parallel-2'),
        throughputFigure(base, four, 'rollout-throughput-parallel-4'),
      ],
      notMeasured: [],
    };
  } catch (error) {
    return notMeasured(allNames, errorMessage(error));
  } finally {
    await reapContainers({ run: anchorRun, includeLive: true, docker }).catch(() => undefined);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchRollout().then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
