/**
 * A training run's front door (the environment service with sandbox hosts, cluster/envService.ts)
 * losing one of its two hosts mid-episode, without Ray: two real `gp sandbox host` processes are
 * started as Ray's actors start them (the spec on standard input, which stays open as the
 * lifeline), register with a real registry, and one is killed with SIGKILL. Its episodes end at
 * once as infrastructure failures (`host-lost`: the client's next request is answered
 * `episode-failed`, so the agent loop masks the sample; the trajectory's end line and the
 * episode-end event say why); the other host's episodes run to their end and their records come
 * back into the run folder. Needs the built CLI (npm test builds it).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { withAbsolutePaths } from '../../server/src/datasets/index.js';
import { episodeDepsFromConfig, loadRolloutTasks } from '../../server/src/launch/index.js';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { hostSpecSchema } from '../../server/src/protocol/sandboxHosts.js';
import { readEvents, readTrajectory, runLayout } from '../../server/src/runs/index.js';
import { EnvService, HostPool } from '../../server/src/cluster/index.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-host-loss-'));
const hosts: ChildProcess[] = [];
after(() => {
  for (const h of hosts) h.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  url: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const answer = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
}

test('a host killed mid-episode: its episodes fail as host-lost at once, the other host’s run to their end', async () => {
  const runDir = join(dir, 'run');
  const loaded = await loadRolloutTasks({
    files: ['datasets/sample/tasks.jsonl'],
    taskIds: [],
    limit: undefined,
    cwd: root,
    command: 'test',
    allowedMountRoots: [],
  });
  assert.ok(loaded.ok);
  const planned = loaded.tasks;
  const pool = new HostPool({ healthIntervalMs: 500 });
  const registry = await pool.start();
  const spec = hostSpecSchema.parse({
    run_name: 'host-loss',
    registry,
    config_text: 'sandbox:\n  backend: local\n',
    tasks_text: planned.map((t) => JSON.stringify(withAbsolutePaths(t.task, t.baseDir))).join('\n') + '\n',
    scripted_policy: true,
    episode_deadline_ms: 600_000,
    cli: [process.execPath, join(root, 'dist', 'cli.js')],
  });
  for (const node of ['node-a', 'node-b']) {
    const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'sandbox', 'host', '--spec', '-', '--node', node, '--slots', '2'], {
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.stdin?.write(`${JSON.stringify(spec)}\n`);
    hosts.push(child);
  }
  assert.equal(await pool.waitForHosts(2, 60_000, new AbortController().signal), true, 'both hosts registered');
  const config = experimentConfigSchema.parse({ sandbox: { backend: 'local' } });
  const front = new EnvService({
    runDir,
    tasks: new Map(planned.map((t) => [t.task.task_id, t])),
    deps: episodeDepsFromConfig(config, 'host-loss', runDir),
    maxOpen: 4,
    episodeDeadlineMs: 600_000,
    hosts: pool,
    token: 'a'.repeat(43),
  });
  const { url, token } = await front.start();
  try {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await call(url, token, 'POST', '/episodes', { client_key: `k${i}`, task_id: 'sample-calc-add', group_id: 'g' });
      assert.equal(created.status, 200, JSON.stringify(created.json));
      ids.push(String(created.json['episode_id']));
    }
    // A fifth finds every slot taken: 429, as a full service answers.
    assert.equal((await call(url, token, 'POST', '/episodes', { client_key: 'k5', task_id: 'sample-version' })).status, 429);
    const starts = (await readEvents(runLayout(runDir).events)).records.flatMap((e) =>
      e.kind === 'episode-start' && e.sandbox_host !== undefined ? [[e.episode_id, e.sandbox_host.node] as const] : [],
    );
    const nodeOf = new Map(starts);
    assert.deepEqual([...nodeOf.values()].sort(), ['node-a', 'node-a', 'node-b', 'node-b'], 'least loaded: two episodes on each host');
    hosts[0]?.kill('SIGKILL');
    for (const id of ids) {
      const path = `/episodes/${encodeURIComponent(id)}`;
      if (nodeOf.get(id) === 'node-a') {
        const policy = await call(url, token, 'GET', `${path}/policy`);
        assert.equal(policy.status, 409, JSON.stringify(policy.json));
        assert.match(JSON.stringify(policy.json), /episode-failed.*host-lost/);
        const closed = await call(url, token, 'POST', `${path}/close`, {});
        assert.equal(closed.status, 409);
        const trajectory = await readTrajectory(runLayout(runDir).trajectory(id));
        assert.equal(trajectory?.end?.infrastructure?.code, 'host-lost');
        continue;
      }
      for (let turn = 1; ; turn++) {
        const reply = await call(url, token, 'GET', `${path}/policy`);
        assert.equal(reply.status, 200, JSON.stringify(reply.json));
        const step = await call(url, token, 'POST', `${path}/step`, { turn, reply: reply.json['reply'] });
        assert.equal(step.status, 200, JSON.stringify(step.json));
        if (step.json['done'] === true) break;
      }
      const closed = await call(url, token, 'POST', `${path}/close`, {});
      assert.equal(closed.status, 200, JSON.stringify(closed.json));
      const trajectory = await readTrajectory(runLayout(runDir).trajectory(id));
      assert.equal(trajectory?.start?.sandbox_host?.node, 'node-b');
      assert.equal(trajectory?.end?.infrastructure, undefined);
      assert.ok(trajectory?.end !== undefined && trajectory.steps.length > 0, 'the episode’s whole trajectory came back from its host');
    }
    const ends = (await readEvents(runLayout(runDir).events)).records.filter((e) => e.kind === 'episode-end');
    assert.equal(ends.length, 4);
    assert.equal(ends.filter((e) => e.kind === 'episode-end' && e.infrastructure?.code === 'host-lost').length, 2);
    assert.ok(readFileSync(runLayout(runDir).testRuns, 'utf8').trim().split('\n').length >= 2, 'the live host’s test runs came back');
    // The live host ends when asked, cleaning up after itself.
    await pool.shutdownHosts(30_000);
    await new Promise<void>((done) => (hosts[1]?.exitCode !== null ? done() : hosts[1]?.once('exit', () => done())));
    assert.equal(hosts[1]?.exitCode, 0);
  } finally {
    await front.close();
    await pool.close();
  }
  // The live host removed its scratch folder; the killed one's is swept by the next host that starts on this machine.
  const owners = new Map(
    readdirSync(tmpdir())
      .filter((n) => n.startsWith('gp-sandbox-host-'))
      .map((n) => [Number(readFileSync(join(tmpdir(), n, 'owner.pid'), 'utf8')), n] as const),
  );
  assert.equal(owners.has(hosts[1]?.pid ?? -1), false, 'the live host left its scratch folder');
  const killed = owners.get(hosts[0]?.pid ?? -1);
  if (killed !== undefined) rmSync(join(tmpdir(), killed), { recursive: true, force: true });
  assert.equal(existsSync(join(runDir, 'env_service.json')), false);
});
