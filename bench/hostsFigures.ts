/**
 * The sandbox hosts' figures (`--only hosts`, issue 22): `gp eval --ray` (in process, through
 * `runCli`) of 32 rule-agent episodes (`GP_BENCH_HOSTS_EPISODES`) on copies of the three sample tasks in Docker, eight at once,
 * on real Ray clusters of two nodes started on this machine (test/integration/rayCluster.ts).
 *
 * - `hosts-episodes-per-minute-two-nodes`: seconds per episode through two hosts, one per node with
 *   4 `gp_sandbox_slots` each, against one host with the same 8 slots (a second cluster whose worker
 *   node offers none, so both sides carry the same idle Ray processes). Goal: ratio ≤ 1.1.
 * - `hosts-overhead-vs-local`: the one-host run against `gp eval --parallel 8` with no Ray at all,
 *   on the same episodes, so what the hosts themselves add (registry, routing, the episode's files
 *   sent back and written by the front door) shows. Goal: ratio ≤ 1.1.
 *
 * On one machine this is not a speed-up figure: both nodes share its two cores and its one Docker
 * daemon, so a second host can only add work (a second `gp sandbox host` process, the split of the
 * queue). What the first figure shows is routing overhead; on two machines the second host would
 * bring its own cores and daemon.
 *
 * Each figure's time is the episodes' phase of the run: from the first `episode-start` to the
 * `run-end` in the run's `events.jsonl`, so the clusters' start and stop (once for the group, before
 * and after every measurement) and the hosts' own start and stop (a Ray job per `gp eval --ray`, a
 * fixed cost per run, not per episode) are not in it; the details give the whole command too, and
 * the seconds until the hosts had registered. The three setups run in rounds, each round in a new
 * order, `GP_BENCH_HOSTS_ROUNDS` rounds (default 3), and each figure is the median over the rounds:
 * the machine has two cores and other work runs on it.
 *
 * Every run's containers carry `graph-planner.run=bench-hosts-*-<pid>`; after the clusters stop, the
 * bench counts what is left (containers of those runs, processes naming a cluster's temp dir), fails
 * a figure when anything is, and removes it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type Docker from 'dockerode';
import { runCli } from '../server/src/cli/main.js';
import { runReportSchema } from '../server/src/protocol/runs.js';
import { readEvents, readTrajectory } from '../server/src/runs/index.js';
import { connectDocker } from '../server/src/sandbox/dockerClient.js';
import { listContainers, reapContainers } from '../server/src/sandbox/containers.js';
import { trainerPython } from '../server/src/cluster/index.js';
import { errorMessage } from '../server/src/util/errors.js';
import { startTwoNodeCluster, type TwoNodeCluster } from '../test/integration/rayCluster.js';
import type { BenchResult } from './result.js';
import { sampleImage, sig3 } from './sandboxSupport.js';
import { quantile } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';
import { repoRoot } from './yamlServers.js';

const names = ['hosts-episodes-per-minute-two-nodes', 'hosts-overhead-vs-local'] as const;

/** A positive whole number from the environment, or the fallback. */
function fromEnv(name: string, fallback: number): number {
  const asked = Number(process.env[name] ?? String(fallback));
  return Number.isInteger(asked) && asked > 0 ? asked : fallback;
}

/**
 * Four waves of eight: with 16, one slow stretch of other work on the two cores moved a run by 30%;
 * `GP_BENCH_HOSTS_EPISODES` asks for another count.
 */
const episodeCount = fromEnv('GP_BENCH_HOSTS_EPISODES', 32);
const parallel = 8;

type Setup = 'two-hosts' | 'one-host' | 'local';

interface EvalMeasure {
  readonly setup: Setup;
  /** From the first episode-start to run-end in events.jsonl. */
  readonly episodesMs: number;
  /** runCli's call to its return: config, hosts' start, episodes, hosts' stop. */
  readonly wholeMs: number;
  /** From runCli's call to the line saying the hosts registered; absent without Ray. */
  readonly hostsReadyMs: number | undefined;
  readonly total: number;
  readonly resolved: number;
  /** Each episode's own `duration_ms` as its report records it. */
  readonly durations: readonly number[];
  /** Episodes per Ray node id, from the trajectories' start lines. */
  readonly byNode: ReadonlyMap<string, number>;
}

/** The sample tasks copied under new ids to `episodeCount` tasks, their repository path made absolute. */
function writeTasks(dir: string): string {
  const sample = readFileSync(join(repoRoot, 'datasets/sample/tasks.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { task_id: string; sandbox: { local_repo: string } });
  const lines = Array.from({ length: episodeCount }, (_, i) => {
    const task = structuredClone(sample[i % sample.length]);
    if (task === undefined) throw new Error('datasets/sample/tasks.jsonl holds no task');
    task.task_id = `${task.task_id}-${i}`;
    task.sandbox.local_repo = resolve(repoRoot, 'datasets/sample', task.sandbox.local_repo);
    return JSON.stringify(task);
  });
  const file = join(dir, 'tasks.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function episodesPhaseMs(runDir: string): Promise<number> {
  const records = (await readEvents(join(runDir, 'events.jsonl'))).records;
  const first = records.find((e) => e.kind === 'episode-start');
  const end = records.find((e) => e.kind === 'run-end');
  if (first === undefined || end === undefined) throw new Error(`${runDir}/events.jsonl has no episode-start or no run-end`);
  return Date.parse(end.ts) - Date.parse(first.ts);
}

async function episodesByNode(runDir: string): Promise<Map<string, number>> {
  const byNode = new Map<string, number>();
  for (const name of readdirSync(join(runDir, 'trajectories'))) {
    const node = (await readTrajectory(join(runDir, 'trajectories', name)))?.start?.sandbox_host?.node;
    if (node !== undefined) byNode.set(node, (byNode.get(node) ?? 0) + 1);
  }
  return byNode;
}

async function evalOnce(setup: Setup, ray: string | undefined, tasks: string, runDir: string): Promise<EvalMeasure> {
  const lines: string[] = [];
  let hostsReadyAt: number | undefined;
  const io = {
    out: (l: string) => lines.push(l),
    err: (l: string) => {
      if (/^sandbox hosts: \d+ host\(s\) with \d+ slot\(s\) registered/.test(l)) hostsReadyAt = Date.now();
      lines.push(l);
    },
  };
  const args = [
    'eval',
    tasks,
    '--agent',
    'rule',
    '--backend',
    'docker',
    '--parallel',
    String(parallel),
    '--run-dir',
    runDir,
    ...(ray === undefined ? [] : ['--ray', ray]),
  ];
  const started = Date.now();
  const code = await runCli(args, io, repoRoot);
  const wholeMs = Date.now() - started;
  if (code !== 0) throw new Error(`gp ${args.join(' ')} exited ${code}: ${lines.slice(-6).join(' | ')}`);
  const report = runReportSchema.parse(JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')));
  return {
    setup,
    episodesMs: await episodesPhaseMs(runDir),
    wholeMs,
    hostsReadyMs: hostsReadyAt === undefined ? undefined : hostsReadyAt - started,
    total: report.total,
    resolved: report.resolved,
    durations: report.tasks.map((t) => t.duration_ms),
    byNode: await episodesByNode(runDir),
  };
}

/** Why the figures cannot be measured here, or the Docker client when Docker, its image, Ray and the built CLI are all there. */
async function missing(): Promise<{ reason: string } | { docker: Docker }> {
  let docker: Docker;
  try {
    ({ docker } = await connectDocker());
    await docker.getImage(sampleImage).inspect();
  } catch (error) {
    return { reason: `Docker or ${sampleImage} is not available (${errorMessage(error)})` };
  }
  const python = trainerPython(undefined);
  const probe = spawnSync(python, ['-c', 'import ray'], { encoding: 'utf8' });
  if (probe.status !== 0)
    return {
      reason: `the trainer environment with Ray is missing or broken (${python}: ${probe.stderr.trim().split('\n').pop() ?? ''}); run bash python/setup.sh`,
    };
  if (!existsSync(join(repoRoot, 'dist', 'cli.js'))) return { reason: 'dist/cli.js is missing (the hosts run the built CLI); run npm run build' };
  return { docker };
}

/** Processes still naming one of the clusters' temp dirs (Ray's daemons and workers all do, or descend from one that does). */
function processesNaming(dirs: readonly string[]): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (dirs.some((d) => cmdline.includes(d))) count++;
    } catch {
      // Gone already.
    }
  }
  return count;
}

interface Rounds {
  readonly measures: EvalMeasure[];
  readonly clusters: { readonly two: TwoNodeCluster; readonly one: TwoNodeCluster };
}

async function runRounds(rounds: number, root: string, runs: string[], clusters: TwoNodeCluster[], log: (line: string) => void): Promise<Rounds> {
  const tasks = writeTasks(root);
  const startedAt = Date.now();
  const two = await startTwoNodeCluster({ headSlots: 4, workerSlots: 4 });
  clusters.push(two);
  const one = await startTwoNodeCluster({ headSlots: 8, workerSlots: 0 });
  clusters.push(one);
  log(`hosts: two clusters of two nodes started in ${((Date.now() - startedAt) / 1000).toFixed(0)} s (not measured)`);
  const address: Record<Setup, string | undefined> = { 'two-hosts': two.address, 'one-host': one.address, local: undefined };
  const order: Setup[] = ['two-hosts', 'one-host', 'local'];
  const measures: EvalMeasure[] = [];
  for (let round = 0; round < rounds; round++) {
    // Each round starts with another setup, so a slow stretch of other work does not always fall on the same one.
    for (const setup of [...order.slice(round % 3), ...order.slice(0, round % 3)]) {
      const run = `bench-hosts-${setup}-${round}-${process.pid}`;
      runs.push(run);
      const m = await evalOnce(setup, address[setup], tasks, join(root, run));
      log(
        `hosts: round ${round + 1}, ${setup}: ${m.resolved}/${m.total} resolved, episodes ${(m.episodesMs / 1000).toFixed(1)} s, whole command ${(m.wholeMs / 1000).toFixed(1)} s`,
      );
      measures.push(m);
    }
  }
  return { measures, clusters: { two, one } };
}

export async function benchHosts(log: (line: string) => void = (line) => console.error(line)): Promise<FigureOutcome> {
  const ready = await missing();
  if ('reason' in ready) return { results: [], notMeasured: names.map((name) => ({ name, reason: ready.reason })) };
  const rounds = fromEnv('GP_BENCH_HOSTS_ROUNDS', 3);
  const root = mkdtempSync(join(tmpdir(), 'gp-bench-hosts-'));
  const runs: string[] = [];
  const clusters: TwoNodeCluster[] = [];
  try {
    const measured = await runRounds(rounds, root, runs, clusters, log);
    for (const cluster of clusters.splice(0)) await cluster.stop();
    const left = await leftBehind(ready.docker, runs, [measured.clusters.two.tempDir, measured.clusters.one.tempDir]);
    log(`hosts: left behind after the clusters stopped: ${left.containers} container(s), ${left.processes} Ray process(es)`);
    return { results: results(measured, left), notMeasured: [] };
  } catch (error) {
    return { results: [], notMeasured: names.map((name) => ({ name, reason: errorMessage(error) })) };
  } finally {
    // After a failure: whatever is still up is stopped and removed here.
    for (const cluster of clusters) await cluster.stop().catch(() => undefined);
    await leftBehind(ready.docker, runs, []).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}

/** What the runs and clusters left once stopped, counted and then removed. */
async function leftBehind(docker: Docker, runs: readonly string[], dirs: readonly string[]): Promise<{ containers: number; processes: number }> {
  let containers = 0;
  for (const run of runs) {
    containers += (await listContainers({ run, all: true }).catch(() => [])).length;
    await reapContainers({ run, includeLive: true, docker }).catch(() => undefined);
  }
  return { containers, processes: processesNaming(dirs) };
}

const median = (values: readonly number[]): number =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

function results({ measures, clusters }: Rounds, left: { containers: number; processes: number }): BenchResult[] {
  const of = (setup: Setup) => measures.filter((m) => m.setup === setup);
  const perEpisode = (ms: readonly EvalMeasure[], key: 'episodesMs' | 'wholeMs') => median(ms.map((m) => m[key] / 1000 / Math.max(1, m.total)));
  const all = (ms: readonly EvalMeasure[]) => ms.every((m) => m.total === episodeCount && m.resolved === episodeCount);
  const clean = left.containers === 0 && left.processes === 0;
  const [twoHosts, oneHost, local] = [of('two-hosts'), of('one-host'), of('local')];
  const split = (cluster: TwoNodeCluster, ms: readonly EvalMeasure[]) =>
    cluster.nodes.map((n) => `${n.head ? 'head' : 'worker'} ${ms.map((m) => m.byNode.get(n.nodeId) ?? 0).join('/')}`).join(', ');
  const duration = (ms: readonly EvalMeasure[]) => sig3(median(ms.flatMap((m) => m.durations)));
  const samples = (ms: readonly EvalMeasure[]) => ms.map((m) => (m.episodesMs / 1000).toFixed(1)).join(', ');
  const common = {
    rounds: measures.length / 3,
    leftContainers: left.containers,
    leftRayProcesses: left.processes,
  };
  const ratio = (a: number, b: number) => a / b;
  const two = perEpisode(twoHosts, 'episodesMs');
  const one = perEpisode(oneHost, 'episodesMs');
  const bare = perEpisode(local, 'episodesMs');
  return [
    {
      name: names[0],
      what: `seconds per episode of gp eval --ray --parallel ${parallel}: ${episodeCount} rule-agent episodes (sample-task copies, Docker), episodes' phase (first episode-start to run-end), two hosts (two Ray nodes on this machine, 4 slots each) vs one host with 8 slots (the worker node offers none); median of ${common.rounds} rounds. One machine: routing overhead, not a speed-up`,
      unit: 's/episode',
      ours: sig3(two),
      anchor: sig3(one),
      anchorName: 'one host, 8 slots',
      ratio: ratio(two, one),
      goal: 'ratio <= 1.1',
      pass: ratio(two, one) <= 1.1 && all(twoHosts) && all(oneHost) && clean,
      details: {
        ...common,
        oursEpisodesPerMin: sig3(60 / two),
        anchorEpisodesPerMin: sig3(60 / one),
        oursEpisodesSeconds: samples(twoHosts),
        anchorEpisodesSeconds: samples(oneHost),
        oursEpisodeDurationP50Ms: duration(twoHosts),
        anchorEpisodeDurationP50Ms: duration(oneHost),
        oursEpisodesPerNode: split(clusters.two, twoHosts),
        anchorEpisodesPerNode: split(clusters.one, oneHost),
        oursWholeCommandPerEpisode: sig3(perEpisode(twoHosts, 'wholeMs')),
        anchorWholeCommandPerEpisode: sig3(perEpisode(oneHost, 'wholeMs')),
        oursHostsReadySeconds: sig3(median(twoHosts.map((m) => (m.hostsReadyMs ?? Number.NaN) / 1000))),
        anchorHostsReadySeconds: sig3(median(oneHost.map((m) => (m.hostsReadyMs ?? Number.NaN) / 1000))),
        oursResolved: twoHosts.map((m) => `${m.resolved}/${m.total}`).join(', '),
        anchorResolved: oneHost.map((m) => `${m.resolved}/${m.total}`).join(', '),
      },
    },
    {
      name: names[1],
      what: `seconds per episode of the same ${episodeCount} episodes, episodes' phase: gp eval --ray through one host with 8 slots vs gp eval --parallel ${parallel} in this process with no Ray (what the hosts add: registry, routing, files sent back); median of ${common.rounds} rounds`,
      unit: 's/episode',
      ours: sig3(one),
      anchor: sig3(bare),
      anchorName: `gp eval --parallel ${parallel}, no Ray`,
      ratio: ratio(one, bare),
      goal: 'ratio <= 1.1',
      pass: ratio(one, bare) <= 1.1 && all(oneHost) && all(local) && clean,
      details: {
        ...common,
        oursEpisodesPerMin: sig3(60 / one),
        anchorEpisodesPerMin: sig3(60 / bare),
        anchorEpisodesSeconds: samples(local),
        anchorEpisodeDurationP50Ms: duration(local),
        oursWholeCommandPerEpisode: sig3(perEpisode(oneHost, 'wholeMs')),
        anchorWholeCommandPerEpisode: sig3(perEpisode(local, 'wholeMs')),
        wholeCommandRatio: sig3(ratio(perEpisode(oneHost, 'wholeMs'), perEpisode(local, 'wholeMs'))),
        anchorResolved: local.map((m) => `${m.resolved}/${m.total}`).join(', '),
      },
    },
  ];
}

if (require.main === module) {
  benchHosts((line) => console.log(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
