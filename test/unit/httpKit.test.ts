/**
 * The small HTTP kit (issue 38, item 3): the one router of our JSON services (cluster/jsonHttp.ts)
 * refuses a request without the token before routing it, answers a request no route takes in the
 * one error shape, decodes named parameters and refuses a malformed one; the one client transport
 * (util/httpClient.ts) ends a silent request at its time limit, and every client's error is an
 * `HttpError` with the status that came, over real HTTP on loopback.
 */
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import { ModelClientError, postJson } from '../../server/src/agents/retry.js';
import { EnvService, HostClient, HostHttpError, HostLostError, HostPool, RayJobsClient, RayJobsError } from '../../server/src/cluster/index.js';
import { HttpError, jsonRouter, listenJson, type Route } from '../../server/src/cluster/jsonHttp.js';
import { HubError } from '../../server/src/datasets/index.js';
import { httpCall, HttpTransportError } from '../../server/src/util/httpClient.js';
import { plannedTasks, testDeps } from './rolloutDoubles.js';

const token = 'kit-test-token';

interface Reply {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

function call(url: string, method: string, path: string, withToken = token): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method, agent: false, headers: { authorization: `Bearer ${withToken}`, 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Reply['body'] }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function serve(routes: readonly Route[]): Promise<{ url: string; server: Server; reached: string[] }> {
  const reached: string[] = [];
  const handle = jsonRouter({
    token,
    unauthorised: 'send the test token',
    routes: routes.map((route) => ({ ...route, answer: (req, params, res) => (reached.push(route.path), route.answer(req, params, res)) })),
    miss: (method, path) =>
      new HttpError(
        method === 'GET' ? 405 : 404,
        method === 'GET' ? 'method-not-allowed' : 'no-such-route',
        `${method} ${path} is not a route of the test server`,
      ),
  });
  const server = createServer((req, res) => void handle(req, res));
  return { url: await listenJson(server, '127.0.0.1', 0), server, reached };
}

const routes: Route[] = [
  { method: 'GET', path: '/things/:thing_id', answer: (_req, params) => ({ params }) },
  { method: 'POST', path: '/things/:thing_id/poke', answer: (_req, { thing_id: id = '' }) => ({ poked: id }) },
];

test('the router decodes named parameters and answers with the route that matches method and path', async () => {
  const { url, server } = await serve(routes);
  try {
    assert.deepEqual(await call(url, 'GET', '/things/a%2Fb%20c'), { status: 200, body: { params: { thing_id: 'a/b c' } } });
    assert.deepEqual(await call(url, 'POST', '/things/x/poke?ignored=1'), { status: 200, body: { poked: 'x' } });
  } finally {
    server.close();
  }
});

test('the router refuses a request without the token before any route runs', async () => {
  const { url, server, reached } = await serve(routes);
  try {
    const reply = await call(url, 'GET', '/things/x', 'wrong-token');
    assert.equal(reply.status, 401);
    assert.deepEqual(reply.body, { error: { code: 'unauthorised', message: 'send the test token' } });
    assert.equal((await call(url, 'GET', '/nowhere', '')).status, 401, 'an unknown route without the token is refused too');
    assert.deepEqual(reached, []);
  } finally {
    server.close();
  }
});

test('the router answers a request no route takes with the service miss, in the one error shape', async () => {
  const { url, server, reached } = await serve(routes);
  try {
    assert.deepEqual(await call(url, 'POST', '/things/x'), {
      status: 404,
      body: { error: { code: 'no-such-route', message: 'POST /things/x is not a route of the test server' } },
    });
    assert.deepEqual(await call(url, 'GET', '/things/x/poke'), {
      status: 405,
      body: { error: { code: 'method-not-allowed', message: 'GET /things/x/poke is not a route of the test server' } },
    });
    const bad = await call(url, 'GET', '/things/%zz');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.error?.code, 'bad-path');
    assert.match(bad.body.error?.message ?? '', /^the thing id in the path is not valid percent-encoding/);
    assert.deepEqual(reached, []);
  } finally {
    server.close();
  }
});

test('the environment service and the host registry keep their 404 and 405 answers', async () => {
  const runDir = mkdtempSync(join(tmpdir(), 'gp-http-kit-'));
  const service = new EnvService({
    runDir,
    tasks: new Map(plannedTasks(['t1']).map((t) => [t.task.task_id, t])),
    deps: testDeps(() => ({ steps: 1 })).deps,
    maxOpen: 1,
    episodeDeadlineMs: 60_000,
    token,
  });
  const pool = new HostPool();
  try {
    const { url } = await service.start();
    assert.deepEqual(await call(url, 'GET', '/episodes'), {
      status: 405,
      body: { error: { code: 'method-not-allowed', message: 'GET /episodes is not a route of the environment service' } },
    });
    assert.deepEqual(await call(url, 'POST', '/nowhere'), {
      status: 404,
      body: { error: { code: 'no-such-route', message: 'POST /nowhere is not a route of the environment service' } },
    });
    assert.equal((await call(url, 'GET', '/health', 'wrong')).status, 401);
    const registry = await pool.start();
    assert.deepEqual(await call(registry.url, 'GET', '/hosts', registry.token), {
      status: 404,
      body: { error: { code: 'no-such-route', message: 'GET /hosts is not a route of the sandbox host registry' } },
    });
    assert.equal((await call(registry.url, 'GET', '/health', 'wrong')).status, 401);
  } finally {
    await service.close();
    await pool.close();
  }
});

/** A server that answers every request with `status` and `body`, or never when `status` is undefined. */
async function answering(status: number | undefined, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    if (status === undefined) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  return { url: await listenJson(server, '127.0.0.1', 0), server };
}

test('the client transport ends a request that gets no answer within its time limit', async () => {
  const { url, server } = await answering(undefined, '');
  try {
    const error = await httpCall({ method: 'GET', url: new URL('/x', url), timeoutMs: 100 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof HttpTransportError);
    assert.ok(error instanceof HttpError);
    assert.equal(error.code, 'no-answer');
    assert.equal(error.message, 'no answer in 100 ms');
    assert.equal(error.status, undefined);
    const lost = await new HostClient(url, token, 'host h1').call({ method: 'GET', path: '/health', schema: z.unknown(), timeoutMs: 100 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(lost instanceof HostLostError && lost instanceof HttpError);
    assert.equal(lost.message, 'host h1: no answer in 100 ms');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a non-2xx answer is an HttpError with its status from every client', async () => {
  const { url, server } = await answering(503, '{"error":{"code":"busy","message":"too busy"}}');
  try {
    const failures = await Promise.all([
      new HostClient(url, token, 'host h1').call({ method: 'GET', path: '/health', schema: z.unknown() }).then(
        () => undefined,
        (e: unknown) => e,
      ),
      new RayJobsClient({ address: url, token: '' }).version().then(
        () => undefined,
        (e: unknown) => e,
      ),
      postJson(`${url}/v1/chat/completions`, {}, { what: 'chat endpoint', timeoutMs: 2000, retries: 0, backoffMs: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    ]);
    for (const failure of failures) {
      assert.ok(failure instanceof HttpError, String(failure));
      assert.equal(failure.status, 503);
    }
    assert.ok(failures[0] instanceof HostHttpError);
    assert.equal(failures[0].code, 'busy');
    assert.ok(failures[1] instanceof RayJobsError);
    assert.ok(failures[2] instanceof ModelClientError);
    assert.equal(failures[2].message, `chat endpoint ${url}/v1/chat/completions answered HTTP 503: too busy`);
    assert.equal(failures[2].bodyExcerpt, 'too busy');
    assert.equal(failures[2].url, `${url}/v1/chat/completions`);
    assert.ok(new HubError('not-found', 'no such dataset', 'https://user:secret@hub.example/api?expires=1', 404) instanceof HttpError);
    assert.equal(new HubError('not-found', 'no such dataset', 'https://user:secret@hub.example/api?expires=1', 404).url, 'https://hub.example/api');
  } finally {
    server.close();
  }
});
