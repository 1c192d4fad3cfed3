/**
 * The Runs view's watcher on real folders: discovery, incremental reading of a growing
 * events.jsonl, state derivation (a running status whose process is dead reads interrupted), and
 * bad input (a corrupt status.json, a cut-off events.jsonl, a folder that is not a run, a run folder
 * deleted while watched, a root that appears later).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RunStatus } from '../../server/src/protocol/runs.js';
import { runLayout, writeLaunchRecord, writeStatus } from '../../server/src/runs/index.js';
import { RunsWatcher, type RunsChange } from '../../server/src/runs/runsWatcher.js';

const root = () => mkdtempSync(join(tmpdir(), 'gp-watch-'));

function status(extra: Partial<RunStatus> = {}): RunStatus {
  return {
    state: 'running',
    command: 'gp rollout tasks.jsonl',
    pid: process.pid,
    host: hostname(),
    started_at: '2026-11-23T10:00:00.000Z',
    episodes: { total: 3, finished: 0, resolved: 0, errored: 0 },
    ...extra,
  };
}

const event = (e: Record<string, unknown>) => `${JSON.stringify({ ts: '2026-11-23T10:00:01.000Z', ...e })}\n`;
const start = (id: string) => event({ kind: 'episode-start', episode_id: id, task_id: id });
const end = (id: string, resolved: boolean) =>
  event({
    kind: 'episode-end',
    episode_id: id,
    task_id: id,
    resolved,
    steps: 4,
    total_reward: resolved ? 1 : -0.2,
    termination_reason: 'submitted',
    duration_ms: 10,
  });

/** A watcher whose changes are collected, with a way to wait for the next one that passes a test. */
function watcher(options: { livenessMs?: number } = {}) {
  const changes: RunsChange[] = [];
  const waiters: { test: (c: RunsChange) => boolean; resolve: (c: RunsChange) => void }[] = [];
  const w = new RunsWatcher({
    onChange: (c) => {
      changes.push(c);
      for (const waiter of [...waiters]) {
        if (waiter.test(c)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(c);
        }
      }
    },
    debounceMs: 10,
    ...options,
  });
  const next = (test: (c: RunsChange) => boolean, what: string, ms = 5000) =>
    new Promise<RunsChange>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no change in ${ms} ms: ${what}`)), ms);
      waiters.push({ test, resolve: (c) => (clearTimeout(timer), resolve(c)) });
    });
  return { w, changes, next };
}

test('lists runs newest first, says what is wrong with bad ones, and skips folders that are not runs', async () => {
  const r = root();
  const mk = async (name: string, s?: RunStatus) => {
    mkdirSync(join(r, name));
    if (s) await writeStatus(runLayout(join(r, name)).status, s);
    return runLayout(join(r, name));
  };
  const done = await mk(
    'done',
    status({ state: 'finished', started_at: '2026-11-23T09:00:00.000Z', episodes: { total: 2, finished: 2, resolved: 1, errored: 0 } }),
  );
  writeFileSync(done.events, start('a') + end('a', true) + start('b') + end('b', false));
  await writeLaunchRecord(done.launch, { command: 'rollout', args: ['tasks.jsonl'], cwd: r, agent: 'rule', written_at: '2026-11-23T09:00:00.000Z' });
  const corrupt = await mk('corrupt');
  writeFileSync(corrupt.status, '{"state": "runn');
  const cut = await mk('cut', status({ state: 'interrupted', started_at: '2026-11-23T08:00:00.000Z' }));
  writeFileSync(cut.events, start('a') + start('b').slice(0, 25));
  await mk('not-a-run');
  writeFileSync(join(r, 'not-a-run', 'notes.txt'), 'hello');
  const { w } = watcher();
  await w.setRoots([r, join(r, 'missing-root')]);
  const listed = await w.list();
  assert.deepEqual(listed.roots, [
    { path: r, exists: true },
    { path: join(r, 'missing-root'), exists: false },
  ]);
  assert.deepEqual(
    listed.runs.map((x) => x.name),
    ['done', 'cut', 'corrupt'],
  );
  const [d, c, bad] = listed.runs;
  assert.equal(d?.state, 'finished');
  assert.equal(d?.kind, 'rollout');
  assert.equal(d?.agent, 'rule');
  assert.equal(d?.relaunchable, true);
  assert.deepEqual(d?.episodes, { total: 2, finished: 2, resolved: 1, errored: 0 });
  assert.equal(d?.problem, null);
  assert.match(c?.problem ?? '', /events\.jsonl ends in 25 bytes without a newline/);
  assert.equal(bad?.state, 'unknown');
  assert.match(bad?.problem ?? '', /status\.json is not JSON/);
  const eps = await w.episodes(d?.dir ?? '');
  assert.deepEqual(
    eps.episodes.map((e) => [e.episodeId, e.state, e.totalReward]),
    [
      ['a', 'resolved', 1],
      ['b', 'unresolved', -0.2],
    ],
  );
  assert.equal(eps.episodes[0]?.trajectory, done.trajectory('a'));
  w.dispose();
});

test('while watching, an appended event reaches the listener with only that episode, and appends are read incrementally', async () => {
  const r = root();
  const layout = runLayout(join(r, 'live'));
  mkdirSync(layout.dir);
  await writeStatus(layout.status, status());
  writeFileSync(layout.events, start('a'));
  const { w, next } = watcher();
  await w.setRoots([r]);
  await w.list();
  const before = await w.episodes(layout.dir);
  assert.deepEqual(
    before.episodes.map((e) => e.state),
    ['running'],
  );
  await w.watch(true);
  const got = next((c) => c.episodes.some((e) => e.dir === layout.dir), 'the episode end');
  appendFileSync(layout.events, end('a', true));
  const change = await got;
  assert.deepEqual(
    change.episodes[0]?.episodes.map((e) => [e.episodeId, e.state]),
    [['a', 'resolved']],
  );
  // Half a line is held back until its newline arrives.
  const line = start('b');
  appendFileSync(layout.events, line.slice(0, 30));
  await new Promise((res) => setTimeout(res, 100));
  const whole = next((c) => c.episodes.some((e) => e.episodes.some((ep) => ep.episodeId === 'b')), 'episode b');
  appendFileSync(layout.events, line.slice(30));
  assert.deepEqual(
    (await whole).episodes[0]?.episodes.map((e) => [e.episodeId, e.state]),
    [['b', 'running']],
  );
  // A status change comes as a changed summary.
  const finished = next((c) => c.changed.some((s) => s.state === 'finished'), 'the finished state');
  await writeStatus(layout.status, status({ state: 'finished', episodes: { total: 3, finished: 3, resolved: 1, errored: 0 } }));
  assert.equal((await finished).changed[0]?.episodes?.resolved, 1);
  await w.watch(false);
  w.dispose();
});

test('episodes a sandbox host ran keep its Ray node to the end, and the run counts its episodes per node', async () => {
  const r = root();
  const layout = runLayout(join(r, 'cluster'));
  mkdirSync(layout.dir);
  await writeStatus(layout.status, status({ state: 'finished', episodes: { total: 4, finished: 3, resolved: 2, errored: 0 } }));
  const onHost = (id: string, node: string) => event({ kind: 'episode-start', episode_id: id, task_id: id, sandbox_host: { id: `host-${node}`, node } });
  // Episode c started on worker-2 and, after a resume, again on worker-1: its latest start counts.
  writeFileSync(
    layout.events,
    onHost('a', 'worker-1') +
      end('a', true) +
      onHost('b', 'worker-2') +
      end('b', false) +
      onHost('c', 'worker-2') +
      onHost('c', 'worker-1') +
      end('c', true) +
      start('d'),
  );
  const { w } = watcher();
  await w.setRoots([r]);
  const [run] = (await w.list()).runs;
  assert.deepEqual(run?.nodes, [
    { node: 'worker-1', episodes: 2 },
    { node: 'worker-2', episodes: 1 },
  ]);
  const eps = await w.episodes(layout.dir);
  assert.deepEqual(
    eps.episodes.map((e) => [e.episodeId, e.state, e.sandboxHost?.node ?? null]),
    [
      ['a', 'resolved', 'worker-1'],
      ['b', 'unresolved', 'worker-2'],
      ['c', 'resolved', 'worker-1'],
      ['d', 'running', null],
    ],
  );
  assert.deepEqual(eps.episodes[0]?.sandboxHost, { id: 'host-worker-1', node: 'worker-1' });
  w.dispose();
});

test('a new run folder appears, a deleted one is reported removed, and a root created later is picked up', async () => {
  const parent = root();
  const r = join(parent, 'outputs');
  const { w, next } = watcher();
  await w.setRoots([r]);
  await w.watch(true);
  const appeared = next((c) => c.changed.some((s) => s.name === 'first'), 'the first run');
  mkdirSync(join(r, 'first'), { recursive: true });
  await writeStatus(runLayout(join(r, 'first')).status, status());
  const run = (await appeared).changed.find((s) => s.name === 'first');
  assert.equal(run?.state, 'running');
  const removed = next((c) => c.removed.includes(join(r, 'first')), 'the removal');
  rmSync(join(r, 'first'), { recursive: true });
  await removed;
  await w.watch(false);
  w.dispose();
});

test('a running run whose process dies without a word turns interrupted, and its running episodes with it', async () => {
  const r = root();
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const layout = runLayout(join(r, 'doomed'));
  mkdirSync(layout.dir);
  await writeStatus(layout.status, status({ pid: child.pid ?? -1 }));
  writeFileSync(layout.events, start('a'));
  const { w, next } = watcher({ livenessMs: 50 });
  await w.setRoots([r]);
  assert.equal((await w.list()).runs[0]?.state, 'running');
  await w.episodes(layout.dir);
  await w.watch(true);
  const interrupted = next((c) => c.changed.some((s) => s.state === 'interrupted'), 'the interrupted state');
  child.kill('SIGKILL');
  const change = await interrupted;
  assert.equal(change.changed[0]?.stale, true);
  assert.match(change.changed[0]?.problem ?? '', /is gone without ending the run/);
  assert.deepEqual(
    change.episodes[0]?.episodes.map((e) => e.state),
    ['interrupted'],
  );
  await w.watch(false);
  w.dispose();
});

test('nothing is read while nobody watches', async () => {
  const r = root();
  const layout = runLayout(join(r, 'quiet'));
  mkdirSync(layout.dir);
  await writeStatus(layout.status, status({ state: 'finished' }));
  const { w, changes } = watcher();
  await w.setRoots([r]);
  await w.list();
  appendFileSync(layout.events, start('a'));
  await writeStatus(layout.status, status({ state: 'failed' }));
  await new Promise((res) => setTimeout(res, 150));
  assert.equal(changes.length, 0, 'no change is reported without a watch');
  w.dispose();
});

test('500 runs in one root, some of them bad: every good one is listed and every bad one says what is wrong', async () => {
  const r = root();
  for (let i = 0; i < 500; i++) {
    const layout = runLayout(join(r, `run-${String(i).padStart(3, '0')}`));
    mkdirSync(layout.dir);
    if (i % 50 === 7) writeFileSync(layout.status, '{ torn');
    else await writeStatus(layout.status, status({ state: 'finished', started_at: `2026-11-23T10:${String(i % 60).padStart(2, '0')}:00.000Z` }));
    writeFileSync(layout.events, i % 50 === 9 ? start('a') + '{"kind": "episode-end", "ts"' : start('a') + end('a', i % 2 === 0));
  }
  const { w } = watcher();
  await w.setRoots([r]);
  const listed = await w.list();
  assert.equal(listed.runs.length, 500);
  const bad = listed.runs.filter((x) => x.problem !== null).map((x) => [x.name, x.problem]);
  assert.equal(bad.length, 20);
  for (const [name, problem] of bad) {
    const i = Number(String(name).slice(4));
    assert.match(String(problem), i % 50 === 7 ? /status\.json is not JSON/ : /events\.jsonl ends in \d+ bytes without a newline/, String(name));
  }
  w.dispose();
});
