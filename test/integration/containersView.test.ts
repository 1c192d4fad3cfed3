/**
 * The Containers view's server side on the real Docker Engine: over a real (in-memory) LSP
 * connection, a labelled container appears in a `containers/changed` push when Docker reports it
 * and disappears when it is removed, each refresh logged with its reason; the actions act on it;
 * reaping removes an orphan and keeps a live container. Every container here carries this file's
 * own run label, and reaping is limited to that run, because other tests share the engine.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Docker from 'dockerode';
import {
  containerActionRequest,
  containersChangedNotification,
  containersChangedSchema,
  containersListRequest,
  containersListResultSchema,
  containersWatchRequest,
  containerActionResultSchema,
  type ContainerActionResult,
  type ContainersChanged,
} from '../../server/src/protocol/index.js';
import { sandboxLabels } from '../../server/src/protocol/sandbox.js';
import { ownerLabels } from '../../server/src/sandbox/containers.js';
import { ContainerEventFollower } from '../../server/src/sandbox/containerEvents.js';
import { ContainerService } from '../../server/src/sandbox/containerService.js';
import { connectDocker, dockerLocation } from '../../server/src/sandbox/dockerClient.js';
import { startHarness, type Harness } from '../support/lspHarness.js';

const suffix = randomBytes(4).toString('hex');
const run = `test-containers-view-${suffix}`;
let docker: Docker;
let image = '';
let h: Harness;

/** One of our local images (built offline by test/integration/setup.sh); any will do. */
async function localImage(): Promise<string> {
  const images = await docker.listImages();
  const tags = images.flatMap((i) => i.RepoTags ?? []).filter((t) => t.startsWith('graph-planner/'));
  const chosen = tags.find((t) => t === 'graph-planner/base:latest') ?? tags[0];
  if (chosen === undefined) throw new Error('No graph-planner/* image: run `bash test/integration/setup.sh` first.');
  return chosen;
}

async function exitedPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  if (child.pid === undefined) throw new Error('could not spawn `true`');
  return child.pid;
}

async function create(task: string, labels: Record<string, string> = ownerLabels(run, task)): Promise<Docker.Container> {
  // A shell as pid 1 ignores SIGTERM unless it traps it; trapped, a stop takes no grace period.
  const script = `trap 'exit 0' TERM; echo hello from ${task}; sleep 600 & wait`;
  return docker.createContainer({ Image: image, Labels: labels, Cmd: ['sh', '-c', script] });
}

/** The first `containers/changed` push after `from` that satisfies `match`. */
async function changed(from: number, match: (c: ContainersChanged) => boolean, timeoutMs = 15_000): Promise<ContainersChanged> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = h.notifications
      .slice(from)
      .filter((n) => n.method === containersChangedNotification)
      .map((n) => containersChangedSchema.parse(n.params))
      .find(match);
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`No matching ${containersChangedNotification} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function act(id: string, action: 'stop' | 'remove' | 'inspect' | 'logs'): Promise<ContainerActionResult> {
  return containerActionResultSchema.parse(await h.client.sendRequest(containerActionRequest, { id, action }));
}

function logLines(from = 0): string[] {
  return h.notifications
    .slice(from)
    .filter((n) => n.method === 'window/logMessage')
    .map((n) => (n.params as { message: string }).message);
}

before(async () => {
  docker = (await connectDocker()).docker;
  image = await localImage();
  h = await startHarness();
});

after(async () => {
  await h.close();
  const left = await docker.listContainers({ all: true, filters: { label: [`${sandboxLabels.run}=${run}`] } });
  for (const c of left)
    await docker
      .getContainer(c.Id)
      .remove({ force: true })
      .catch(() => undefined);
});

test('a labelled container appears through the event stream, its actions work, and it disappears when removed', async () => {
  const start = h.notifications.length;
  await h.client.sendRequest(containersWatchRequest, { watching: true });
  // The stream is connected once its first refresh has been pushed or logged.
  await waitFor(() => logLines(start).some((l) => l.includes('event stream connected')));

  const container = await create('appears');
  await container.start();
  const seen = await changed(start, (c) => c.containers.some((x) => x.id === container.id && x.state === 'running'));
  assert.equal(seen.daemon.reachable, true);
  assert.match(seen.reason, /event: (create|start) [0-9a-f]{12} \(test-containers-view-/);
  const info = seen.containers.find((x) => x.id === container.id);
  assert.equal(info?.run, run);
  assert.equal(info?.task, 'appears');
  assert.equal(info?.ownerAlive, true, 'this process owns it');
  assert.ok(
    logLines(start).some((l) => /^Containers: refresh \(.*event: (create|start) /.test(l)),
    logLines(start).join('\n'),
  );

  const listed = containersListResultSchema.parse(await h.client.sendRequest(containersListRequest, {}));
  assert.ok(listed.containers.some((x) => x.id === container.id));

  const inspected = await act(container.id, 'inspect');
  assert.equal(inspected.ok, true);
  const json = JSON.parse(inspected.text ?? '') as { Config: { Labels: Record<string, string> } };
  assert.equal(json.Config.Labels[sandboxLabels.task], 'appears');
  const logs = await act(container.id, 'logs');
  assert.match(logs.text ?? '', /hello from appears/);

  const beforeStop = h.notifications.length;
  const stopped = await act(container.id, 'stop');
  assert.equal(stopped.ok, true, stopped.message);
  await changed(beforeStop, (c) => c.containers.some((x) => x.id === container.id && x.state === 'exited'));

  const beforeRemove = h.notifications.length;
  const removed = await act(container.id, 'remove');
  assert.equal(removed.ok, true, removed.message);
  const gone = await changed(beforeRemove, (c) => !c.containers.some((x) => x.id === container.id));
  assert.match(gone.reason, /destroy|after remove/);
  if (process.env['GP_SHOW_LOG'] === '1') console.log(logLines(start).join('\n'));
  await h.client.sendRequest(containersWatchRequest, { watching: false });
});

test('each container is marked with whether its run folder lies under the workspace’s run roots', async () => {
  // The harness's workspace is this checkout, whose default run root is `outputs/`.
  const mine = await create('mine', ownerLabels(run, 'mine', new Date(), undefined, undefined, join(process.cwd(), 'outputs', run)));
  const elsewhere = await create(
    'elsewhere',
    ownerLabels(run, 'elsewhere', new Date(), undefined, undefined, join(tmpdir(), 'another-checkout', 'outputs', run)),
  );
  const unlabelled = await create('unlabelled');
  try {
    const listed = containersListResultSchema.parse(await h.client.sendRequest(containersListRequest, {}));
    const marked = (id: string) => listed.containers.find((c) => c.id === id)?.inWorkspace;
    assert.equal(marked(mine.id), true);
    assert.equal(marked(elsewhere.id), false);
    assert.equal(marked(unlabelled.id), false, 'a container of an older version names no run folder');
  } finally {
    for (const c of [mine, elsewhere, unlabelled]) await c.remove({ force: true });
  }
});

test('refuses to act on a container that is not ours', async () => {
  const stranger = await docker.createContainer({ Image: image, Cmd: ['true'], Labels: { [`test-containers-view-${suffix}`]: 'stranger' } });
  try {
    const result = await act(stranger.id, 'remove');
    assert.equal(result.ok, false);
    assert.match(result.message, /not Graph Planner's/);
    assert.ok(await stranger.inspect(), 'the container is still there');
  } finally {
    await stranger.remove({ force: true });
  }
});

test('pushes nothing while nobody watches', async () => {
  const start = h.notifications.length;
  const container = await create('unwatched');
  await container.remove({ force: true });
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.equal(h.notifications.slice(start).filter((n) => n.method === containersChangedNotification).length, 0);
});

test('reaping from the provider removes an orphan and keeps a container whose owner lives', async () => {
  const service = new ContainerService({ run, docker });
  const orphan = await create('orphan', { ...ownerLabels(run, 'orphan'), [sandboxLabels.pid]: String(await exitedPid()) });
  const live = await create('live');
  const listed = await service.list();
  assert.equal(listed.containers.find((c) => c.id === orphan.id)?.ownerAlive, false);
  const result = await service.reap();
  assert.deepEqual([result.removed, result.failed], [1, 0], result.message);
  assert.match(result.message, /Removed 1 orphaned container\./);
  const after = await service.list();
  assert.deepEqual(
    after.containers.map((c) => c.id),
    [live.id],
  );
  await live.remove({ force: true });
});

test('says the daemon is unreachable, with what to do, instead of failing', async () => {
  const service = new ContainerService({ docker: new Docker({ socketPath: `/tmp/no-docker-${suffix}.sock` }) });
  const result = await service.list();
  assert.equal(result.daemon.reachable, false);
  assert.deepEqual(result.containers, []);
  if (!result.daemon.reachable) {
    assert.match(result.daemon.reason, /did not answer: .*ENOENT/);
    assert.match(result.daemon.hint, /DOCKER_HOST/);
  }
  const reap = await service.reap();
  assert.equal(reap.removed, 0);
  assert.match(reap.message, /did not answer/);
});

/**
 * A Unix socket that forwards to the daemon's and can be shut and opened again: to the client on
 * the other side, the daemon goes away (every connection cut) and comes back.
 */
function daemonProxy(path: string, daemonSocket: string) {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  return {
    async open(): Promise<void> {
      rmSync(path, { force: true });
      server = createServer((client) => {
        const daemon = createConnection(daemonSocket);
        track(client);
        track(daemon);
        client.pipe(daemon).pipe(client);
        client.on('close', () => daemon.destroy());
        daemon.on('close', () => client.destroy());
      });
      await new Promise<void>((resolve) => server?.listen(path, resolve));
    },
    async shut(): Promise<void> {
      const closing = new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
      for (const socket of sockets) socket.destroy();
      await closing;
      server = undefined;
    },
  };
}

const unixDaemon = /^unix:\/\/(.+)$/.exec(dockerLocation())?.[1];

test(
  'when the daemon goes away the view hears it once, and when it comes back the stream reopens and events flow',
  { skip: unixDaemon === undefined ? 'the daemon is not on a Unix socket' : false },
  async () => {
    const path = join(tmpdir(), `gp-daemon-proxy-${suffix}.sock`);
    const proxy = daemonProxy(path, unixDaemon ?? '');
    await proxy.open();
    const service = new ContainerService({ run, docker: new Docker({ socketPath: path }), timeoutMs: 2_000 });
    const refreshes: { reason: string; reachable: boolean; ids: string[] }[] = [];
    const logs: string[] = [];
    const follower = new ContainerEventFollower({
      open: service.openEvents,
      refresh: async (reason) => {
        const result = await service.list();
        refreshes.push({ reason, reachable: result.daemon.reachable, ids: result.containers.map((c) => c.id) });
      },
      log: (line) => logs.push(line),
      debounceMs: 50,
      firstRetryMs: 100,
      maxRetryMs: 400,
    });
    try {
      follower.watch(true);
      await waitFor(() => refreshes.some((r) => r.reason === 'event stream connected' && r.reachable));
      await proxy.shut();
      await waitFor(() => refreshes.some((r) => !r.reachable));
      const whileAway = refreshes.length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      assert.equal(refreshes.length, whileAway, `failed reopenings do not refresh: ${JSON.stringify(refreshes.slice(whileAway))}`);
      assert.ok(logs.filter((l) => /could not be opened.*reopening in/.test(l)).length >= 2, logs.join('\n'));
      await proxy.open();
      await waitFor(() => refreshes.some((r) => r.reason.startsWith('event stream reconnected') && r.reachable));
      const container = await create('after-reconnect');
      await waitFor(() => refreshes.some((r) => r.reason.includes('event: create') && r.ids.includes(container.id)));
      await container.remove({ force: true });
    } finally {
      follower.stop();
      await proxy.shut();
      rmSync(path, { force: true });
    }
  },
);

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
