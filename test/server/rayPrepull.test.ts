/**
 * `gp images prepull --ray`'s Node side against a loopback TEST PEER shaped like Ray 2.60's
 * dashboard (test/support/rayJobsPeer.ts): the job it submits, the per-node lines it reads from the
 * driver's log, and the summary it prints. test/integration/rayCapacity.test.ts runs the real
 * driver (python/graph_planner_verl/node_prepull.py) on a real two-node cluster.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clusterPrepullOk, nodeSummary } from '../../server/src/cli/rayPrepullCommand.js';
import type { NodePrepullLine } from '../../server/src/protocol/rayCluster.js';
import { parseNodePrepullLine, runRayPrepull } from '../../server/src/cluster/index.js';
import { startRayJobsPeer, type PeerJob, type RayJobsPeer } from '../support/rayJobsPeer.js';

const present = { image: 'graph-planner/repoenv-sample:latest', status: 'present' as const, attempts: 0, durationMs: 3 };
const failed = { image: 'ghcr.io/x/missing:1', status: 'failed' as const, attempts: 3, durationMs: 900, error: 'manifest unknown' };

function line(nodeId: string, results: NodePrepullLine['results'], error: string | null = null): NodePrepullLine {
  return { node_id: nodeId, ip: '10.0.0.7', slots: 2, exit_code: error === null ? 0 : 2, results, error };
}

describe('gp images prepull --ray against a test peer', () => {
  let peer: RayJobsPeer;
  let submitted: PeerJob | undefined;
  before(async () => {
    peer = await startRayJobsPeer({
      onSubmit: (job) => {
        submitted = job;
        // The driver's log as node_prepull.py writes it: Ray's own lines, then one line per node.
        setTimeout(() => {
          peer.appendLog(job.submission_id, 'INFO worker.py -- Connected to Ray cluster.\n');
          peer.appendLog(job.submission_id, `gp-node-prepull ${JSON.stringify(line('node-a-0123456789', [present]))}\n`);
          peer.appendLog(job.submission_id, 'gp-node-prepull {not json\n');
          peer.setStatus(job.submission_id, 'SUCCEEDED', 0);
        }, 50);
      },
    });
  });
  after(() => peer.close());

  it('submits one job with the node-side command and reads each node’s line; a node with no line is unanswered', async () => {
    const logged: string[] = [];
    const answered: NodePrepullLine[] = [];
    const result = await runRayPrepull({
      ray: peer.url,
      nodes: [
        { node_id: 'node-a-0123456789', ip: '10.0.0.7', slots: 2 },
        { node_id: 'node-b', ip: '10.0.0.8', slots: 1 },
      ],
      python: '/venv/bin/python',
      adapterDir: '/repo/python',
      cli: ['/usr/bin/node', '/repo/dist/cli.js'],
      args: ['/data/tasks.jsonl', '--retries', '1'],
      log: (l) => logged.push(l),
      onNode: (n) => answered.push(n),
      pollMs: 20,
    });
    assert.equal(result.state, 'finished');
    assert.deepEqual(
      answered.map((n) => n.node_id),
      ['node-a-0123456789'],
    );
    assert.deepEqual(
      result.unanswered.map((n) => n.node_id),
      ['node-b'],
    );
    assert.equal(
      submitted?.entrypoint,
      `/venv/bin/python -m graph_planner_verl.node_prepull '{"cli":["/usr/bin/node","/repo/dist/cli.js"],"args":["/data/tasks.jsonl","--retries","1"]}'`,
    );
    assert.deepEqual(submitted?.runtime_env, { env_vars: { PYTHONPATH: '/repo/python' } });
    assert.ok(logged.includes('INFO worker.py -- Connected to Ray cluster.'));
    assert.ok(logged.some((l) => /^warning: a node's prepull line is not JSON/.test(l)));
  });
});

describe('the per-node summary', () => {
  it('counts each node’s images by outcome and lists its failures', () => {
    assert.deepEqual(nodeSummary(line('node-a-0123456789', [present, failed])), [
      'node node-a-01234 (10.0.0.7): 2 images: 0 pulled, 1 already present, 1 failed, 0 build-only',
      '  ghcr.io/x/missing:1: failed: manifest unknown (3 attempts)',
    ]);
    assert.deepEqual(nodeSummary(line('node-b', null, 'gp images prepull printed no results')), [
      'node node-b (10.0.0.7): could not pre-pull: gp images prepull printed no results',
    ]);
  });

  it('the cluster is ready only when every node answered and no image failed', () => {
    assert.equal(clusterPrepullOk([line('a', [present])], []), true);
    assert.equal(clusterPrepullOk([line('a', [present, failed])], []), false);
    assert.equal(clusterPrepullOk([line('a', [present])], [{ node_id: 'b', ip: '', slots: 1 }]), false);
    assert.equal(clusterPrepullOk([line('a', null, 'no')], []), false);
  });

  it('a line of another shape is named, not taken', () => {
    assert.deepEqual(parseNodePrepullLine('Connected.'), { kind: 'other' });
    const wrong = parseNodePrepullLine('gp-node-prepull {"node_id": "a"}');
    assert.equal(wrong.kind, 'malformed');
  });
});
