/**
 * Reading a Ray cluster's sandbox slots from its dashboard's state API, against a loopback TEST
 * PEER that answers `GET /api/v0/nodes` as Ray 2.60 does (test/support/rayJobsPeer.ts);
 * test/integration/rayCapacity.test.ts reads a real two-node cluster.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { clusterSlotsOf, readClusterSlots } from '../../server/src/cluster/index.js';
import { startRayJobsPeer, type PeerNode, type RayJobsPeer } from '../support/rayJobsPeer.js';

function node(id: string, slots: number | undefined, state: PeerNode['state'] = 'ALIVE'): PeerNode {
  return {
    node_id: id,
    node_ip: `10.0.0.${id.length}`,
    state,
    is_head_node: id === 'head',
    resources_total: { CPU: 16, memory: 64e9, ...(slots === undefined ? {} : { gp_sandbox_slots: slots }) },
  };
}

describe('the cluster’s sandbox slots from the Ray dashboard', () => {
  let peer: RayJobsPeer;
  before(async () => {
    peer = await startRayJobsPeer({ nodes: [node('head', undefined), node('worker-a', 6), node('worker-bb', 4), node('gone', 8, 'DEAD'), node('tiny', 0.5)] });
  });
  after(() => peer.close());

  it('sums the slots of the alive nodes that offer any, node by node', async () => {
    const read = await readClusterSlots(peer.url);
    assert.equal(read.ok, true);
    assert.deepEqual(read.ok ? read.cluster : undefined, {
      slots: 10,
      nodes: 2,
      perNode: [
        { node_id: 'worker-a', ip: '10.0.0.8', slots: 6 },
        { node_id: 'worker-bb', ip: '10.0.0.9', slots: 4 },
      ],
    });
    assert.ok(peer.hits.includes('GET /api/v0/nodes'));
  });

  it('leaves out a dead node even when the dashboard lists it', () => {
    assert.equal(clusterSlotsOf([{ ...node('gone', 8, 'DEAD') }]).slots, 0);
  });

  it('says which address could not be reached and what to check', async () => {
    const read = await readClusterSlots('http://127.0.0.1:1');
    assert.equal(read.ok, false);
    assert.match(
      read.ok ? '' : read.message,
      /cannot read the nodes of the Ray cluster at http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED.*is a Ray head running there/,
    );
  });

  it('names an answer that is not a Ray state API’s, and what to check', async () => {
    const other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ nodes: [] }));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const read = await readClusterSlots(url);
      assert.equal(read.ok, false);
      assert.match(
        read.ok ? '' : read.message,
        new RegExp(`cannot read the nodes of the Ray cluster at ${url.replace(/\./g, '\\.')}: .*unexpected body.*check that --ray names the head's dashboard`),
      );
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('refuses an address that is not a URL, with the form to give', async () => {
    const read = await readClusterSlots('http://[bad');
    assert.match(read.ok ? '' : read.message, /is not a Ray dashboard address .*give --ray http:\/\/HOST:8265/);
  });
});
