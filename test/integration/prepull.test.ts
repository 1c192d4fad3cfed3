/**
 * Pre-pull against the real Docker Engine and a real registry: the CNCF distribution registry
 * (`/usr/bin/docker-registry`, Debian's `docker-registry` package) serving on a loopback port.
 * Docker talks plain HTTP to registries on 127.0.0.0/8, so no certificates are needed. The image
 * is made without any registry: `docker import` of a one-file tar, pushed to the local registry.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import type Docker from 'dockerode';
import { pack } from 'tar-stream';
import { imagesPrepull } from '../../server/src/cli/imageCommands.js';
import type { Io } from '../../server/src/cli/output.js';
import { connectDocker } from '../../server/src/sandbox/dockerClient.js';
import { prepullImages, type PrepullEvent } from '../../server/src/sandbox/prepull.js';
import { assertHostProgram } from '../support/hostTools.js';

/** Where Debian's `docker-registry` package puts the registry; test/integration/setup.sh installs it. */
const registryProgram = '/usr/bin/docker-registry';
const suffix = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), 'gp-prepull-'));
let docker: Docker;
let registry: ChildProcess | undefined;
let registryLog = '';
let silent: Server | undefined;
const silentSockets = new Set<Socket>();
let tiny = '';
let deadPort = 0;
let silentPort = 0;

function capture(): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

/** A port nothing listens on right now: the kernel hands one out and we close it again. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port from the kernel');
  return address.port;
}

async function follow(stream: NodeJS.ReadableStream): Promise<{ error?: string }[]> {
  return new Promise((resolve, reject) =>
    docker.modem.followProgress(stream, (error: Error | null, output: { error?: string }[]) => (error ? reject(error) : resolve(output))),
  );
}

async function startRegistry(port: number): Promise<void> {
  // A missing registry fails every test of the file with the package to install, never a skip.
  assertHostProgram(registryProgram, 'docker-registry');
  const config = join(dir, 'config.yml');
  writeFileSync(
    config,
    [
      'version: 0.1',
      'log:',
      '  level: error',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dir, 'storage')}`,
      'http:',
      `  addr: 127.0.0.1:${port}`,
      '',
    ].join('\n'),
  );
  const child = spawn(registryProgram, ['serve', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  registry = child;
  child.stdout?.on('data', (d: Buffer) => (registryLog += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (registryLog += d.toString()));
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode}: ${registryLog}`);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/v2/`);
      if (answer.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`docker-registry did not answer on port ${port} within 15 s: ${registryLog}`);
}

/** `docker import` of a tar holding one text file, tagged `repo:tag`. */
async function importTinyImage(repo: string, tag: string): Promise<void> {
  const tar = pack();
  tar.entry({ name: 'hello.txt' }, `graph-planner prepull test ${suffix}\n`);
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  const output = await follow(await docker.importImage(Readable.from([Buffer.concat(chunks)]), { repo, tag, changes: ['CMD ["/hello.txt"]'] }));
  const failed = output.find((e) => e.error !== undefined);
  if (failed) throw new Error(`docker import failed: ${failed.error}`);
}

before(async () => {
  docker = (await connectDocker()).docker;
  const port = await freePort();
  await startRegistry(port);
  deadPort = await freePort();
  // A TCP listener that accepts and never answers, so that a pull hangs until our time limit.
  silent = createServer((socket) => {
    silentSockets.add(socket);
    socket.on('close', () => silentSockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent?.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  silentPort = address !== null && typeof address === 'object' ? address.port : 0;
  const repo = `127.0.0.1:${port}/gp-test/tiny-${suffix}`;
  tiny = `${repo}:1`;
  await importTinyImage(repo, '1');
  const pushed = await follow(await docker.getImage(repo).push({ tag: '1', authconfig: { username: '', password: '', serveraddress: `127.0.0.1:${port}` } }));
  const failed = pushed.find((e) => e.error !== undefined);
  if (failed) throw new Error(`push to the local registry failed: ${failed.error}`);
  // Only the local tag goes; the registry keeps the image for the pre-pull to fetch.
  await docker.getImage(tiny).remove();
});

after(async () => {
  if (tiny)
    await docker
      .getImage(tiny)
      .remove({ force: true })
      .catch(() => undefined);
  if (registry !== undefined && registry.exitCode === null) {
    const exited = new Promise((resolve) => registry?.once('exit', resolve));
    registry.kill('SIGTERM');
    await exited;
  }
  for (const socket of silentSockets) socket.destroy();
  await new Promise<void>((resolve) => silent?.close(() => resolve()) ?? resolve());
  rmSync(dir, { recursive: true, force: true });
});

async function present(image: string): Promise<boolean> {
  return docker
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

test('pulls from the distribution registry, fails an unreachable one after every retry, and never pulls a build-only image', async () => {
  assert.equal(await present(tiny), false);
  const dead = `127.0.0.1:${deadPort}/gp-test/none-${suffix}:1`;
  const buildOnly = 'sweb.eval.x86_64.foo__bar-1:latest';
  const events: PrepullEvent[] = [];
  const results = await prepullImages([dead, tiny, buildOnly, tiny], {
    maxWorkers: 2,
    retries: 2,
    delayMs: 50,
    timeoutMs: 60_000,
    docker,
    onEvent: (e) => events.push(e),
  });
  assert.deepEqual(
    results.map((r) => [r.image, r.status, r.attempts]),
    [
      [dead, 'failed', 3],
      [tiny, 'pulled', 1],
      [buildOnly, 'build-only', 0],
    ],
  );
  assert.match(results[0]?.error ?? '', /connection refused|connect/i);
  assert.equal(await present(tiny), true);
  assert.equal(events.filter((e) => e.kind === 'attempt' && e.image === buildOnly).length, 0, 'no pull was attempted for the build-only image');
  assert.equal(events.filter((e) => e.kind === 'retry' && e.image === dead).length, 2);
});

test('reports an image already in the local store as present without pulling it', async () => {
  const events: PrepullEvent[] = [];
  const [result] = await prepullImages([tiny], { docker, onEvent: (e) => events.push(e) });
  assert.equal(result?.status, 'present');
  assert.equal(result?.attempts, 0);
  assert.equal(
    events.some((e) => e.kind === 'attempt'),
    false,
  );
});

test('aborts an attempt that passes its time limit and says so', async () => {
  const hanging = `127.0.0.1:${silentPort}/gp-test/hangs-${suffix}:1`;
  const started = Date.now();
  const [result] = await prepullImages([hanging], { docker, retries: 0, timeoutMs: 1_000 });
  assert.equal(result?.status, 'failed');
  assert.match(result?.error ?? '', /no complete pull within 1 s/);
  assert.ok(Date.now() - started < 8_000, "the attempt was cut at its limit, not at the daemon's own timeouts");
});

test('gp images prepull exits 0 when every image is fine and 1 when one failed', async () => {
  const ok = capture();
  assert.equal(await imagesPrepull([tiny, 'sweb.eval.x86_64.foo__bar-1:latest'], ok), 0);
  assert.ok(ok.lines.includes(`${tiny}: already present`), ok.lines.join('\n'));
  assert.ok(ok.lines.includes('sweb.eval.x86_64.foo__bar-1:latest: build-only (build it, not pulled)'));
  assert.ok(ok.lines.includes('Pre-pull of 2 images: 0 pulled, 1 already present, 0 failed, 1 build-only.'));

  const bad = capture();
  const dead = `127.0.0.1:${deadPort}/gp-test/none-${suffix}:1`;
  assert.equal(await imagesPrepull([tiny, dead, '--retries', '1', '--delay', '0.05'], bad), 1);
  assert.ok(
    bad.lines.some((l) => l.startsWith(`${dead}: failed: `) && l.endsWith('(2 attempts)')),
    bad.lines.join('\n'),
  );
  assert.ok(bad.errors.some((l) => l.startsWith(`${dead}: attempt 1 failed`)));

  const json = capture();
  assert.equal(await imagesPrepull([tiny, '--json'], json), 0);
  const printed = JSON.parse(json.lines.join('\n')) as { results: { image: string; status: string }[] };
  assert.deepEqual(
    printed.results.map((r) => r.status),
    ['present'],
  );
});

test('gp images prepull reads a manifest and a dataset file, and exits 2 on usage errors', async () => {
  const manifest = join(dir, 'docker_images.txt');
  writeFileSync(manifest, `# test manifest\n${tiny}\nsweb.eval.x86_64.foo__bar-1:latest\n`);
  const data = join(dir, 'tasks.jsonl');
  writeFileSync(data, `${JSON.stringify({ task_id: 't', sandbox: { docker_image: 'gp-test/built-here:1', workdir: '/w', requires_build: true } })}\n`);
  const io = capture();
  assert.equal(await imagesPrepull(['--manifest', manifest, data], io), 0);
  assert.ok(io.lines.includes('gp-test/built-here:1: build-only (build it, not pulled)'), io.lines.join('\n'));
  assert.ok(io.lines.includes(`${tiny}: already present`));

  const usage = capture();
  assert.equal(await imagesPrepull([], usage), 2);
  assert.equal(await imagesPrepull([tiny, '--max-workers', '0'], usage), 2);
  assert.equal(await imagesPrepull([tiny, '--unknown'], usage), 2);
  assert.equal(await imagesPrepull(['--manifest', join(dir, 'absent.txt')], usage), 2);
  assert.match(usage.errors.join('\n'), /--max-workers needs a whole number of at least 1/);
});
