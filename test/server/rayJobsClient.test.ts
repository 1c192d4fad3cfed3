/**
 * The Ray Jobs client against a loopback TEST PEER that answers as Ray 2.60's dashboard does
 * (test/support/rayJobsPeer.ts); test/integration/train.test.ts runs against a real Ray head.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RayJobsClient, RayJobsError, rayDashboardUrl } from '../../server/src/cluster/rayJobs.js';
import { startRayJobsPeer, type RayJobsPeer } from '../support/rayJobsPeer.js';

describe('Ray Jobs client (against a test peer shaped like Ray 2.60)', () => {
  let peer: RayJobsPeer;
  let client: RayJobsClient;
  before(async () => {
    peer = await startRayJobsPeer();
    client = new RayJobsClient({ address: peer.url, token: '' });
  });
  after(() => peer.close());

  it('the peer refuses browser-style POSTs, as Ray does, which is why the client does not use fetch', async () => {
    const answer = await fetch(`${peer.url}/api/jobs/`, {
      method: 'POST',
      body: JSON.stringify({ entrypoint: 'true' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(answer.status, 405);
    assert.match(await answer.text(), /browser traffic/);
  });

  it('submits a job with node:http and reads its details, logs and version', async () => {
    assert.equal(await client.version(), '2.60.0');
    const { submissionId, existing } = await client.submit({
      entrypoint: 'python -m verl.trainer.main_ppo',
      submission_id: 'gp-run-a-1',
      metadata: { run: 'a' },
    });
    assert.equal(submissionId, 'gp-run-a-1');
    assert.equal(existing, false);
    peer.setStatus(submissionId, 'RUNNING');
    peer.appendLog(submissionId, 'step:1 - reward:0.5\n');
    const details = await client.details(submissionId);
    assert.equal(details.status, 'RUNNING');
    assert.deepEqual(details.metadata, { run: 'a' });
    assert.equal(await client.logs(submissionId), 'step:1 - reward:0.5\n');
    assert.deepEqual(
      (await client.list()).map((j) => [j.submission_id, j.status]),
      [['gp-run-a-1', 'RUNNING']],
    );
  });

  it('takes a submission id Ray already knows (its 500) as submitted, without a second job', async () => {
    await client.submit({ entrypoint: 'true', submission_id: 'gp-run-b-1' });
    const again = await client.submit({ entrypoint: 'true', submission_id: 'gp-run-b-1' });
    assert.deepEqual(again, { submissionId: 'gp-run-b-1', existing: true });
    assert.equal([...peer.jobs.keys()].filter((k) => k === 'gp-run-b-1').length, 1);
  });

  it('reports a malformed submission with Ray’s 400 text', async () => {
    await assert.rejects(
      () => client.submit({ entrypoint: 'true', metadata: { n: 1 as unknown as string } }),
      (error: unknown) => error instanceof RayJobsError && error.status === 400 && /metadata must be a Dict/.test(error.message),
    );
  });

  it('stops a running job, and deletes it only once it has finished', async () => {
    const { submissionId } = await client.submit({ entrypoint: 'sleep 100', submission_id: 'gp-run-c-1' });
    peer.setStatus(submissionId, 'RUNNING');
    await assert.rejects(
      () => client.delete(submissionId),
      (error: unknown) => error instanceof RayJobsError && error.status === 400,
    );
    assert.equal(await client.stop(submissionId), true);
    assert.equal((await client.details(submissionId)).status, 'STOPPED');
    assert.equal(await client.delete(submissionId), true);
    await assert.rejects(
      () => client.details(submissionId),
      (error: unknown) => error instanceof RayJobsError && error.status === 404,
    );
  });

  it('sends the bearer token when the cluster requires one', async () => {
    const guarded = await startRayJobsPeer({ requireToken: 's3cret' });
    try {
      await assert.rejects(
        () => new RayJobsClient({ address: guarded.url, token: '' }).version(),
        (error: unknown) => error instanceof RayJobsError && error.status === 401,
      );
      assert.equal(await new RayJobsClient({ address: guarded.url, token: 's3cret' }).version(), '2.60.0');
    } finally {
      await guarded.close();
    }
  });

  it('names the address and what to check when nothing answers', async () => {
    const nobody = new RayJobsClient({ address: '127.0.0.1:9', token: '', timeoutMs: 2000 });
    await assert.rejects(
      () => nobody.version(),
      (error: unknown) => error instanceof RayJobsError && error.status === 0 && /127\.0\.0\.1:9/.test(error.message) && /ray start --head/.test(error.message),
    );
  });

  it('reads an address as ray job submit does: a host alone gets port 8265', () => {
    assert.equal(rayDashboardUrl('10.0.0.5').href, 'http://10.0.0.5:8265/');
    assert.equal(rayDashboardUrl('http://head:9000').href, 'http://head:9000/');
  });
});
