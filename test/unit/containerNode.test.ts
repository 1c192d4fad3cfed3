/**
 * The Ray node of a container a sandbox host made (issue 22): read from its `graph-planner.node`
 * label into `ContainerInfo`, and printed by `gp containers list` in a NODE column that is there
 * only when some container has a node. Docker's listing is built here; the integration layer
 * (test/integration/containers.test.ts) lists real labelled containers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type Docker from 'dockerode';
import { containerTable } from '../../server/src/cli/containerCommands.js';
import { sandboxLabels } from '../../server/src/protocol/sandbox.js';
import { ownerLabels, toContainerInfo } from '../../server/src/sandbox/containers.js';
import { sandboxSpecForTask } from '../../server/src/sandbox/index.js';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import { containerDescription, containerLabel } from '../../extension/src/views/containerItems.js';
import { planEpisodes } from '../../server/src/rollout/plan.js';

const created = new Date('2026-03-01T11:57:00.000Z');
const now = Date.parse('2026-03-01T12:00:00.000Z');

/** A container as Docker's list endpoint reports it, with our labels. */
function listed(id: string, labels: Record<string, string>): Docker.ContainerInfo {
  return {
    Id: id,
    Names: [`/${id}`],
    Image: 'graph-planner/base:latest',
    ImageID: 'sha256:0',
    Command: 'sh',
    Created: created.getTime() / 1000,
    Ports: [],
    Labels: labels,
    State: 'running',
    Status: 'Up 3 minutes',
    HostConfig: { NetworkMode: 'default' },
    NetworkSettings: { Networks: {} },
    Mounts: [],
  };
}

test('a container with the node label carries its Ray node; one without has no node at all', () => {
  const onNode = toContainerInfo(listed('aaaaaaaaaaaa01', ownerLabels('r', 'on-node', created, 'worker-7')));
  assert.equal(onNode.node, 'worker-7');
  assert.equal(ownerLabels('r', 't', created, 'worker-7')[sandboxLabels.node], 'worker-7');
  const local = toContainerInfo(listed('bbbbbbbbbbbb02', ownerLabels('r', 'local', created)));
  assert.equal('node' in local, false, 'no node key, so --json prints none');
});

test('gp containers list prints a NODE column only when some container has a node, with - for the others', () => {
  const onNode = toContainerInfo(listed('aaaaaaaaaaaa01', ownerLabels('r', 'on-node', created, 'worker-7')));
  const local = toContainerInfo(listed('bbbbbbbbbbbb02', ownerLabels('r', 'local', created)));
  const mixed = containerTable([onNode, local], now);
  assert.match(mixed[0] ?? '', /^ID\s+RUN\s+EPISODE\s+NODE\s+STATE\s+OWNER\s+AGE$/);
  assert.match(mixed[1] ?? '', /^aaaaaaaaaaaa\s+r\s+on-node\s+worker-7\s+running\s+alive\s+3m$/);
  assert.match(mixed[2] ?? '', /^bbbbbbbbbbbb\s+r\s+local\s+-\s+running\s+alive\s+3m$/);
  const plain = containerTable([local], now);
  assert.match(plain[0] ?? '', /^ID\s+RUN\s+EPISODE\s+STATE\s+OWNER\s+AGE$/);
  assert.match(plain[1] ?? '', /^bbbbbbbbbbbb\s+r\s+local\s+running\s+alive\s+3m$/);
});

test('two attempts at one task run in two containers the Containers view names apart, by the episode each serves (issue 27)', () => {
  const task = taskEntrySchema.parse({ task_id: 'sample-calc-add', sandbox: { docker_image: 'graph-planner/repoenv-sample:latest', workdir: '/testbed' } });
  const [first, second] = planEpisodes([{ task, baseDir: '/data', source: 'tasks.jsonl:1' }], 2);
  assert.ok(first !== undefined && second !== undefined);
  // As launch/episodeDeps.ts opens an episode's sandbox and sandbox/dockerSandbox.ts labels its container.
  const containers = [first, second].map((spec, i) => {
    const box = sandboxSpecForTask(spec.task, { ...defaultSandboxOptions(), run: 'r', baseDir: spec.baseDir, episode: spec.episodeId });
    return toContainerInfo(listed(`cccccccccccc0${i}`, ownerLabels(box.run, box.task, created, box.node, box.episode)));
  });
  assert.deepEqual(
    containers.map((c) => c.episode),
    ['sample-calc-add#1', 'sample-calc-add#2'],
  );
  assert.deepEqual(containers.map(containerLabel), ['sample-calc-add#1', 'sample-calc-add#2'], 'two rows, not two identical ones');
  const [one, two] = containers;
  assert.ok(one !== undefined && two !== undefined);
  assert.equal(containerDescription(one, now), containerDescription(two, now), 'everything else about them is the same, which is why the label must differ');
  assert.deepEqual(
    containerTable(containers, now)
      .slice(1)
      .map((l) => l.split(/\s+/)[2]),
    ['sample-calc-add#1', 'sample-calc-add#2'],
  );
  // A task's tests run alone (gp task test) serve no episode: named by the task, as before.
  const alone = sandboxSpecForTask(task, { ...defaultSandboxOptions(), run: 'r' });
  assert.equal(alone.episode, undefined);
  assert.equal(sandboxLabels.episode in ownerLabels(alone.run, alone.task, created, alone.node, alone.episode), false);
});
