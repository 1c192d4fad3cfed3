/**
 * Issue 22's sandbox hosts on a real Ray 2.60 cluster of two nodes on this machine (two raylets
 * advertising 4 `gp_sandbox_slots` each; test/integration/rayCluster.ts): `gp eval --ray` with
 * eight episodes at once spread over both nodes' hosts (the trajectories and the containers'
 * `graph-planner.node` labels say which), one node's host killed mid-run (its episodes run again
 * on a live host, the run finishes, nothing is left behind), and `gp train --smoke --ray` whose
 * eight episodes of one step run on both nodes, and again with one node's host killed mid-step (its
 * members reach no outcome: masked, left out of their GRPO group, counted in the step's line, shown
 * so by the group view with the trainer's own advantages). Both nodes share this machine's Docker daemon, so
 * the containers are real; the speed-up of a second machine is not (bench/ says so). Needs the
 * trainer environment (python/setup.sh), the built CLI and the sample images (npm test prepares them).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';
import { runReportSchema } from '../../server/src/protocol/runs.js';
import { metricsLineSchema, noOutcomeKey, stepSamplesLineSchema } from '../../server/src/protocol/metrics.js';
import { buildGroupView, realOutcomeAdvantages, resolveGroup, RunEpisodeIndex } from '../../server/src/groups/index.js';
import { advantageSettings } from '../../server/src/lsp/groupRequests.js';
import { readEvents, readTrajectory } from '../../server/src/runs/index.js';
import { listContainers, processAlive } from '../../server/src/sandbox/index.js';
import { trainerPython, RayJobsClient } from '../../server/src/cluster/index.js';
import { startTwoNodeCluster, type TwoNodeCluster } from './rayCluster.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-hosts-'));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

/** Twelve tasks: the three sample tasks four times over under new ids, their repository path made absolute. */
function manyTasks(): string {
  const sample = readFileSync('datasets/sample/tasks.jsonl', 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { task_id: string; sandbox: { local_repo: string } });
  const lines = Array.from({ length: 12 }, (_, i) => {
    const task = structuredClone(sample[i % sample.length]);
    if (task === undefined) throw new Error('no sample task');
    task.task_id = `${task.task_id}-${i}`;
    task.sandbox.local_repo = resolve('datasets/sample', task.sandbox.local_repo);
    return JSON.stringify(task);
  });
  const file = join(dir, 'twelve.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The nodes the run's containers are on, sampled until `done` settles: the most at once, and per node. */
async function watchContainers(run: string, done: Promise<unknown>): Promise<{ peak: number; nodes: Set<string> }> {
  let settled = false;
  void done.finally(() => (settled = true));
  let peak = 0;
  const nodes = new Set<string>();
  while (!settled) {
    const running = (await listContainers({ run }).catch(() => [])).filter((c) => c.state === 'running');
    peak = Math.max(peak, running.length);
    for (const c of running) if (c.node !== undefined) nodes.add(c.node);
    await new Promise((r) => setTimeout(r, 150));
  }
  return { peak, nodes };
}

/** What a run's hosts may leave: containers of the run, host processes, scratch folders, the spec with its token. */
async function assertNothingLeft(run: string, runDir: string): Promise<void> {
  assert.deepEqual(
    (await listContainers({ run, all: true })).map((c) => c.name),
    [],
    'no container of the run is left',
  );
  const hosts = spawnSync('pgrep', ['-f', 'cli.js sandbox host'], { encoding: 'utf8' }).stdout.trim();
  assert.equal(hosts, '', 'no sandbox host process is left');
  // A killed host's folder is swept by the host Ray starts in its place; none may outlive its owner.
  const orphans = readdirSync(tmpdir()).filter(
    (n) => n.startsWith('gp-sandbox-host-') && !processAlive(Number(readFileSync(join(tmpdir(), n, 'owner.pid'), 'utf8'))),
  );
  assert.deepEqual(orphans, [], 'no scratch folder of a dead host is left');
  assert.equal(existsSync(join(runDir, 'sandbox_hosts', 'spec.json')), false, 'the host spec (it holds the registry token) is gone');
}

/** How many of a run's episodes each node's host ran, from the trajectories' start lines. */
async function startNodes(runDir: string): Promise<Map<string, number>> {
  const starts = new Map<string, number>();
  for (const name of readdirSync(join(runDir, 'trajectories'))) {
    const t = await readTrajectory(join(runDir, 'trajectories', name));
    const node = t?.start?.sandbox_host?.node;
    if (node !== undefined) starts.set(node, (starts.get(node) ?? 0) + 1);
  }
  return starts;
}

/** `gp train --smoke` with the scripted policy, one step of eight members of one task, as a job on the cluster. */
function smokeOnCluster(runDir: string, address: string): string[] {
  return [
    'train',
    'configs/experiments/planner_debug.yaml',
    '--smoke',
    '--smoke-policy',
    'scripted',
    '--tasks',
    'datasets/sample/tasks.jsonl',
    '--task',
    'sample-calc-add',
    '--run-dir',
    runDir,
    '--stall-timeout',
    '300',
    '--set',
    'training.rollout_n=8',
    '--ray',
    address,
  ];
}

describe('sandbox hosts on a real two-node Ray cluster', () => {
  let cluster: TwoNodeCluster;
  let tasks: string;
  before(async () => {
    const python = trainerPython(undefined);
    const probe = spawnSync(python, ['-c', 'import verl, ray'], { encoding: 'utf8' });
    if (probe.status !== 0)
      throw new Error(`the trainer environment is missing or broken (${python}: ${probe.stderr.trim().split('\n').pop() ?? ''}); run bash python/setup.sh`);
    cluster = await startTwoNodeCluster({ headSlots: 4, workerSlots: 4 });
    tasks = manyTasks();
  });
  after(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('gp eval --ray runs eight episodes at once over both nodes’ hosts, and leaves nothing behind', async () => {
    const runDir = join(dir, 'eval-hosts');
    const { io: cli, out, err } = io();
    const running = runCli(['eval', tasks, '--ray', cluster.address, '--parallel', '8', '--run-dir', runDir], cli, root);
    const seen = await watchContainers('eval-hosts', running);
    const code = await running;
    assert.equal(code, 0, `${out.join('\n')}\n${err.slice(-30).join('\n')}`);
    assert.match(err.join('\n'), /sandbox hosts: 2 host\(s\) with 8 slot\(s\) registered/);
    const report = runReportSchema.parse(JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')));
    assert.equal(report.total, 12);
    assert.equal(report.resolved, 12);
    assert.equal(report.backend?.episodes.docker, 12, 'every episode ran in a container');
    // Eight at once, on both nodes: the containers' labels and the trajectories agree.
    assert.ok(seen.peak >= 8, `at most ${seen.peak} containers ran at once`);
    const nodeIds = new Set(cluster.nodes.map((n) => n.nodeId));
    assert.deepEqual(seen.nodes, nodeIds, 'containers ran on both nodes, labelled with their node');
    const byNode = await startNodes(runDir);
    assert.deepEqual(new Set(byNode.keys()), nodeIds, 'trajectories name both nodes');
    assert.equal(
      [...byNode.values()].reduce((a, b) => a + b, 0),
      12,
    );
    // The episodes' own records came back: an instance report and test logs per episode.
    assert.equal(readFileSync(join(runDir, 'test_runs.jsonl'), 'utf8').trim().split('\n').length >= 12, true);
    await assertNothingLeft('eval-hosts', runDir);
  });

  test('a node’s host killed mid-run: its episodes run again on a live host, the run finishes, nothing is left behind', async () => {
    const runDir = join(dir, 'eval-kill');
    const { io: cli, out, err } = io();
    const worker = cluster.nodes.find((n) => !n.head)?.nodeId ?? '';
    const running = runCli(['eval', tasks, '--ray', cluster.address, '--parallel', '8', '--run-dir', runDir], cli, root);
    let killed = 0;
    for (let i = 0; i < 600 && killed === 0; i++) {
      const onWorker = (await listContainers({ run: 'eval-kill' }).catch(() => [])).filter((c) => c.node === worker && c.state === 'running');
      if (onWorker.length >= 2) {
        const pid = Number(
          spawnSync('pgrep', ['-f', `sandbox host --spec - --node ${worker}`], { encoding: 'utf8' })
            .stdout.trim()
            .split('\n')[0],
        );
        assert.ok(pid > 0, 'the worker node’s host process is found');
        process.kill(pid, 'SIGKILL');
        killed = pid;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(killed > 0, 'episodes ran on the worker node’s host');
    const code = await running;
    assert.equal(code, 0, `${out.join('\n')}\n${err.slice(-30).join('\n')}`);
    assert.match(err.join('\n'), /is lost: .*(socket hang up|ECONNRESET|ECONNREFUSED)/);
    const events = await readEvents(join(runDir, 'events.jsonl'));
    const warnings = events.records.filter((e) => e.kind === 'warning' && /was lost while running it/.test(e.message));
    assert.ok(warnings.length >= 2, 'each episode on the killed host was said to run again');
    const report = runReportSchema.parse(JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')));
    assert.equal(report.total, 12);
    assert.equal(report.resolved, 12, 'every task reached its outcome on a live host');
    assert.equal(report.infrastructure_failures, undefined);
    await assertNothingLeft('eval-kill', runDir);
  });

  test('gp train --smoke --ray runs one step’s eight episodes on both nodes’ hosts through the front door', async () => {
    const runDir = join(dir, 'smoke-hosts');
    const { io: cli, out, err } = io();
    const args = smokeOnCluster(runDir, cluster.address);
    const code = await runCli(args, cli, root);
    assert.equal(code, 0, `${out.join('\n')}\n${err.slice(-40).join('\n')}`);
    assert.match(out.join('\n'), /finished: the trainer ended: Ray job SUCCEEDED/);
    assert.match(out.join('\n'), /episodes: 8 \(/);
    assert.match(readFileSync(join(runDir, 'run.log'), 'utf8'), /passed every check/);
    const byNode = await startNodes(runDir);
    assert.deepEqual(new Set(byNode.keys()), new Set(cluster.nodes.map((n) => n.nodeId)), 'the step’s episodes ran on both nodes');
    const starts = (await readEvents(join(runDir, 'events.jsonl'))).records.filter((e) => e.kind === 'episode-start');
    assert.equal(starts.length, 8);
    assert.ok(
      starts.every((e) => e.kind === 'episode-start' && e.sandbox_host !== undefined),
      'each episode-start names its host',
    );
    // No secret travels through Ray: neither the service's token nor the registry's.
    const client = new RayJobsClient({ address: cluster.address });
    for (const job of await client.list()) {
      assert.doesNotMatch(
        JSON.stringify(job),
        /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/,
        `a token-like value travelled with Ray job ${job.submission_id ?? ''}`,
      );
    }
    assert.deepEqual(
      (await client.list()).filter((j) => j.status === 'PENDING' || j.status === 'RUNNING').map((j) => j.submission_id),
      [],
      'no Ray job left running',
    );
    await assertNothingLeft('smoke-hosts', runDir);
  });

  test('a host killed in a smoke step: its members reach no outcome, are masked and left out, and the rest’s advantages are over the rest', async () => {
    const run = 'smoke-host-lost';
    const runDir = join(dir, run);
    const { io: cli, out, err } = io();
    const worker = cluster.nodes.find((n) => !n.head)?.nodeId ?? '';
    const args = smokeOnCluster(runDir, cluster.address);
    const running = runCli(args, cli, root);
    let killed = 0;
    for (let i = 0; i < 3000 && killed === 0; i++) {
      const onWorker = (await listContainers({ run }).catch(() => [])).filter((c) => c.node === worker && c.state === 'running');
      if (onWorker.length >= 1) {
        const pid = Number(
          spawnSync('pgrep', ['-f', `sandbox host --spec - --node ${worker}`], { encoding: 'utf8' })
            .stdout.trim()
            .split('\n')[0],
        );
        assert.ok(pid > 0, 'the worker node’s host process is found');
        process.kill(pid, 'SIGKILL');
        killed = pid;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(killed > 0, 'a member ran on the worker node’s host');
    const code = await running;
    const log = readFileSync(join(runDir, 'run.log'), 'utf8');
    assert.equal(code, 0, `${out.join('\n')}\n${err.slice(-40).join('\n')}\n${log.slice(-3000)}`);
    assert.match(log, /passed every check/);
    assert.match(log, /sample\(s\) reached no outcome \(the infrastructure failed them\): masked, advantage 0/);

    // The trainer's own numbers (smoke/checks.json): the lost members masked with advantage 0.
    const checks = JSON.parse(readFileSync(join(runDir, 'smoke', 'checks.json'), 'utf8')) as {
      ok: boolean;
      steps: { samples: { episode_id: string | null; model_tokens: number; advantage: number; no_outcome: boolean; score: number }[] }[];
    };
    const samples = checks.steps[0]?.samples ?? [];
    assert.equal(samples.length, 8);
    const lost = samples.filter((s) => s.no_outcome);
    const kept = samples.filter((s) => !s.no_outcome);
    assert.ok(lost.length >= 1 && kept.length >= 2, `lost ${lost.length}, kept ${kept.length}`);
    for (const s of lost) assert.deepEqual([s.model_tokens, s.advantage], [0, 0], s.episode_id ?? 'a sample without an id');

    // The run's records: each lost member's end names the lost host; the step's line counts them.
    const ends = (await readEvents(join(runDir, 'events.jsonl'))).records.flatMap((e) => (e.kind === 'episode-end' ? [e] : []));
    const lostIds = new Set(ends.filter((e) => e.infrastructure?.code === 'host-lost').map((e) => e.episode_id));
    // A member whose host died while creating its episode never learnt its id; the end line has it.
    assert.equal(lost.length, lostIds.size, 'the masked samples are the episodes whose host was lost');
    for (const s of lost) if (s.episode_id !== null) assert.ok(lostIds.has(s.episode_id), s.episode_id);
    for (const s of kept) assert.ok(!lostIds.has(s.episode_id ?? ''), s.episode_id ?? 'a kept sample without an id');
    const metrics = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => metricsLineSchema.parse(JSON.parse(l)));
    const stepLine = metrics.find((m) => m.source === 'verl');
    assert.equal(stepLine?.source === 'verl' ? stepLine.data[noOutcomeKey] : undefined, lost.length);
    assert.deepEqual(
      new Set(metrics.flatMap((m) => (m.source === 'env' && m.no_outcome !== undefined ? [`${m.episode_id}:${m.no_outcome}`] : []))),
      new Set([...lostIds].map((id) => `${id}:host-lost`)),
    );
    const table = stepSamplesLineSchema.parse(JSON.parse(readFileSync(join(runDir, 'step_samples.jsonl'), 'utf8').trim().split('\n')[0] ?? ''));
    for (const e of table.episodes) assert.equal(e.no_outcome, lostIds.has(e.episode_id) ? 'host-lost' : undefined, e.episode_id);

    // The group view shows what the trainer used: the lost members left out with advantage 0, the
    // others' advantages over the rest, equal to the trainer's.
    const index = new RunEpisodeIndex(runDir);
    await index.refresh();
    const group = resolveGroup(index.all(), { kind: 'step', step: 1, taskId: null, groupId: null });
    assert.ok(typeof group !== 'string', String(group));
    const settings = await advantageSettings(runDir);
    assert.deepEqual([settings.estimator, settings.failedMembers], ['grpo_real_outcomes', 'exclude']);
    const view = await buildGroupView(runDir, group, settings);
    assert.ok(view.ok, JSON.stringify(view));
    assert.equal(view.columns.length, 8);
    const trainer = new Map(kept.map((s) => [s.episode_id, s.advantage]));
    for (const c of view.columns) {
      const wasLost = lostIds.has(c.episodeId);
      assert.deepEqual([c.noOutcome, c.counted], wasLost ? ['host-lost', false] : [null, true], c.episodeId);
      const theirs = wasLost ? 0 : (trainer.get(c.episodeId) ?? Number.NaN);
      assert.ok(Math.abs((c.advantage ?? Number.NaN) - theirs) < 1e-5, `${c.episodeId}: view ${c.advantage}, trainer ${theirs}`);
    }
    const rest = view.columns.filter((c) => c.noOutcome === null);
    const overRest = realOutcomeAdvantages(
      rest.map((c) => c.totalReward ?? Number.NaN),
      rest.map(() => true),
      { normByStd: true, rule: 'exclude' },
    );
    assert.deepEqual(
      rest.map((c) => c.advantage),
      overRest.advantages,
    );
    assert.match(view.advantage.note ?? '', /reached no outcome \(host-lost\)/);
    await assertNothingLeft(run, runDir);
  });
});
