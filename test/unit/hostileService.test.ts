/**
 * The environment service under hostile and careless clients (issue 21, item 7), over real HTTP on
 * loopback with scripted episodes (test/unit/rolloutDoubles.ts): a malformed percent-encoding in
 * the path is a 400, not a 500; a body over the cap is refused from its declared length; closed
 * episodes are let go (only their close answer is kept, for a retried close); the service file goes
 * when the service does. The Python client's side is python/tests/test_hostile_service_client.py.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EnvService } from '../../server/src/cluster/index.js';
import { plannedTasks, testDeps } from './rolloutDoubles.js';

const token = 'hostile-test-token';

interface Reply {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

function call(url: string, method: string, path: string, payload?: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method, agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Reply['body'] }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function started(): Promise<{ service: EnvService; url: string; runDir: string }> {
  const runDir = mkdtempSync(join(tmpdir(), 'gp-hostile-service-'));
  const tasks = new Map(plannedTasks(['t1', 't2']).map((t) => [t.task.task_id, t]));
  const service = new EnvService({ runDir, tasks, deps: testDeps(() => ({ steps: 3 })).deps, maxOpen: 4, episodeDeadlineMs: 60_000, token });
  const file = await service.start();
  return { service, url: file.url, runDir };
}

/** Runs `body` against a started service, which is closed afterwards whatever happens. */
async function withService(body: (service: EnvService, url: string) => Promise<void>): Promise<void> {
  const { service, url } = await started();
  try {
    await body(service, url);
  } finally {
    await service.close();
  }
}

test('a malformed percent-encoding in an episode path is a 400 that says so, on every route', () =>
  withService(async (_service, url) => {
    for (const [method, path, body] of [
      ['POST', '/episodes/%E0%A4%A/step', '{"turn":1,"reply":"x"}'],
      ['POST', '/episodes/%/close', '{"reason":"max_steps"}'],
      ['GET', '/episodes/%zz/policy', undefined],
    ] as const) {
      const reply = await call(url, method, path, body);
      assert.equal(reply.status, 400, `${method} ${path}`);
      assert.equal(reply.body.error?.code, 'bad-path');
      assert.match(reply.body.error?.message ?? '', /not valid percent-encoding/);
    }
    // The service is still there.
    assert.equal((await call(url, 'GET', '/health')).status, 200);
  }));

test('a body whose declared length is over the cap is refused before it is read', () =>
  withService(async (_service, url) => {
    const reply = await call(url, 'POST', '/episodes', '{}', { 'content-length': String(64 * 1024 * 1024) }).catch(() => undefined);
    // Either the 413 arrives, or the socket is closed on a body never sent: never a 200 or a 500.
    if (reply !== undefined) {
      assert.equal(reply.status, 413);
      assert.equal(reply.body.error?.code, 'body-too-large');
    }
    assert.equal((await call(url, 'GET', '/health')).status, 200);
  }));

test('a closed episode is let go: its close is answered again, a step or a create with its key is refused', () =>
  withService(async (service, url) => {
    const created = await call(url, 'POST', '/episodes', JSON.stringify({ client_key: 'k1', task_id: 't1' }));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = String(created.body['episode_id']);
    assert.equal(service.heldEpisodes, 1);
    const closed = await call(url, 'POST', `/episodes/${encodeURIComponent(id)}/close`, '{"reason":"max_steps"}');
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    assert.equal(service.heldEpisodes, 0, 'the closed episode is no longer held');
    const again = await call(url, 'POST', `/episodes/${encodeURIComponent(id)}/close`, '{"reason":"max_steps"}');
    assert.deepEqual(again, closed, 'a retried close gets the same answer');
    const step = await call(url, 'POST', `/episodes/${encodeURIComponent(id)}/step`, '{"turn":1,"reply":"x"}');
    assert.equal(step.status, 409);
    assert.equal(step.body.error?.code, 'episode-ended');
    const recreate = await call(url, 'POST', '/episodes', JSON.stringify({ client_key: 'k1', task_id: 't1' }));
    assert.equal(recreate.status, 409);
    assert.equal((await call(url, 'POST', '/episodes/never-made/close', '{"reason":"max_steps"}')).status, 404);
    // Many episodes in a row leave nothing held.
    for (let i = 0; i < 20; i++) {
      const made = await call(url, 'POST', '/episodes', JSON.stringify({ client_key: `many-${i}`, task_id: i % 2 === 0 ? 't1' : 't2' }));
      assert.equal((await call(url, 'POST', `/episodes/${encodeURIComponent(String(made.body['episode_id']))}/close`, '{"reason":"interrupted"}')).status, 200);
    }
    assert.equal(service.heldEpisodes, 0);
  }));

test('the service file is removed when the service closes', async () => {
  const { service, runDir } = await started();
  const file = join(runDir, 'env_service.json');
  assert.equal(existsSync(file), true);
  await service.close();
  assert.equal(existsSync(file), false);
});
