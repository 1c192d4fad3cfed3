/**
 * Issue 22's arithmetic, before the sandbox hosts that will use it: how many sandboxes a node
 * holds (its resources less a reserve, over one sandbox's CPUs and memory, whichever runs out
 * first, or an override), how many episodes a command runs at once, the capacity preflight's
 * finding, and which host an episode is routed to (the worker's node, then a host with the image,
 * then the least loaded; never a dead or full one).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capacityFinding, concurrentEpisodes, experimentConfigSchema } from '../../server/src/config/index.js';
import { sandboxSlots, slotShare } from '../../server/src/launch/index.js';
import { chooseHost, clusterSlots, type HostState } from '../../server/src/cluster/index.js';

const GiB = 1024 ** 3;
const config = experimentConfigSchema.parse({});

test('slots: CPUs or memory, whichever runs out first, after the node keeps its reserve', () => {
  // 16 CPUs, 128 GiB; reserve 2 CPUs and 16 GiB; default sandboxes (cpus 2, 4 GiB) count one core each: 14 by CPU, 28 by memory.
  assert.deepEqual(sandboxSlots({ cpus: 16, memoryBytes: 128 * GiB }, config.sandbox), { slots: 14, limitedBy: 'cpus' });
  const bigMemory = experimentConfigSchema.parse({ sandbox: { cpus: 1, memory: '16GiB' } }).sandbox;
  assert.deepEqual(sandboxSlots({ cpus: 16, memoryBytes: 64 * GiB }, bigMemory), { slots: 3, limitedBy: 'memory' });
  assert.deepEqual(sandboxSlots({ cpus: 2, memoryBytes: 24 * GiB }, config.sandbox, 3), { slots: 3, limitedBy: 'override' });
  const unlimited = experimentConfigSchema.parse({ sandbox: { cpus: null, memory: null } }).sandbox;
  // No limits: one CPU each, memory not counted; 10 CPUs keep 1.25.
  assert.deepEqual(sandboxSlots({ cpus: 10, memoryBytes: 4 * GiB }, unlimited), { slots: 8, limitedBy: 'cpus' });
});

test('slots: a CPU limit above one core is a cap on bursts, so a sandbox counts as one core; below one, as its limit', () => {
  // This machine's size: 2 cores keep one, 24 GiB keep 3: the default limit of 2 CPUs still leaves one slot.
  assert.deepEqual(sandboxSlots({ cpus: 2, memoryBytes: 24 * GiB }, config.sandbox), { slots: 1, limitedBy: 'cpus' });
  const wide = experimentConfigSchema.parse({ sandbox: { cpus: 8, memory: '1GiB' } }).sandbox;
  assert.deepEqual(sandboxSlots({ cpus: 16, memoryBytes: 128 * GiB }, wide), { slots: 14, limitedBy: 'cpus' });
  const half = experimentConfigSchema.parse({ sandbox: { cpus: 0.5, memory: '2GiB' } }).sandbox;
  assert.deepEqual(sandboxSlots({ cpus: 16, memoryBytes: 128 * GiB }, half), { slots: 28, limitedBy: 'cpus' });
  assert.deepEqual(slotShare(half), { cpus: 0.5, memoryBytes: 2 * GiB });
  assert.deepEqual(slotShare(config.sandbox), { cpus: 1, memoryBytes: 4 * GiB });
});

test('episodes at once: a training step is batch × group; a rollout is its parallel', () => {
  const c = experimentConfigSchema.parse({ training: { train_batch_size: 16, rollout_n: 32 }, rollout: { parallel: 6 } });
  assert.deepEqual(concurrentEpisodes(c, 'train'), { episodes: 512, why: 'training.train_batch_size 16 × training.rollout_n 32' });
  assert.equal(concurrentEpisodes(c, 'eval').episodes, 6);
});

test('the capacity preflight warns with the numbers, and says when the cluster is not known', () => {
  const c = experimentConfigSchema.parse({ training: { train_batch_size: 16, rollout_n: 4 } });
  const short = capacityFinding(c, 'train', { slots: 24, nodes: 3 });
  assert.equal(short?.severity, 'warning');
  assert.match(
    short?.message ?? '',
    /64 episodes run at once \(training\.train_batch_size 16 × training\.rollout_n 4\), but the cluster offers 24 sandbox slots on 3 nodes: 40 wait/,
  );
  assert.deepEqual(short?.path, ['training', 'train_batch_size']);
  assert.equal(capacityFinding(c, 'train', { slots: 64, nodes: 2 }), undefined);
  assert.equal(capacityFinding(c, 'eval', undefined)?.code, 'preflight/sandbox-capacity-unknown');
});

test('the capacity preflight says how to offer slots when no node of the cluster has any', () => {
  const none = capacityFinding(config, 'eval', { slots: 0, nodes: 0 });
  assert.equal(none?.code, 'preflight/sandbox-capacity');
  assert.match(
    none?.message ?? '',
    /no node of the cluster offers sandbox slots \(none has the Ray resource gp_sandbox_slots\)\. Start each node .* `gp ray slots`/,
  );
});

function host(id: string, node: string, slots: number, busy: number, images: string[] = [], alive = true): HostState {
  return { id, node, slots, busy, alive, images: new Set(images) };
}

test("routing: the worker's node first, then a host with the image, then the least loaded; never a full or dead host", () => {
  const hosts = [host('a', 'n1', 4, 3), host('b', 'n2', 8, 2, ['img:1']), host('c', 'n3', 4, 0), host('d', 'n4', 4, 0, ['img:1'], false)];
  const local = chooseHost(hosts, { workerNode: 'n1', image: 'img:1' });
  assert.equal(local?.host.id, 'a');
  assert.equal(local?.reason, 'worker-node');
  assert.deepEqual([chooseHost(hosts, { image: 'img:1' })?.host.id, chooseHost(hosts, { image: 'img:1' })?.reason], ['b', 'has-image']);
  assert.deepEqual([chooseHost(hosts, {})?.host.id, chooseHost(hosts, {})?.reason], ['c', 'least-loaded']);
  // A full worker node falls through to the image, then to load; a dead host never gets one.
  const full = [host('a', 'n1', 2, 2), host('d', 'n4', 4, 0, ['img:1'], false), host('e', 'n5', 4, 1)];
  assert.deepEqual(
    [chooseHost(full, { workerNode: 'n1', image: 'img:1' })?.host.id, chooseHost(full, { workerNode: 'n1', image: 'img:1' })?.reason],
    ['e', 'least-loaded'],
  );
  assert.equal(chooseHost([host('a', 'n1', 1, 1), host('d', 'n4', 4, 0, [], false)], {}), undefined, 'no free slot: the episode waits');
  assert.deepEqual(clusterSlots(hosts), { slots: 16, busy: 5, hosts: 3 });
});
