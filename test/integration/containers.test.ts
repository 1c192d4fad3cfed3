/**
 * Listing and reaping labelled containers on the real Docker Engine. The containers are created
 * from a one-file image made with `docker import` and never started: labels and owner liveness are
 * all that listing and reaping look at. Having no stdin lifeline (server/src/sandbox/lifeline.ts),
 * they stand for the orphans reaping is still for: containers of older versions, of other hosts,
 * or of an owner killed before it attached. Every container here carries this file's own run labels,
 * and every call that could remove something is limited to them, because other people's containers
 * share the engine.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import type Docker from 'dockerode';
import { pack } from 'tar-stream';
import { containersList, containersReap, formatAge } from '../../server/src/cli/containerCommands.js';
import type { Io } from '../../server/src/cli/output.js';
import { sandboxLabels, type ContainerInfo } from '../../server/src/protocol/sandbox.js';
import { listContainers, ownerLabels, reapContainers } from '../../server/src/sandbox/containers.js';
import { connectDocker } from '../../server/src/sandbox/dockerClient.js';

const suffix = randomBytes(4).toString('hex');
const run = `test-containers-${suffix}`;
const otherRun = `test-containers-${suffix}-b`;
/** A run whose one container a sandbox host made on a Ray node (issue 22). */
const nodeRun = `test-containers-${suffix}-node`;
const image = `gp-test/containers-tiny-${suffix}:1`;
let docker: Docker;
let deadPid = 0;
const ids: Record<'dead' | 'alive' | 'foreign' | 'other', string> = { dead: '', alive: '', foreign: '', other: '' };

function capture(): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

async function importTinyImage(): Promise<void> {
  const tar = pack();
  tar.entry({ name: 'hello.txt' }, `graph-planner containers test ${suffix}\n`);
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  const [repo, tag] = image.split(':');
  const stream = await docker.importImage(Readable.from([Buffer.concat(chunks)]), { repo, tag, changes: ['CMD ["/hello.txt"]'] });
  const output = await new Promise<{ error?: string }[]>((resolve, reject) =>
    docker.modem.followProgress(stream, (error: Error | null, out: { error?: string }[]) => (error ? reject(error) : resolve(out))),
  );
  const failed = output.find((e) => e.error !== undefined);
  if (failed) throw new Error(`docker import failed: ${failed.error}`);
}

/** The pid of a process that has exited: `true`, waited for. */
async function exitedPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  if (child.pid === undefined) throw new Error('could not spawn `true`');
  return child.pid;
}

async function create(labels: Record<string, string>): Promise<string> {
  const container = await docker.createContainer({ Image: image, Labels: labels });
  return container.id;
}

async function ours(): Promise<ContainerInfo[]> {
  return listContainers({ all: true, run, docker });
}

before(async () => {
  docker = (await connectDocker()).docker;
  await importTinyImage();
  deadPid = await exitedPid();
  ids.dead = await create({ ...ownerLabels(run, 'dead-owner'), [sandboxLabels.pid]: String(deadPid) });
  ids.alive = await create(ownerLabels(run, 'live-owner'));
  ids.foreign = await create({ ...ownerLabels(run, 'foreign-owner'), [sandboxLabels.pid]: String(deadPid), [sandboxLabels.host]: `elsewhere-${suffix}` });
  ids.other = await create(ownerLabels(otherRun, 'other-run'));
  await create(ownerLabels(nodeRun, 'on-node', new Date(), 'worker-7'));
});

after(async () => {
  for (const label of [run, otherRun, nodeRun]) {
    const left = await docker.listContainers({ all: true, filters: { label: [`${sandboxLabels.run}=${label}`] } });
    for (const c of left)
      await docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined);
  }
  await docker
    .getImage(image)
    .remove({ force: true })
    .catch(() => undefined);
});

test('builds the owner labels from the run, the task, this process and this host', () => {
  const labels = ownerLabels('r', 't', new Date('2026-01-02T03:04:05.000Z'));
  assert.deepEqual(labels, {
    [sandboxLabels.run]: 'r',
    [sandboxLabels.task]: 't',
    [sandboxLabels.pid]: String(process.pid),
    [sandboxLabels.host]: hostname(),
    [sandboxLabels.created]: '2026-01-02T03:04:05.000Z',
  });
});

test('lists our containers with whether their owner still runs', async () => {
  const byId = new Map((await ours()).map((c) => [c.id, c]));
  assert.equal(byId.size, 3, "only this run's containers, through the label filter");
  assert.equal(byId.get(ids.dead)?.ownerAlive, false);
  assert.equal(byId.get(ids.dead)?.pid, deadPid);
  assert.equal(byId.get(ids.alive)?.ownerAlive, true);
  assert.equal(byId.get(ids.alive)?.task, 'live-owner');
  assert.equal(byId.get(ids.foreign)?.ownerAlive, true, "another host's processes cannot be seen, so its containers count as alive");
  assert.equal(byId.get(ids.dead)?.state, 'created');
  const foreignDead = await listContainers({ all: true, run, docker, foreignHostsDead: true });
  assert.equal(foreignDead.find((c) => c.id === ids.foreign)?.ownerAlive, false);
  const running = await listContainers({ run, docker });
  assert.equal(running.length, 0, 'without `all`, containers that never started are not listed');
});

test('gp containers list prints a table with short ids, owner state and age', async () => {
  const io = capture();
  assert.equal(await containersList(['--all', '--run', run], io), 0);
  assert.match(io.lines[0] ?? '', /^ID\s+RUN\s+EPISODE\s+STATE\s+OWNER\s+AGE$/);
  const deadLine = io.lines.find((l) => l.startsWith(ids.dead.slice(0, 12)));
  assert.ok(deadLine, io.lines.join('\n'));
  assert.match(deadLine, new RegExp(`^${ids.dead.slice(0, 12)}\\s+${run}\\s+dead-owner\\s+created\\s+dead\\s+\\d+[smhd]$`));
  assert.match(io.lines.find((l) => l.startsWith(ids.alive.slice(0, 12))) ?? '', /\salive\s/);
  const json = capture();
  assert.equal(await containersList(['--all', '--run', run, '--json'], json), 0);
  assert.equal((JSON.parse(json.lines.join('\n')) as ContainerInfo[]).length, 3);
  assert.equal(await containersList(['--bogus'], capture()), 2);
});

test('a container a sandbox host made lists with its Ray node, and gp containers list adds a NODE column for it', async () => {
  const [listed] = await listContainers({ all: true, run: nodeRun, docker });
  assert.equal(listed?.node, 'worker-7');
  assert.equal(
    (await ours()).some((c) => c.node !== undefined),
    false,
    'containers without the label have no node',
  );
  const io = capture();
  assert.equal(await containersList(['--all', '--run', nodeRun], io), 0);
  assert.match(io.lines[0] ?? '', /^ID\s+RUN\s+EPISODE\s+NODE\s+STATE\s+OWNER\s+AGE$/);
  assert.match(io.lines[1] ?? '', new RegExp(`^[0-9a-f]{12}\\s+${nodeRun}\\s+on-node\\s+worker-7\\s+created\\s+alive\\s+\\d+[smhd]$`));
});

test('a dry-run reap names the dead-owner container and removes nothing', async () => {
  const result = await reapContainers({ dryRun: true, run, docker });
  assert.deepEqual(
    result.removed.map((c) => c.id),
    [ids.dead],
  );
  assert.equal((await ours()).length, 3);
  const io = capture();
  assert.equal(await containersReap(['--dry-run', '--run', run], io), 0);
  assert.ok(
    io.lines.some((l) => l.startsWith(`would remove ${ids.dead.slice(0, 12)} ${run}/dead-owner`)),
    io.lines.join('\n'),
  );
  assert.equal(io.lines.at(-1), 'Dry run: would remove 1 container; 2 containers kept because the owner runs.');
  assert.equal((await ours()).length, 3);
});

test('gp containers reap removes only the container whose owner is gone', async () => {
  const io = capture();
  assert.equal(await containersReap(['--run', run], io), 0);
  assert.ok(
    io.lines.some((l) => l.startsWith(`removed ${ids.dead.slice(0, 12)}`)),
    io.lines.join('\n'),
  );
  assert.deepEqual((await ours()).map((c) => c.id).sort(), [ids.alive, ids.foreign].sort());
  const again = await reapContainers({ run, docker });
  assert.deepEqual(again.removed, [], 'nothing is left to reap');
});

test('reaping with --include-live removes every container of the named run and no other', async () => {
  assert.equal(await containersReap(['--include-live'], capture()), 2, '--include-live without --run is refused');
  const io = capture();
  assert.equal(await containersReap(['--run', otherRun, '--include-live', '--json'], io), 0);
  const printed = JSON.parse(io.lines.join('\n')) as { removed: ContainerInfo[]; failed: unknown[] };
  assert.deepEqual(
    printed.removed.map((c) => c.id),
    [ids.other],
  );
  assert.deepEqual(printed.failed, []);
  assert.equal((await listContainers({ all: true, run: otherRun, docker })).length, 0);
  assert.equal((await ours()).length, 2, 'the first run keeps its live containers');
  const result = await reapContainers({ run, includeLive: true, docker });
  assert.equal(result.removed.length, 2);
  assert.equal((await ours()).length, 0);
});

test('formats ages in the largest whole unit', () => {
  const now = Date.parse('2026-01-02T00:00:00Z');
  assert.equal(formatAge('2026-01-01T23:59:15Z', now), '45s');
  assert.equal(formatAge('2026-01-01T23:48:00Z', now), '12m');
  assert.equal(formatAge('2026-01-01T21:00:00Z', now), '3h');
  assert.equal(formatAge('2025-12-31T00:00:00Z', now), '2d');
  assert.equal(formatAge('not a date', now), '?');
});
