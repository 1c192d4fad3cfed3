/**
 * Containers die with their owner (ARCHITECTURE.md §4.15), on the real Docker Engine: a process
 * that opened a sandbox through the engine's opener and a real `gp rollout` are killed with
 * SIGKILL, which no handler can see, and their containers must be gone soon after without any
 * reaping. Closing a sandbox normally still removes its container, and closing one whose container
 * vanished first does not fail. Every container here carries this file's own run labels.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import Docker from 'dockerode';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { sandboxLabels, sandboxSpecSchema } from '../../server/src/protocol/sandbox.js';
import { runStatusSchema } from '../../server/src/protocol/runs.js';
import { openSandbox, type DockerSandbox } from '../../server/src/sandbox/index.js';

const repo = resolve(__dirname, '..', '..');
const image = 'graph-planner/repoenv-sample:latest';
const run = `test-owner-death-${process.pid}-${Date.now().toString(36)}`;
const dir = mkdtempSync(join(tmpdir(), 'gp-owner-death-'));
const docker = new Docker();
const runs = [run];
const children: ChildProcess[] = [];
/** How long a container may outlive its owner before the test fails. */
const graceMs = 20_000;

after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  // Whatever a failed test left is removed here, so a failure does not leak into the engine.
  for (const name of runs) {
    for (const c of await containersOf(name))
      await docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined);
  }
});

async function containersOf(name: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${sandboxLabels.run}=${name}`] } });
}

async function exists(id: string): Promise<boolean> {
  try {
    await docker.getContainer(id).inspect();
    return true;
  } catch (error) {
    if ((error as { statusCode?: unknown }).statusCode === 404) return false;
    throw error;
  }
}

/** Polls until `check` holds and returns the milliseconds it took; fails after `ms`. */
async function waitFor(check: () => Promise<boolean>, ms: number, what: () => string): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) assert.fail(what());
    await new Promise((r) => setTimeout(r, 50));
  }
  return performance.now() - started;
}

function spawnChild(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<unknown> } {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let text = '';
  child.stdout?.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise((done) => child.once('exit', done));
  return { child, output: () => text, exited };
}

function openHere(): Promise<DockerSandbox> {
  const spec = sandboxSpecSchema.parse({ ...defaultSandboxOptions(run), backend: 'docker', image, workdir: '/testbed', run, task: 'owner-death-close' });
  return openSandbox(spec) as Promise<DockerSandbox>;
}

test('a sandbox container is gone soon after its owner is killed with SIGKILL', async (t) => {
  const peer = spawnChild(['test/integration/ownerDeathPeer.ts', run, image]);
  let id = '';
  await waitFor(
    async () => {
      assert.equal(peer.child.exitCode, null, `the peer ended early: ${peer.output()}`);
      const line = peer
        .output()
        .split('\n')
        .find((l) => l.startsWith('{"id"'));
      if (line !== undefined) id = (JSON.parse(line) as { id: string }).id;
      return id !== '';
    },
    60_000,
    () => `the peer never opened its sandbox: ${peer.output()}`,
  );
  const info = await docker.getContainer(id).inspect();
  assert.equal(info.State.Running, true, "the peer's container runs while the peer lives");
  assert.equal(info.Config.Labels[sandboxLabels.pid], String(peer.child.pid));
  peer.child.kill('SIGKILL');
  await peer.exited;
  const tookMs = await waitFor(
    async () => !(await exists(id)),
    graceMs,
    () => `container ${id} still exists ${graceMs / 1000} s after its owner was killed`,
  );
  t.diagnostic(`container gone ${tookMs.toFixed(0)} ms after its owner exited`);
});

test('a gp rollout killed with SIGKILL while two sandboxes are open leaves no container behind', async (t) => {
  const name = `${run}-rollout`;
  runs.push(name);
  const runDir = join(dir, name);
  const rollout = spawnChild([
    'server/src/cli/main.ts',
    'rollout',
    'datasets/sample/tasks.jsonl',
    '--backend',
    'docker',
    '--parallel',
    '2',
    '--run-dir',
    runDir,
  ]);
  await waitFor(
    async () => {
      assert.equal(rollout.child.exitCode, null, `gp rollout ended before two containers were open: ${rollout.output()}`);
      return (await containersOf(name)).filter((c) => c.State === 'running').length === 2;
    },
    180_000,
    () => `gp rollout never had two containers running: ${rollout.output()}`,
  );
  rollout.child.kill('SIGKILL');
  await rollout.exited;
  const tookMs = await waitFor(
    async () => (await containersOf(name)).length === 0,
    graceMs,
    () => `containers of ${name} remain ${graceMs / 1000} s after gp rollout was killed`,
  );
  t.diagnostic(`both containers gone ${tookMs.toFixed(0)} ms after gp rollout exited`);
  // The status still says running: the process had no chance to clean up, so the lifeline did it.
  const status = join(runDir, 'status.json');
  assert.ok(existsSync(status));
  assert.equal(runStatusSchema.parse(JSON.parse(readFileSync(status, 'utf8'))).state, 'running');
});

test('closing a sandbox removes its container before close returns', async () => {
  const sb = await openHere();
  assert.equal((await docker.getContainer(sb.id).inspect()).HostConfig.AutoRemove, true);
  await sb.close();
  assert.equal(await exists(sb.id), false);
});

test('closing a sandbox whose container was already removed, or is being removed, does not throw', async () => {
  const removed = await openHere();
  await docker.getContainer(removed.id).remove({ force: true });
  await removed.close();
  // A container stopped from outside is removed by the engine itself; close meets that removal.
  const stopped = await openHere();
  await docker.getContainer(stopped.id).kill();
  await stopped.close();
  assert.equal(await exists(stopped.id), false, 'close returns once the container is gone');
});

test('the first process ends at once on docker stop and reaps orphaned processes', async () => {
  const sb = await openHere();
  // Twenty orphans that exit while the first process waits on its stdin; none may stay a zombie.
  const r = await sb.exec('for i in $(seq 20); do ( sleep 0.2 & ); done; sleep 1; cat /proc/[0-9]*/stat 2>/dev/null | awk \'$3 == "Z"\' | wc -l');
  assert.equal(r.stdout.trim(), '0', `zombies left: ${r.stdout}${r.stderr}`);
  const started = performance.now();
  // With no TERM handler the first process would ignore the signal and docker would wait 10 s.
  await docker.getContainer(sb.id).stop({ t: 10 });
  assert.ok(performance.now() - started < 5_000, `docker stop took ${(performance.now() - started).toFixed(0)} ms`);
  await sb.close();
  assert.equal(await exists(sb.id), false);
});
