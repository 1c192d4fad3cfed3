/**
 * `gp runs list|show|stop|rm` over real run folders in a temporary root: a finished run, a run
 * whose status says running but whose process is gone, a corrupt status.json, a folder that is not
 * a run, and a live run held by a real child process that ends cleanly on SIGINT, as a rollout does.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';

const root = mkdtempSync(join(tmpdir(), 'gp-runs-'));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

function status(state: string, pid: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    state,
    command: 'gp rollout tasks.jsonl',
    pid,
    host: hostname(),
    started_at: '2026-11-23T10:00:00.000Z',
    episodes: { total: 10, finished: 4, resolved: 3, errored: 0 },
    ...extra,
  });
}

function makeRun(name: string, statusText: string | undefined): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'resolved_config.yaml'), 'experiment:\n  name: x\n');
  if (statusText !== undefined) writeFileSync(join(dir, 'status.json'), statusText);
  return dir;
}

// A pid that no process has: the highest possible one is never handed out in a test run.
const deadPid = 4_194_303;
makeRun('done', status('finished', deadPid, { ended_at: '2026-11-23T10:05:00.000Z' }));
makeRun('crashed', status('running', deadPid));
makeRun('corrupt', '{"state": "running", ');
mkdirSync(join(root, 'not-a-run'));

async function gp(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, root);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('gp runs list shows each run with its state, a dead running run as interrupted, and why a status is unreadable', async () => {
  const r = await gp('runs', 'list', '--root', '.');
  assert.equal(r.code, 0);
  assert.match(r.out, /^done\s+finished\s+4\/10\s+3\s/m);
  assert.match(r.out, /^crashed\s+interrupted\s+4\/10/m);
  assert.match(r.out, /^corrupt\s+unreadable: status\.json is not JSON/m);
  assert.doesNotMatch(r.out, /not-a-run/);
  const json = JSON.parse((await gp('runs', 'list', '--root', '.', '--json')).out) as { name: string; state: string }[];
  assert.deepEqual(json.map((j) => `${j.name}:${j.state}`).sort(), ['corrupt:unknown', 'crashed:interrupted', 'done:finished']);
});

test('gp runs show names a crashed run as interrupted with the pid that is gone', async () => {
  const r = await gp('runs', 'show', 'crashed', '--root', '.');
  assert.equal(r.code, 0);
  assert.match(r.out, new RegExp(`state:\\s+interrupted \\(its status says running, but process ${deadPid} is gone\\)`));
  const missing = await gp('runs', 'show', 'not-a-run', '--root', '.');
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no run not-a-run/);
});

test('gp runs stop interrupts a live run as Ctrl-C would and waits for its state; gp runs rm refuses it until then', async () => {
  const dir = makeRun('live', undefined);
  // A test peer standing in for a rollout process: it writes a running status with its own pid,
  // and on SIGINT records `interrupted` and exits, as the real run does after closing its sandboxes.
  const peer = `
    const fs = require('fs');
    const file = ${JSON.stringify(join(dir, 'status.json'))};
    const base = ${status('running', 0)};
    fs.writeFileSync(file, JSON.stringify({ ...base, pid: process.pid }));
    process.on('SIGINT', () => { fs.writeFileSync(file, JSON.stringify({ ...base, pid: process.pid, state: 'interrupted' })); process.exit(130); });
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', peer], { stdio: 'ignore' });
  children.push(child);
  const deadline = Date.now() + 10_000;
  while (!existsSync(join(dir, 'status.json')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const refused = await gp('runs', 'rm', 'live', '--root', '.');
  assert.equal(refused.code, 1);
  assert.match(refused.err, /still running .*stop it first/);
  assert.ok(existsSync(dir));
  const stopped = await gp('runs', 'stop', 'live', '--root', '.', '--wait', '10');
  assert.equal(stopped.code, 0, stopped.err);
  assert.equal(stopped.out, 'live: interrupted.');
  const again = await gp('runs', 'stop', 'live', '--root', '.');
  assert.equal(again.code, 1);
  assert.match(again.err, /is not running \(interrupted\)/);
  const removed = await gp('runs', 'rm', 'live', '--root', '.');
  assert.equal(removed.code, 0, removed.err);
  assert.equal(existsSync(dir), false);
});

test('gp runs commands answer usage errors with their usage line', async () => {
  const r = await gp('runs', 'stop', '--root', '.');
  assert.equal(r.code, 2);
  assert.match(r.err, /gp runs stop: name one run\.\nUsage: gp runs stop RUN/);
});

test('gp runs show puts a model run’s figures beside its resolved count: its own steps, parse failures, fallback and what it resolved alone', async () => {
  const model = {
    model_steps: 5,
    parse_failures: { 'extra-text': 2 },
    fallback_steps: 2,
    calls: 7,
    prompt_tokens: 7000,
    completion_tokens: 300,
    generation_ms: 14_000,
    fallback_enabled: true,
    steps: 9,
    parse_failure_rate: 2 / 7,
    model_step_share: 5 / 9,
    resolved_by_model_alone: 1,
    resolved_with_fallback: 1,
  };
  const dir = makeRun('modelrun', status('finished', deadPid, { ended_at: '2026-11-23T10:05:00.000Z', model }));
  writeFileSync(
    join(dir, 'report.json'),
    JSON.stringify({
      run: 'modelrun',
      agent: 'model',
      dataset: 'd.jsonl',
      created_at: '2026-11-23T10:05:00.000Z',
      total: 2,
      resolved: 2,
      resolved_rate: 1,
      mean_steps: 4.5,
      mean_duration_ms: 1000,
      termination_reasons: { submitted: 2 },
      tasks: [],
      model,
    }),
  );
  const r = await gp('runs', 'show', 'modelrun', '--root', '.');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /report: +2 of 2 resolved/);
  assert.match(
    r.out,
    /model: 5\/9 steps from its own replies \(55\.6%\), 2\/7 replies failed to parse \(extra-text 2\), fallback took 2 steps; resolved by the model alone: 1; with the fallback's help: 1/,
  );
});

test('gp runs show lists the episodes by task, each attempt under its one name and in order, whatever order they ended in', async () => {
  const dir = makeRun('attempts', status('finished', deadPid, { ended_at: '2026-11-23T10:05:00.000Z' }));
  const ts = '2026-11-23T10:00:00.000Z';
  const ended = (id: string, task: string, resolved: boolean, reason = 'submitted') => [
    { ts, kind: 'episode-start', episode_id: id, task_id: task },
    { ts, kind: 'episode-end', episode_id: id, task_id: task, resolved, steps: 3, total_reward: resolved ? 1 : 0, termination_reason: reason, duration_ms: 10 },
  ];
  const events = [
    ...ended('calc#10', 'calc', true),
    ...ended('calc#2', 'calc', false, 'max_steps'),
    ...ended('alone', 'alone', true),
    ...ended('calc#1', 'calc', true),
    { ts, kind: 'episode-start', episode_id: 'bad\u001b[2Jid', task_id: 'bad\u001b[2Jid' },
  ];
  writeFileSync(join(dir, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const r = await gp('runs', 'show', 'attempts', '--root', '.');
  assert.equal(r.code, 0);
  const table = r.out
    .slice(r.out.indexOf('episodes by task:'))
    .split('\n')
    .slice(1, 8)
    .map((l) => l.trim().replace(/\s+/g, ' '));
  assert.deepEqual(table, [
    'EPISODE RESULT STEPS REWARD',
    'alone resolved 3 1.00',
    'bad\\x1b[2Jid running - -',
    'calc 2/3 resolved',
    'calc#1 resolved 3 1.00',
    'calc#2 unresolved (max_steps) 3 0.00',
    'calc#10 resolved 3 1.00',
  ]);
  assert.equal(r.out.includes('\u001b'), false, "an id's control characters are shown, never sent");
  const json = JSON.parse((await gp('runs', 'show', 'attempts', '--root', '.', '--json')).out) as { episodes: { episodeId: string }[] };
  assert.equal(json.episodes.length, 5);
});
