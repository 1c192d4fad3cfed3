/**
 * Issue 38, item 4: a training episode through the front door (the environment service with a
 * host pool, cluster/envService.ts) and a real sandbox host (cluster/sandboxHost.ts, started in
 * this process, with real local sandboxes and the real environment) is one typed pipe. The client
 * stands in for the agent loop and sends the replies of a recorded `gp rollout` episode. A
 * diagnostics-channel subscriber counts every HTTP request the host's server receives and keeps the
 * body of its close answer, so the test sees the wire, not the code:
 * - the episode id the front door chooses is the one the host runs under and writes in its files;
 * - the episode's files and end line come back in the host's close answer and land, byte for byte,
 *   in the front door's run folder, with no request for /files;
 * - an episode of N steps takes N + 2 round trips to the host: create, N steps, close;
 * - the host's own events.jsonl holds nothing the front door's lacks: its lines are the front
 *   door's, timestamps aside, which is why it is not brought back (docs/sandbox-hosts.md).
 */
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { renderAction } from '../../server/src/agents/index.js';
import { runCli } from '../../server/src/cli/main.js';
import { EnvService, HostPool, SandboxHost } from '../../server/src/cluster/index.js';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { episodeDepsFromConfig, loadRolloutTasks } from '../../server/src/launch/index.js';
import { hostCloseReplySchema, hostSpecSchema, type HostCloseReply } from '../../server/src/protocol/sandboxHosts.js';
import { readEvents, readTrajectory, runLayout } from '../../server/src/runs/index.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-episode-pipe-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** One request the host's server received, as the diagnostics channel reports it. */
interface Seen {
  readonly method: string;
  readonly path: string;
}

/**
 * Counts the requests an HTTP server on `port` receives, through Node's `http.server.request.start`
 * channel, and keeps the body of each answer to a close.
 */
function watchServer(port: () => number | undefined): { seen: Seen[]; closeAnswers: string[]; stop: () => void } {
  const seen: Seen[] = [];
  const closeAnswers: string[] = [];
  const listener = (message: unknown): void => {
    const { request, response, server } = message as { request: IncomingMessage; response: ServerResponse; server: Server };
    const address = server.address();
    if (address === null || typeof address === 'string' || address.port !== port()) return;
    const path = new URL(request.url ?? '/', 'http://host').pathname;
    seen.push({ method: request.method ?? '?', path });
    if (!path.endsWith('/close')) return;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown): void => {
      if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) chunks.push(Buffer.from(chunk));
    };
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.write = ((...args: unknown[]) => {
      keep(args[0]);
      return write(...args);
    }) as typeof response.write;
    response.end = ((...args: unknown[]) => {
      keep(args[0]);
      closeAnswers.push(Buffer.concat(chunks).toString('utf8'));
      return end(...args);
    }) as typeof response.end;
  };
  subscribe('http.server.request.start', listener);
  return { seen, closeAnswers, stop: () => unsubscribe('http.server.request.start', listener) };
}

async function call(url: string, token: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await answer.json()) as Record<string, unknown>;
  assert.equal(answer.status, 200, `${path}: ${JSON.stringify(json)}`);
  return json;
}

/** Reads a run folder's events without their timestamps, once `count` of them are written. */
async function eventsWithoutTime(runDir: string, count: number): Promise<unknown[]> {
  for (let waited = 0; ; waited += 50) {
    const { records } = await readEvents(runLayout(runDir).events);
    if (records.length >= count || waited > 10_000) return records.map(({ ts: _ts, ...rest }) => rest);
    await new Promise((done) => setTimeout(done, 50));
  }
}

test('an episode through a sandbox host: the front door’s id, its files and end line back in the close answer, N + 2 round trips', async (t) => {
  const recorded = join(dir, 'recorded');
  const code = await runCli(
    ['rollout', 'datasets/sample/tasks.jsonl', '--backend', 'local', '--task', 'sample-calc-add', '--run-dir', recorded],
    { out: () => undefined, err: () => undefined },
    root,
  );
  assert.equal(code, 0, 'the recorded rollout ran');
  const read = await readTrajectory(join(recorded, 'trajectories', 'sample-calc-add.jsonl'));
  assert.ok(read?.end !== undefined);
  const replies = read.steps.map((s) => (s.action === undefined ? 'not an action' : renderAction(s.action)));
  assert.ok(replies.length >= 2, 'the recorded episode has steps to send');

  const loaded = await loadRolloutTasks({
    files: ['datasets/sample/tasks.jsonl'],
    taskIds: [],
    limit: undefined,
    cwd: root,
    command: 'test',
    allowedMountRoots: [],
  });
  assert.ok(loaded.ok);
  const tasks = new Map(loaded.tasks.map((t) => [t.task.task_id, t]));
  const config = experimentConfigSchema.parse({ sandbox: { backend: 'local' } });
  // Health checks are the pool's, not the episode's; a long interval keeps them out of the way.
  const pool = new HostPool({ healthIntervalMs: 60_000 });
  const registry = await pool.start();
  const scratch = join(dir, 'host-scratch');
  const host = new SandboxHost({
    spec: hostSpecSchema.parse({ run_name: 'pipe', registry, config_text: '', tasks_text: '', episode_deadline_ms: 600_000, cli: [process.execPath] }),
    node: 'node-pipe',
    slots: 1,
    listen: '127.0.0.1',
    scratch,
    tasks,
    depsFor: (runDir) => episodeDepsFromConfig(config, 'pipe', runDir, {}, 'node-pipe'),
    images: () => Promise.resolve([]),
    reap: () => Promise.resolve(0),
    log: () => undefined,
  });
  let hostPort: number | undefined;
  const wire = watchServer(() => hostPort);
  const runDir = join(dir, 'front-door');
  const front = new EnvService({ runDir, tasks, deps: episodeDepsFromConfig(config, 'pipe', runDir), maxOpen: 1, episodeDeadlineMs: 600_000, hosts: pool });
  try {
    hostPort = Number(new URL((await host.start()).url).port);
    assert.equal(await pool.waitForHosts(1, 30_000, new AbortController().signal), true, 'the host registered');
    const { url, token } = await front.start();

    const created = await call(url, token, '/episodes', { client_key: 'pipe-1', task_id: 'sample-calc-add', group_id: 'g1' });
    const id = String(created['episode_id']);
    const path = `/episodes/${encodeURIComponent(id)}`;
    let done = false;
    for (const [i, reply] of replies.entries()) {
      const step = await call(url, token, `${path}/step`, { turn: i + 1, reply });
      done = step['done'] === true;
    }
    assert.ok(done, 'the recorded replies end the episode');
    const closed = await call(url, token, `${path}/close`, {});
    assert.equal(closed['episode_id'], id);
    assert.equal(closed['resolved'], read.end.resolved, 'the host ran the recorded episode again');

    // (c) The wire: create, one request per step, close; nothing else, and no /files.
    const episodeRequests = wire.seen.filter((r) => !(r.method === 'GET' && r.path === '/health'));
    const N = replies.length;
    assert.deepEqual(
      episodeRequests.map((r) => `${r.method} ${r.path}`),
      ['POST /episodes', ...replies.map(() => `POST ${path}/step`), `POST ${path}/close`],
    );
    assert.equal(episodeRequests.length, N + 2);
    t.diagnostic(`${N} steps took ${episodeRequests.length} round trips from the front door to the host`);
    assert.ok(!wire.seen.some((r) => r.path.endsWith('/files')), 'no separate request for the files');

    // (a) and (b): the host's close answer, under the front door's id, carries the end line and every file.
    assert.equal(wire.closeAnswers.length, 1);
    const answer: HostCloseReply = hostCloseReplySchema.parse(JSON.parse(wire.closeAnswers[0] ?? ''));
    assert.equal(answer.end?.episode_id, id, 'the end line the host wrote names the front door’s id');
    assert.equal(answer.end.total_reward, read.end.total_reward);
    const trajectoryPath = runLayout(runDir)
      .trajectory(id)
      .slice(runDir.length + 1);
    assert.ok(
      answer.files.some((f) => f.path === trajectoryPath),
      `the trajectory ${trajectoryPath} is among ${answer.files.map((f) => f.path).join(', ')}`,
    );
    for (const file of answer.files) {
      assert.deepEqual(
        readFileSync(join(runDir, file.path)),
        Buffer.from(file.data, 'base64'),
        `${file.path} landed in the front door's run folder as the host sent it`,
      );
    }
    const landed = await readTrajectory(runLayout(runDir).trajectory(id));
    assert.equal(landed?.start?.episode_id, id);
    assert.equal(landed?.end?.episode_id, id);
    assert.equal(landed?.start?.sandbox_host?.node, 'node-pipe');
    assert.equal(landed?.steps.length, N);

    // The host's own events.jsonl, read before the host ends and removes its scratch folder: the
    // same two lines the front door wrote, under the same id, timestamps aside.
    const hostEvents = await eventsWithoutTime(scratch, 2);
    const frontEvents = await eventsWithoutTime(runDir, 2);
    assert.deepEqual(
      hostEvents.map((e) => (e as { kind: string; episode_id?: string }).episode_id),
      [id, id],
    );
    assert.deepEqual(hostEvents, frontEvents, 'every line of the host’s events.jsonl is already in the front door’s');
    t.diagnostic(`the host's events.jsonl: ${JSON.stringify(hostEvents)}`);
  } finally {
    wire.stop();
    await front.close();
    await host.stop();
    await pool.close();
  }
});
