/**
 * The front door's side of sandbox hosts without Ray or Docker: the registry refuses a wrong token
 * and a malformed registration, leases follow routing and come back, a waiting episode gets the
 * slot another gives back, a lost host's leases learn it at once, and an episode's files are
 * written into the run folder only when every path stays inside it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { HostRegistration } from '../../server/src/protocol/sandboxHosts.js';
import { refusedPath, TransferError, writeEpisodeFiles } from '../../server/src/runs/index.js';
import { HostLostError, HostPool, RayJobsClient } from '../../server/src/cluster/index.js';
import { launchRayJob } from '../../server/src/cluster/jobLaunch.js';
import { startRayJobsPeer } from '../support/rayJobsPeer.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-hosts-server-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const registration = (id: string, node: string, slots: number, images: string[] = []): HostRegistration => ({
  id,
  node,
  url: 'http://127.0.0.1:9',
  token: 't'.repeat(32),
  slots,
  images,
  pid: 1,
});

async function post(url: string, token: string, body: unknown): Promise<number> {
  const answer = await fetch(`${url}/hosts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return answer.status;
}

describe('the host registry', () => {
  test('takes a registration with its token, refuses a wrong token and a malformed body', async () => {
    const pool = new HostPool({ healthIntervalMs: 60_000 });
    const { url, token } = await pool.start();
    try {
      assert.equal(await post(url, 'x'.repeat(token.length), registration('h1', 'n1', 2)), 401);
      assert.equal(await post(url, token, { ...registration('h1', 'n1', 2), slots: -1 }), 400);
      assert.equal(await post(url, token, { ...registration('h1', 'n1', 2), url: 'not a url' }), 400);
      assert.equal(pool.summary().hosts, 0);
      assert.equal(await post(url, token, registration('h1', 'n1', 2)), 200);
      assert.deepEqual(pool.summary(), { slots: 2, busy: 0, hosts: 1 });
    } finally {
      await pool.close();
    }
  });
});

describe('leases', () => {
  test('follow routing (worker node, image, load), come back on release, and a waiter gets a freed slot', async () => {
    const pool = new HostPool({ healthIntervalMs: 60_000 });
    pool.register(registration('a', 'node-a', 1));
    pool.register(registration('b', 'node-b', 2, ['img:1']));
    const local = pool.tryAcquire({ workerNode: 'node-a' });
    assert.equal(local?.host.registration.id, 'a');
    assert.equal(local?.reason, 'worker-node');
    const byImage = pool.tryAcquire({ image: 'img:1' });
    assert.equal(byImage?.host.registration.id, 'b');
    const last = pool.tryAcquire({});
    assert.equal(last?.host.registration.id, 'b');
    assert.equal(pool.tryAcquire({}), undefined, 'every slot is taken');
    const controller = new AbortController();
    const waiting = pool.acquire({}, controller.signal);
    last?.release();
    last?.release();
    const got = await waiting;
    assert.equal(got.host.registration.id, 'b');
    assert.deepEqual(pool.summary(), { slots: 3, busy: 3, hosts: 2 }, 'a second release of one lease gives nothing back');
    const aborted = new AbortController();
    const stuck = pool.acquire({}, aborted.signal);
    aborted.abort();
    await assert.rejects(stuck, /stopped while waiting/);
    await pool.close();
  });

  test('a lost host aborts its leases’ signals, takes no episode, and is said once', async () => {
    const said: string[] = [];
    const pool = new HostPool({ healthIntervalMs: 60_000 });
    pool.onLost((host, reason) => said.push(`${host.registration.id}: ${reason}`));
    pool.register(registration('a', 'node-a', 2));
    const lease = pool.tryAcquire({});
    assert.ok(lease !== undefined);
    pool.reportLost(lease.host, new HostLostError(`${lease.host.name}: socket hang up`));
    pool.reportLost(lease.host, new HostLostError(`${lease.host.name}: socket hang up`));
    assert.equal(lease.host.lost.aborted, true);
    assert.deepEqual(said, ['a: socket hang up']);
    assert.equal(pool.tryAcquire({}), undefined);
    assert.deepEqual(pool.summary(), { slots: 0, busy: 0, hosts: 0 });
    await pool.close();
  });

  test('a host whose port refuses is found lost by the health check', async () => {
    // A port that was just free: nothing listens on it.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const pool = new HostPool({ healthIntervalMs: 50 });
    await pool.start();
    const host = pool.register({ ...registration('gone', 'node-x', 1), url: `http://127.0.0.1:${port}` });
    await new Promise<void>((resolve) => host.lost.addEventListener('abort', () => resolve(), { once: true }));
    assert.match(String((host.lost.reason as Error).message), /health check failed.*ECONNREFUSED/);
    await pool.close();
  });
});

describe("an episode's files", () => {
  const file = (path: string, text = 'x') => ({ path, data: Buffer.from(text).toString('base64') });

  test('paths that leave the episode folders are refused by name, and nothing is written', async () => {
    for (const [path, why] of [
      ['/etc/passwd', /absolute/],
      ['trajectories/../../escape.jsonl', /`\.\.`/],
      ['trajectories/a\\..\\b', /backslash/],
      ['status.json', /not inside/],
      ['trajectories', /not inside/],
      ['tests//x.log', /empty/],
    ] as const) {
      assert.match(refusedPath(path) ?? '', why, path);
    }
    const runDir = join(dir, 'refused');
    await assert.rejects(
      writeEpisodeFiles(runDir, [file('tests/ok.log'), file('../outside.txt')]),
      (error: unknown) => error instanceof TransferError && /nothing of this episode was written/.test(error.message),
    );
    assert.equal(existsSync(join(runDir, 'tests', 'ok.log')), false);
  });

  test('a trajectory that does not check is refused whole; good files land, test runs are appended line by line', async () => {
    const runDir = join(dir, 'written');
    await assert.rejects(writeEpisodeFiles(runDir, [file('tests/a.log'), file('trajectories/e.jsonl', '{"type":"step"}\n')]), /trajectories\/e\.jsonl/);
    assert.equal(existsSync(join(runDir, 'tests', 'a.log')), false);
    await writeEpisodeFiles(runDir, [file('tests/a.log', 'log'), file('preimages/abc', 'old')]);
    await writeEpisodeFiles(runDir, [file('preimages/abc', 'other')]);
    assert.equal(readFileSync(join(runDir, 'tests', 'a.log'), 'utf8'), 'log');
    assert.equal(readFileSync(join(runDir, 'preimages', 'abc'), 'utf8'), 'old', 'a pre-image is named by its content, so the first one stays');
  });
});

describe('a Ray job whose dashboard goes away', () => {
  test('ends as failed after the unanswered time, so nothing waits on a cluster that is gone', async () => {
    const peer = await startRayJobsPeer();
    const lines: string[] = [];
    const handle = await launchRayJob({
      client: new RayJobsClient({ address: peer.url, timeoutMs: 500 }),
      submissionId: 'gp-gone-hosts',
      entrypoint: 'python -m x',
      envVars: {},
      metadata: {},
      onLine: (l) => lines.push(l),
      pollMs: 50,
      unreachableMs: 400,
    });
    peer.setStatus('gp-gone-hosts', 'RUNNING');
    await new Promise((r) => setTimeout(r, 150));
    await peer.close();
    const end = await handle.ended;
    assert.equal(end.ok, false);
    assert.match(end.reason, /did not answer for \d+ s/);
    assert.match(end.reason, /the cluster may be gone/);
    assert.ok(
      lines.some((l) => /retrying/.test(l)),
      'the unanswered reads were said as they happened',
    );
  });
});
