/**
 * `gp runs stop` on a real `gp rollout` process (local backend, the sample tasks): the run gets the
 * same clean interrupt as Ctrl-C in its terminal, records `interrupted` with what ran and what did
 * not, and `gp runs list` then shows it so.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';

const repo = resolve(__dirname, '..', '..');

test('gp runs stop interrupts a running gp rollout, which records interrupted and exits 130', async () => {
  const root = mkdtempSync(join(tmpdir(), 'gp-runs-stop-'));
  const runDir = join(root, 'r1');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'server/src/cli/main.ts', 'rollout', 'datasets/samples.jsonl', '--backend', 'local', '--parallel', '1', '--run-dir', runDir],
    { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  try {
    const events = join(runDir, 'events.jsonl');
    const deadline = Date.now() + 60_000;
    while (!(existsSync(events) && readFileSync(events, 'utf8').includes('"kind":"episode-start"'))) {
      assert.ok(Date.now() < deadline, `no episode started within 60 s: ${stderr}`);
      assert.equal(child.exitCode, null, `gp rollout ended early: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['runs', 'stop', runDir, '--wait', '60'], { out: (l) => out.push(l), err: (l) => err.push(l) }, root);
    assert.equal(code, 0, err.join('\n'));
    assert.deepEqual(out, ['r1: interrupted.']);
    assert.equal(await exited, 130, stderr);
    const status = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as { state: string; episodes: { total: number; finished: number } };
    assert.equal(status.state, 'interrupted');
    assert.ok(status.episodes.finished < status.episodes.total, 'the interrupt came before every episode finished');
    const listed: string[] = [];
    await runCli(['runs', 'list', '--root', root], { out: (l) => listed.push(l), err: () => undefined }, root);
    assert.match(listed.join('\n'), /^r1\s+interrupted\s/m);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
  }
});
