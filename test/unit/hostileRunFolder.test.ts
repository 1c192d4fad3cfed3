/**
 * The run folder under faults (issue 21, items 4 and 5), with the pure parts and scripted doubles:
 * the folder lock taken by one of many at once and broken only when its owner is gone; torn last
 * lines repaired before an append; infrastructure failures told from outcomes, kept out of the
 * rate, listed beside it and run again on resume. The real-process versions of these are in
 * test/integration/hostileInfrastructure.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runReportSchema, runStatusSchema, trajectoryEndSchema } from '../../server/src/protocol/runs.js';
import { planEpisodes, runRollout, selectEpisodes, infrastructureFailure } from '../../server/src/rollout/index.js';
import { EventLog, parseJsonLines, RunLock, runLayout } from '../../server/src/runs/index.js';
import { runEventSchema } from '../../server/src/protocol/runs.js';
import { SandboxError } from '../../server/src/sandbox/index.js';
import { repairTornTail } from '../../server/src/util/appendLines.js';
import { infrastructureLines, totalsLine } from '../../server/src/cli/rolloutSummary.js';
import { EpisodeConflict, ServiceEpisode } from '../../server/src/cluster/index.js';
import { plannedTasks, testDeps } from './rolloutDoubles.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'gp-hostile-run-'));
}

/** A pid that belonged to a process which has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function errno(code: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { code, ...extra });
}

test('of ten launches taking one run folder at the same moment, exactly one gets it; the others are told whose it is', async () => {
  const lock = join(tempDir(), 'run.lock');
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => RunLock.acquire(lock, `gp rollout #${i}`)));
  const won = results.filter((r) => r.ok);
  assert.equal(won.length, 1);
  for (const r of results) if (!r.ok) assert.match(r.message, new RegExp(`in use by pid ${process.pid} \\(\`gp rollout #\\d\``));
  const owner = won[0];
  assert.ok(owner?.ok);
  await owner.lock.release();
  assert.equal(existsSync(lock), false);
  const again = await RunLock.acquire(lock, 'gp eval');
  assert.ok(again.ok, 'a released lock can be taken again');
  await again.lock.release();
});

test('a lock is broken only when its owner is gone from this host: a dead pid or a reused one, never another host or an unreadable file', async () => {
  const dir = tempDir();
  const record = (extra: Record<string, unknown>) =>
    JSON.stringify({ pid: process.pid, host: hostname(), command: 'gp rollout', locked_at: '2026-01-01T00:00:00Z', nonce: 'n0', ...extra });

  const dead = join(dir, 'dead.lock');
  writeFileSync(dead, record({ pid: deadPid() }));
  const took = await RunLock.acquire(dead, 'gp rollout');
  assert.ok(took.ok, "a dead owner's lock is taken over");
  assert.notEqual(took.broke, undefined);
  await took.lock.release();

  const reused = join(dir, 'reused.lock');
  // This process is alive, but it started at another time than the owner recorded: its pid was reused.
  writeFileSync(reused, record({ process_start: '1' }));
  const reusedTaken = await RunLock.acquire(reused, 'gp rollout');
  assert.ok(reusedTaken.ok, 'a pid that now belongs to a later process is not the owner');
  await reusedTaken.lock.release();

  const elsewhere = join(dir, 'elsewhere.lock');
  writeFileSync(elsewhere, record({ pid: deadPid(), host: 'another-host.example' }));
  const remote = await RunLock.acquire(elsewhere, 'gp rollout');
  assert.equal(remote.ok, false, 'a lock held on another host cannot be judged from here');
  assert.ok(!remote.ok && /pid \d+ on host another-host\.example/.test(remote.message) && remote.message.includes(`remove ${elsewhere}`));

  const garbage = join(dir, 'garbage.lock');
  writeFileSync(garbage, 'not a lock');
  const unreadable = await RunLock.acquire(garbage, 'gp rollout');
  assert.ok(!unreadable.ok && /cannot be read as a lock/.test(unreadable.message));
  assert.equal(readFileSync(garbage, 'utf8'), 'not a lock', 'an unreadable lock is left as it is');
});

test("a lock is released only by its owner: a newer owner's lock stays", async () => {
  const lock = join(tempDir(), 'run.lock');
  const first = await RunLock.acquire(lock, 'gp rollout');
  assert.ok(first.ok);
  // Someone removed the lock by hand and a new owner took it; the old owner's release must not remove theirs.
  writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), command: 'gp eval', locked_at: '2026-01-01T00:00:00Z', nonce: 'someone-else' }));
  await first.lock.release();
  assert.equal(existsSync(lock), true);
});

test('a torn last line is dropped before an append, so the next record is not glued onto it; a text log keeps its words', async () => {
  const dir = tempDir();
  const events = join(dir, 'events.jsonl');
  writeFileSync(
    events,
    '{"ts":"2026-01-01T00:00:00Z","kind":"run-start","command":"gp rollout","total":1,"resumed":0}\n{"ts":"2026-01-01T00:00:01Z","kind":"episo',
  );
  const log = new EventLog(events);
  await log.append({ kind: 'warning', message: 'after the tear' });
  const parsed = parseJsonLines(readFileSync(events, 'utf8'), runEventSchema);
  assert.deepEqual(parsed.problems, []);
  assert.equal(parsed.torn, false);
  assert.deepEqual(
    parsed.records.map((r) => r.kind),
    ['run-start', 'warning'],
  );

  const text = join(dir, 'run.log');
  writeFileSync(text, 'line one\nhalf a li');
  assert.equal(await repairTornTail(text, 'terminate'), 'half a li'.length);
  assert.equal(readFileSync(text, 'utf8'), 'line one\nhalf a li\n');
  assert.equal(await repairTornTail(text, 'terminate'), 0, 'a whole file is left as it is');
  const noNewline = join(dir, 'one.jsonl');
  writeFileSync(noNewline, '{"a":');
  assert.equal(await repairTornTail(noNewline, 'drop'), 5);
  assert.equal(readFileSync(noNewline, 'utf8'), '');
});

test('infrastructure failures are told from task outcomes', () => {
  const cases: [unknown, string | undefined][] = [
    [new SandboxError('Docker daemon not reachable at /var/run/docker.sock (connect ENOENT)', 'daemon-unreachable'), 'daemon-lost'],
    [new SandboxError('Container gp-x stopped while running `pytest` and was removed.', 'container-gone'), 'sandbox-lost'],
    [
      new SandboxError(
        'Container gp-x stopped while running `pytest` (state exited, exit code 137, killed for going over its memory limit).',
        'container-gone',
      ),
      'out-of-memory',
    ],
    [new SandboxError('Cannot read /testbed/a.py in sandbox gp-x: connect ENOENT /var/run/docker.sock', 'io'), 'daemon-lost'],
    [errno('ECONNRESET', 'read ECONNRESET', { address: '/var/run/docker.sock' }), 'daemon-lost'],
    [errno('ENOSPC', "ENOSPC: no space left on device, write '/runs/x/events.jsonl'", { path: '/runs/x/events.jsonl' }), 'disk-full'],
    [new Error('writing the trajectory failed', { cause: errno('EDQUOT', 'EDQUOT: disk quota exceeded') }), 'disk-full'],
    [errno('ENOMEM', 'ENOMEM: not enough memory'), 'out-of-memory'],
    [errno('EROFS', 'EROFS: read-only file system'), 'io'],
    // The task's own failures stay outcomes.
    [new SandboxError('Image graph-planner/x is not on this Docker engine.', 'image-missing'), undefined],
    [new SandboxError('The base commit abc is not in the repository.', 'base-missing'), undefined],
    [new Error('agent rule returned neither an action nor a protocol error'), undefined],
    [errno('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8000', { address: '127.0.0.1' }), undefined],
    [errno('ENOENT', "ENOENT: no such file or directory, open 'tests/test_x.py'"), undefined],
  ];
  for (const [error, code] of cases) assert.equal(infrastructureFailure(error)?.code, code, String((error as Error).message));
});

test('a run whose daemon is lost: those episodes are not counted, listed beside the rate, the run fails, and a resume runs exactly them', async () => {
  const dir = tempDir();
  const lost = new Set(['b', 'd']);
  let daemonBack = false;
  const doubles = testDeps((id) =>
    lost.has(id) && !daemonBack
      ? { openThrows: new SandboxError('Docker daemon not reachable at /var/run/docker.sock (connect ENOENT)', 'daemon-unreachable') }
      : { steps: 1, resolved: id !== 'c' },
  );
  const episodes = planEpisodes(plannedTasks(['a', 'b', 'c', 'd']), 1);
  const base = { runDir: dir, runName: 'r', command: 'gp eval tasks.jsonl', agent: 'scripted', dataset: 'tasks.jsonl', parallel: 2, deps: doubles.deps };
  const first = await runRollout(episodes, { ...base, signal: new AbortController().signal });
  assert.equal(first.state, 'failed');
  assert.match(first.reason ?? '', /2 episode\(s\) reached no outcome because the infrastructure failed/);
  assert.deepEqual(first.infrastructure.map((f) => [f.episode_id, f.code]).sort(), [
    ['b', 'daemon-lost'],
    ['d', 'daemon-lost'],
  ]);
  const layout = runLayout(dir);
  const report = runReportSchema.parse(JSON.parse(readFileSync(layout.report, 'utf8')));
  assert.equal(report.total, 2);
  assert.equal(report.resolved, 1);
  assert.equal(report.resolved_rate, 0.5, 'the rate is over the episodes that reached an outcome, not 1/4');
  assert.equal(report.not_finished, 2);
  assert.equal(report.infrastructure_failures?.length, 2);
  assert.match(totalsLine(report), /1\/2 resolved \(50\.0%\).*; 2 more reached no outcome \(infrastructure failures, not counted\)/);
  assert.match(infrastructureLines(report, 'gp eval tasks.jsonl --resume').join('\n'), /b: daemon-lost: Docker daemon not reachable/);
  const status = runStatusSchema.parse(JSON.parse(readFileSync(layout.status, 'utf8')));
  assert.equal(status.episodes.infrastructure, 2);
  const end = trajectoryEndSchema.parse(JSON.parse(readFileSync(layout.trajectory('b'), 'utf8').trim().split('\n').pop() ?? ''));
  assert.equal(end.infrastructure?.code, 'daemon-lost');

  const selection = await selectEpisodes(episodes, dir);
  assert.deepEqual(selection.toRun.map((s) => s.episodeId).sort(), ['b', 'd']);
  daemonBack = true;
  const second = await runRollout(episodes, { ...base, signal: new AbortController().signal });
  assert.equal(second.state, 'finished');
  assert.deepEqual(doubles.occupancy.openedIds.filter((id) => id === 'a' || id === 'c').length, 2, 'finished episodes are not run again');
  assert.equal(second.report.total, 4);
  assert.equal(second.report.resolved, 3);
  assert.equal(second.report.infrastructure_failures, undefined);
});

test('a training episode the infrastructure failed gives no return: closing it is an error the agent loop masks', async () => {
  const dir = tempDir();
  const doubles = testDeps(() => ({
    steps: 3,
    envThrowsAt: 1,
    envThrows: new SandboxError('Container gp-x stopped while running `pytest` and was removed.', 'container-gone'),
  }));
  const [spec] = planEpisodes(plannedTasks(['t']), 1);
  assert.ok(spec);
  let ended: unknown;
  const episode = new ServiceEpisode({ spec, deps: doubles.deps, runDir: dir, onEnded: (result) => (ended = result) });
  await episode.started(Date.now() + 10_000);
  await assert.rejects(episode.step(1, '<function=noop></function>'));
  await assert.rejects(
    episode.close('max_steps'),
    (error: unknown) => error instanceof EpisodeConflict && /infrastructure failed \(sandbox-lost/.test(error.message),
  );
  assert.notEqual(ended, undefined);
});
