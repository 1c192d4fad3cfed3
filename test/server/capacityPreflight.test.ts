/**
 * The capacity preflight through the CLI: `gp config check --ray`, `gp train --ray` and the note a
 * local `gp train` prints, against a loopback TEST PEER that answers the dashboard's state API as
 * Ray 2.60 does (test/support/rayJobsPeer.ts); test/integration/rayCapacity.test.ts asks a real
 * two-node cluster.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { printCapacityPreflight } from '../../server/src/cli/capacityPreflight.js';
import { runCli } from '../../server/src/cli/main.js';
import { resolveConfig } from '../../server/src/config/index.js';
import { startRayJobsPeer, type PeerNode, type RayJobsPeer } from '../support/rayJobsPeer.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-capacity-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

function node(id: string, slots: number): PeerNode {
  return { node_id: id, node_ip: '10.0.0.1', state: 'ALIVE', is_head_node: false, resources_total: { CPU: 8, gp_sandbox_slots: slots } };
}

// Four tasks per step, two episodes each: eight at once.
const config = join(dir, 'eight.yaml');
writeFileSync(config, 'training:\n  train_batch_size: 4\n  rollout_n: 2\nrollout:\n  parallel: 3\n');

describe('the capacity preflight on a Ray cluster', () => {
  let peer: RayJobsPeer;
  before(async () => {
    peer = await startRayJobsPeer({ nodes: [node('a', 3), node('b', 2)] });
  });
  after(() => peer.close());

  it('gp config check --ray warns, located on the batch size, when a step asks more episodes than the cluster has slots', async () => {
    const { io: cli, out, err } = io();
    const code = await runCli(['config', 'check', config, '--no-disk', '--ray', peer.url], cli, root);
    assert.equal(code, 0, 'a warning does not fail the check');
    assert.deepEqual(err, []);
    const text = out.join('\n');
    assert.match(
      text,
      new RegExp(
        `${config.replace(/\./g, '\\.')}:2:21 warning preflight/sandbox-capacity 8 episodes run at once \\(training\\.train_batch_size 4 × training\\.rollout_n 2\\), but the cluster offers 5 sandbox slots on 2 nodes: 3 wait`,
      ),
    );
    assert.match(text, /0 errors, 1 warning\./);
  });

  it('--for eval checks rollout.parallel instead, which fits', async () => {
    const { io: cli, out } = io();
    assert.equal(await runCli(['config', 'check', config, '--no-disk', '--ray', peer.url, '--for', 'eval'], cli, root), 0);
    assert.doesNotMatch(out.join('\n'), /sandbox-capacity/);
    assert.match(out.join('\n'), /0 errors, 0 warnings\./);
  });

  it('a flag that sets the batch size takes the blame, and --json carries the finding', async () => {
    const { io: cli, out } = io();
    assert.equal(await runCli(['config', 'check', config, '--no-disk', '--json', '--ray', peer.url, '--set', 'training.train_batch_size=8'], cli, root), 0);
    const [report] = JSON.parse(out.join('\n')) as { verdict: string; findings: { code: string; flag?: string; message: string }[] }[];
    const found = report?.findings.find((f) => f.code === 'preflight/sandbox-capacity');
    assert.equal(report?.verdict, 'warnings');
    assert.equal(found?.flag, '--set training.train_batch_size=8');
    assert.match(found?.message ?? '', /^16 episodes run at once/);
  });

  it('a cluster that cannot be asked is a warning and the check goes on', async () => {
    const { io: cli, out, err } = io();
    assert.equal(await runCli(['config', 'check', config, '--no-disk', '--ray', 'http://127.0.0.1:1'], cli, root), 0);
    assert.match(
      err.join('\n'),
      /^warning: cannot read the nodes of the Ray cluster at http:\/\/127\.0\.0\.1:1: .*The sandbox capacity .* was not checked; going on\.$/,
    );
    assert.match(out.join('\n'), /0 errors, 0 warnings\./);
  });

  it('--for needs --ray and takes a command name', async () => {
    const { io: cli, err } = io();
    assert.equal(await runCli(['config', 'check', config, '--for', 'sing'], cli, root), 2);
    assert.match(err.join('\n'), /--for takes train, eval, rollout, not "sing"\.\n.*--for needs --ray ADDRESS/);
  });

  it('gp train --ray prints the warning as a preflight finding and goes on', async () => {
    const { io: cli, out, err } = io();
    const code = await runCli(
      [
        'train',
        config,
        '--dry-run',
        '--tasks',
        'datasets/sample/tasks.jsonl',
        '--limit',
        '3',
        '--set',
        'training.train_batch_size=2',
        '--set',
        'training.rollout_n=4',
        '--ray',
        peer.url,
        '--run-dir',
        join(dir, 'never-written'),
      ],
      cli,
      root,
    );
    assert.equal(code, 0, err.join('\n'));
    assert.match(
      err.join('\n'),
      /eight\.yaml: --set training\.train_batch_size=2: warning preflight\/sandbox-capacity 8 episodes run at once \(training\.train_batch_size 2 × training\.rollout_n 4\), but the cluster offers 5/,
    );
    assert.doesNotMatch(err.join('\n'), /sandbox-capacity-unknown/);
    assert.match(out.join('\n'), /verl\.trainer\.main_ppo/);
  });
});

describe('the capacity preflight without a cluster', () => {
  it('a local gp train notes that the capacity is not known; a local rollout says nothing', async () => {
    const resolution = resolveConfig({
      text: 'training:\n  train_batch_size: 4\n  rollout_n: 2\n',
      flags: { overrides: [], configFile: undefined, yamlOnly: false, printConfig: false },
      baseDir: dir,
    });
    const train = io();
    await printCapacityPreflight({ label: 'x.yaml', resolution, command: 'train', ray: undefined, noteWhenUnknown: true }, train.io);
    assert.deepEqual(train.err, [
      "x.yaml:2:21 info preflight/sandbox-capacity-unknown 8 episodes run at once (training.train_batch_size 4 × training.rollout_n 2); without a Ray address the cluster's sandbox slots are not known, so whether they fit was not checked.",
    ]);
    const rollout = io();
    await printCapacityPreflight({ label: 'x.yaml', resolution, command: 'rollout', ray: undefined, noteWhenUnknown: false }, rollout.io);
    assert.deepEqual(rollout.err, []);
  });

  it('gp train without --ray prints the note through the CLI', async () => {
    const { io: cli, err } = io();
    await runCli(['train', config, '--dry-run', '--tasks', 'datasets/sample/tasks.jsonl', '--run-dir', join(dir, 'never-written-2')], cli, root);
    assert.match(err.join('\n'), /eight\.yaml:2:21 info preflight\/sandbox-capacity-unknown 8 episodes run at once/);
  });

  it('the smoke, whose two episodes run on this machine, prints no note', async () => {
    const { io: cli, err } = io();
    await runCli(
      [
        'train',
        'configs/experiments/planner_debug.yaml',
        '--smoke',
        '--dry-run',
        '--tasks',
        'datasets/sample/tasks.jsonl',
        '--run-dir',
        join(dir, 'never-written-3'),
      ],
      cli,
      root,
    );
    assert.doesNotMatch(err.join('\n'), /sandbox-capacity/);
  });
});
