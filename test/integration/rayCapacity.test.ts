/**
 * Issue 22's capacity side on a real Ray 2.60 cluster of two nodes on this machine (two raylets,
 * head and worker, advertising 3 and 2 `gp_sandbox_slots`; test/integration/rayCluster.ts):
 * the dashboard's nodes read by cluster/rayCluster.ts, the capacity preflight through the CLI
 * (`gp config check --ray`, `gp train --dry-run --ray`), and `gp images prepull --ray` running the
 * real driver on each node against the Docker daemon both nodes share. Needs the trainer
 * environment (python/setup.sh), the built CLI and the sample images (npm test prepares them).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';
import { nodePrepullLineSchema } from '../../server/src/protocol/rayCluster.js';
import { trainerPython, readClusterSlots } from '../../server/src/cluster/index.js';
import { startTwoNodeCluster, type TwoNodeCluster } from './rayCluster.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-ray-capacity-'));
// Four tasks per step, two episodes each: eight at once, against five slots.
const config = join(dir, 'eight.yaml');
writeFileSync(config, 'training:\n  train_batch_size: 4\n  rollout_n: 2\nrollout:\n  parallel: 4\n');

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

describe('sandbox capacity on a real two-node Ray cluster', () => {
  let cluster: TwoNodeCluster;
  before(async () => {
    const python = trainerPython(undefined);
    const probe = spawnSync(python, ['-c', 'import ray'], { encoding: 'utf8' });
    if (probe.status !== 0)
      throw new Error(`the trainer environment is missing or broken (${python}: ${probe.stderr.trim().split('\n').pop() ?? ''}); run bash python/setup.sh`);
    cluster = await startTwoNodeCluster({ headSlots: 3, workerSlots: 2 });
  });
  after(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the dashboard gives both nodes with the slots each advertised: 3 + 2', async () => {
    assert.deepEqual(
      cluster.nodes.map((n) => [n.head, n.slots]),
      [
        [true, 3],
        [false, 2],
      ],
    );
    const read = await readClusterSlots(cluster.address);
    assert.equal(read.ok, true, read.ok ? '' : read.message);
    if (!read.ok) return;
    assert.equal(read.cluster.slots, 5);
    assert.equal(read.cluster.nodes, 2);
    assert.deepEqual(new Map(read.cluster.perNode.map((n) => [n.node_id, n.slots])), new Map(cluster.nodes.map((n) => [n.nodeId, n.slots])));
  });

  test('gp config check --ray warns that eight episodes at once exceed the five slots; --for eval fits', async () => {
    const train = io();
    assert.equal(await runCli(['config', 'check', config, '--no-disk', '--ray', cluster.address], train.io, root), 0, train.err.join('\n'));
    assert.match(
      train.out.join('\n'),
      /eight\.yaml:2:21 warning preflight\/sandbox-capacity 8 episodes run at once \(training\.train_batch_size 4 × training\.rollout_n 2\), but the cluster offers 5 sandbox slots on 2 nodes: 3 wait for a slot each time/,
    );
    const evaluation = io();
    assert.equal(await runCli(['config', 'check', config, '--no-disk', '--ray', cluster.address, '--for', 'eval'], evaluation.io, root), 0);
    assert.doesNotMatch(evaluation.out.join('\n'), /sandbox-capacity/);
  });

  test('gp train --dry-run --ray prints the same finding before it starts nothing', async () => {
    const { io: cli, out, err } = io();
    const code = await runCli(
      [
        'train',
        config,
        '--dry-run',
        '--tasks',
        'datasets/sample/tasks.jsonl',
        '--set',
        'training.train_batch_size=3',
        '--set',
        'training.rollout_n=2',
        '--ray',
        cluster.address,
        '--run-dir',
        join(dir, 'never-written'),
      ],
      cli,
      root,
    );
    assert.equal(code, 0, err.join('\n'));
    assert.match(err.join('\n'), /warning preflight\/sandbox-capacity 6 episodes run at once .* but the cluster offers 5 sandbox slots on 2 nodes/);
    assert.match(out.join('\n'), /verl\.trainer\.main_ppo/);
  });

  test('gp images prepull --ray runs on each node that offers slots, and each finds the sample image present', async () => {
    const { io: cli, out, err } = io();
    const code = await runCli(['images', 'prepull', 'datasets/sample/tasks.jsonl', '--ray', cluster.address, '--json'], cli, root);
    assert.equal(code, 0, `${out.join('\n')}\n${err.slice(-30).join('\n')}`);
    const report = JSON.parse(out.join('\n')) as { nodes: unknown[]; unanswered: unknown[] };
    const nodes = report.nodes.map((n) => nodePrepullLineSchema.parse(n));
    assert.deepEqual(report.unanswered, []);
    assert.deepEqual(new Set(nodes.map((n) => n.node_id)), new Set(cluster.nodes.map((n) => n.nodeId)), 'one answer from each node');
    for (const node of nodes) {
      assert.equal(node.error, null);
      assert.deepEqual(
        node.results?.map((r) => [r.image, r.status]),
        [['graph-planner/repoenv-sample:latest', 'present']],
      );
    }
    const text = io();
    assert.equal(await runCli(['images', 'prepull', 'datasets/sample/tasks.jsonl', '--ray', cluster.address], text.io, root), 0);
    assert.match(text.out.join('\n'), /^Pre-pulling on 2 nodes that offer sandboxes \(5 slots\)\.$/m);
    assert.equal(text.out.filter((l) => /^node \w{12} \(.*\): 1 image: 0 pulled, 1 already present, 0 failed, 0 build-only$/.test(l)).length, 2);
    assert.match(text.out.join('\n'), /Pre-pull on 2 nodes: 2 answered, 0 could not pre-pull; 0 images failed\./);
  });
});
