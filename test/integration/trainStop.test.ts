/**
 * Stopping a training run: SIGTERM to `gp train` while episodes are open, the watchdog
 * stopping a trainer that goes quiet, and `gp train` killed outright (SIGKILL) taking its trainer
 * with it through the lifeline (python/graph_planner_verl/lifeline.py). The trainer here is a TEST PEER, not Verl: a small Python
 * program (stdlib only) passed as --python that reads the service file as the real agent loop does,
 * opens an episode over HTTP with the token, says so, and then hangs, as Verl does on a machine it
 * cannot use (docs/trainer-bridge.md#installing). The service, sandboxes and run folder are real.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { execFileSync } from 'node:child_process';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-train-stop-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const peerTrainer = join(dir, 'hanging-trainer');
writeFileSync(
  peerTrainer,
  `#!/usr/bin/env python3
# TEST PEER standing in for Verl: opens one episode through the environment service, then hangs.
import json, os, sys, time, urllib.request
service = json.load(open(os.environ["GP_ENV_SERVICE_FILE"]))
quiet = os.environ.get("PEER_QUIET") == "1"
request = urllib.request.Request(service["url"] + "/episodes", data=json.dumps({"client_key": "peer-1", "task_id": "sample-calc-add"}).encode(),
    headers={"Authorization": "Bearer " + service["token"], "Content-Type": "application/json"}, method="POST")
episode = json.load(urllib.request.urlopen(request, timeout=120))
if not quiet:
    print("peer trainer: episode open " + episode["episode_id"] + " in process " + str(os.getpid()), flush=True)
time.sleep(3600)
`,
);
chmodSync(peerTrainer, 0o755);

// TEST PEER for the trainer environment's Python as gp calls it: its first three arguments are
// gp's `-m graph_planner_verl.lifeline --`, the rest Verl's, which the hanging peer stands in for.
const lifelinePython = join(dir, 'lifeline-python');
writeFileSync(lifelinePython, `#!/bin/sh\nexec python3 "$1" "$2" "$3" ${JSON.stringify(peerTrainer)}\n`);
chmodSync(lifelinePython, 0o755);

interface Finished {
  code: number | null;
  out: string;
}

function startTrain(runDir: string, extra: string[], env: NodeJS.ProcessEnv = {}, python = peerTrainer) {
  const child = spawn(
    process.execPath,
    [
      'dist/cli.js',
      'train',
      'configs/experiments/planner_debug.yaml',
      '--smoke',
      '--tasks',
      'datasets/sample/tasks.jsonl',
      '--task',
      'sample-calc-add',
      '--run-dir',
      runDir,
      '--python',
      python,
      ...extra,
    ],
    {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const finished = new Promise<Finished>((done) => child.on('close', (code) => done({ code, out })));
  const saw = (pattern: RegExp, ms: number): Promise<void> =>
    new Promise((ok, fail) => {
      const started = Date.now();
      const timer = setInterval(() => {
        if (pattern.test(out)) {
          clearInterval(timer);
          ok();
        } else if (Date.now() - started > ms) {
          clearInterval(timer);
          fail(new Error(`did not see ${String(pattern)} in ${ms} ms:\n${out}`));
        }
      }, 200);
    });
  return { child, finished, saw, output: () => out };
}

/** Whether a process runs (a zombie waiting for its parent has ended). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function containersOf(runName: string): string {
  return execFileSync('docker', ['ps', '-a', '-q', '--filter', `label=graph-planner.run=${runName}`], { encoding: 'utf8' }).trim();
}

describe('stopping gp train', () => {
  test('SIGTERM with an episode open stops the trainer, ends the episode, closes its sandbox and records interrupted', async () => {
    const runDir = join(dir, 'sigterm');
    const run = startTrain(runDir, []);
    await run.saw(/peer trainer: episode open/, 120_000);
    assert.notEqual(containersOf('sigterm'), '', 'the open episode has its container');
    run.child.kill('SIGTERM');
    const { code, out } = await run.finished;
    assert.equal(code, 130, out);
    const status = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as { state: string; exit_reason: string; episodes: { finished: number } };
    assert.equal(status.state, 'interrupted');
    assert.equal(status.episodes.finished, 1, 'the open episode was ended and counted');
    const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8');
    assert.match(events, /"kind":"episode-end"[^\n]*"termination_reason":"interrupted"/);
    assert.match(events, /"kind":"run-end","state":"interrupted"/);
    assert.equal(containersOf('sigterm'), '', 'no container left behind');
  });

  test('the watchdog stops a trainer that shows nothing for --stall-timeout seconds', async () => {
    const runDir = join(dir, 'stalled');
    const started = Date.now();
    const run = startTrain(runDir, ['--stall-timeout', '4'], { PEER_QUIET: '1' });
    const { code, out } = await run.finished;
    assert.equal(code, 1, out);
    assert.match(out, /stalled: no log line, metric or episode for \d+ s; the trainer was stopped/);
    assert.ok(Date.now() - started < 90_000);
    const status = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as { state: string; exit_reason: string };
    assert.equal(status.state, 'failed');
    assert.match(status.exit_reason, /^stalled/);
    assert.equal(containersOf('stalled'), '');
  });

  test('SIGKILL to gp train ends its trainer too: the lifeline sees the pipe close', async () => {
    const runDir = join(dir, 'sigkill');
    const run = startTrain(runDir, [], {}, lifelinePython);
    await run.saw(/peer trainer: episode open \S+ in process \d+/, 120_000);
    const pid = Number(/peer trainer: episode open \S+ in process (\d+)/.exec(run.output())?.[1]);
    assert.ok(Number.isInteger(pid) && pid > 0);
    assert.ok(alive(pid), 'the trainer runs');
    run.child.kill('SIGKILL');
    await run.finished;
    const deadline = Date.now() + 30_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.equal(alive(pid), false, 'the trainer outlived gp train');
    // gp could not close the episode's sandbox; the next run's reaping, or this, removes it.
    execFileSync('sh', ['-c', `docker rm -f $(docker ps -aq --filter label=graph-planner.run=sigkill) 2>/dev/null || true`]);
  });
});
