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
