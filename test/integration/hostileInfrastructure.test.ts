/**
 * Faults are not outcomes, and a run folder has one owner (issue 21, items 4 and 5), on the real
 * Docker Engine with real `gp rollout` processes over the seven sample tasks (the rule agent
 * resolves four of them):
 * - the daemon's connection is cut mid-run (a socket test peer in front of the real engine): the
 *   episodes it cut are infrastructure failures, not counted, the command exits 75, no container is
 *   left, and a resume runs exactly those episodes and ends with 4/7;
 * - `kill -9` mid-run: no container is left, the dead owner's lock is taken over, and the resume
 *   runs exactly the episodes that had not finished;
 * - two launches on one run folder at the same moment: exactly one runs;
 * - the run folder's disk fills up (a real tmpfs of a few hundred KiB): the run stops cleanly with
 *   no stack trace, `status.json` says failed and why, no JSON Lines file holds a torn line, and
 *   after space is freed a resume finishes the run.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import Docker from 'dockerode';
import { runEventSchema, runReportSchema, runStatusSchema, trajectoryLineSchema, type RunEvent } from '../../server/src/protocol/runs.js';
import { sandboxLabels } from '../../server/src/protocol/sandbox.js';
import { startDockerSocketProxy } from '../support/dockerSocketProxy.js';

const repo = resolve(__dirname, '..', '..');
const tasks = 'datasets/samples.jsonl';
const planned = 7;
const resolvedByRule = 4;
const dir = mkdtempSync(join(tmpdir(), 'gp-hostile-infra-'));
const docker = new Docker();
const children: ChildProcess[] = [];
const runNames: string[] = [];
const mounts: string[] = [];

after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const m of mounts) spawnSyncQuiet('umount', ['-l', m]);
  for (const name of runNames) {
    for (const c of await containersOf(name))
      await docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined);
  }
  rmSync(dir, { recursive: true, force: true });
});

function spawnSyncQuiet(cmd: string, args: string[]): void {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
  } catch {
    // Cleanup only.
  }
}

async function containersOf(name: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${sandboxLabels.run}=${name}`] } });
}

interface Gp {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
}

function gp(args: readonly string[], env: NodeJS.ProcessEnv = {}): Gp {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/cli/main.ts', ...args], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let text = '';
  child.stdout?.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => text, exited };
}

function rollout(runDir: string, extra: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Gp {
  runNames.push(runDir.split('/').pop() ?? runDir);
  return gp(['rollout', tasks, '--backend', 'docker', '--parallel', '1', '--run-dir', runDir, ...extra], env);
}

function events(runDir: string): RunEvent[] {
  const file = join(runDir, 'events.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [runEventSchema.parse(JSON.parse(l))];
      } catch {
        return [];
      }
    });
}

/** The events written by the process that started the `n`-th time (0-based). */
function eventsOfProcess(runDir: string, n: number): RunEvent[] {
  const all = events(runDir);
  const starts = all.flatMap((e, i) => (e.kind === 'run-start' ? [i] : []));
  return all.slice(starts[n] ?? all.length, starts[n + 1] ?? all.length);
}

async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: () => string): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) assert.fail(what());
    await new Promise((r) => setTimeout(r, 100));
  }
}

function report(runDir: string) {
  return runReportSchema.parse(JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')));
}

function status(runDir: string) {
  return runStatusSchema.parse(JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')));
}

/** Every JSON Lines file under `root` ends with a newline and every line is a whole JSON value. */
function assertNoTornLines(root: string): void {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.jsonl')) files.push(p);
    }
  };
  walk(root);
  assert.ok(files.length > 0, `no JSON Lines files under ${root}`);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (text === '') continue;
    assert.ok(text.endsWith('\n'), `${file} ends with a torn line: …${JSON.stringify(text.slice(-80))}`);
    text
      .split('\n')
      .filter((l) => l !== '')
      .forEach((line, i) => assert.doesNotThrow(() => JSON.parse(line), `${file}:${i + 1} is not a whole record: ${line.slice(0, 80)}`));
  }
  for (const t of files.filter((f) => f.includes('/trajectories/'))) {
    for (const line of readFileSync(t, 'utf8')
      .split('\n')
      .filter((l) => l !== ''))
      trajectoryLineSchema.parse(JSON.parse(line));
  }
}

function episodesStarted(list: readonly RunEvent[]): string[] {
  return list.flatMap((e) => (e.kind === 'episode-start' ? [e.episode_id] : []));
}

function assertNoStackTrace(output: string): void {
  assert.doesNotMatch(output, /internal error|\n\s+at .+\(.+:\d+:\d+\)/, `a stack trace was printed:\n${output}`);
}

test('losing the Docker daemon mid-run: cut episodes are infrastructure failures, exit 75, no container left, and a resume runs exactly those', async () => {
  const proxy = await startDockerSocketProxy(join(dir, 'docker.sock'));
  const runDir = join(dir, 'daemon-loss');
  const first = rollout(runDir, [], { DOCKER_HOST: proxy.host });
  await waitFor(
    () => events(runDir).filter((e) => e.kind === 'episode-end').length >= 2,
    180_000,
    () => `two episodes never finished: ${first.output()}`,
  );
  await proxy.cut();
  const code = await first.exited;
  const output = first.output();
  assert.equal(code, 75, output);
  assertNoStackTrace(output);
  assert.match(output, /Infrastructure failures \(\d+; not counted in the resolved rate\)/);

  const cut = report(runDir);
  const failures = cut.infrastructure_failures ?? [];
  assert.ok(failures.length >= 1, `no infrastructure failure recorded: ${JSON.stringify(cut)}`);
  assert.ok(
    failures.every((f) => f.code === 'daemon-lost' || f.code === 'sandbox-lost'),
    JSON.stringify(failures),
  );
  assert.equal(cut.total + failures.length, planned, 'every episode either finished or is an infrastructure failure');
  assert.equal(cut.not_finished, failures.length);
  assert.equal(cut.resolved_rate, cut.total === 0 ? 0 : cut.resolved / cut.total, 'the rate is over the episodes that reached an outcome');
  assert.ok(
    cut.tasks.every((t) => t.termination_reason !== 'error'),
    `an infrastructure failure was counted as an outcome: ${JSON.stringify(cut.tasks)}`,
  );
  const st = status(runDir);
  assert.equal(st.state, 'failed');
  assert.equal(st.episodes.infrastructure, failures.length);

  // The containers were on the real engine: losing their owner's connection ends them. One
  // created but not yet started when the connection went never ran (no process, no lifeline); the
  // resume removes it (checked below).
  const name = 'daemon-loss';
  await waitFor(
    async () => (await containersOf(name)).every((c) => c.State === 'created'),
    30_000,
    () => `containers of ${name} were left running`,
  );

  await proxy.restore();
  const resumed = rollout(runDir, ['--resume'], { DOCKER_HOST: proxy.host });
  assert.equal(await resumed.exited, 0, resumed.output());
  const again = eventsOfProcess(runDir, 1);
  assert.deepEqual(episodesStarted(again).sort(), failures.map((f) => f.episode_id).sort(), 'the resume runs exactly the infrastructure failures');
  const whole = report(runDir);
  assert.equal(whole.total, planned);
  assert.equal(whole.resolved, resolvedByRule);
  assert.equal(whole.infrastructure_failures, undefined);
  assert.deepEqual(await containersOf(name), [], 'no container of the run is left after the resume');
  await proxy.close();
});

test("kill -9 mid-run leaves no container; the resume takes over the dead owner's lock and runs exactly the unfinished episodes", async () => {
  const runDir = join(dir, 'killed');
  const first = rollout(runDir);
  await waitFor(
    () => events(runDir).filter((e) => e.kind === 'episode-end').length >= 2 && episodesStarted(events(runDir)).length >= 3,
    180_000,
    () => `the run never reached its third episode: ${first.output()}`,
  );
  first.child.kill('SIGKILL');
  await first.exited;
  // Every container that ran dies with its owner (its lifeline, sandbox/lifeline.ts). One the
  // owner had created but not yet started when it was killed never runs anything; it is only a
  // record, and the resume reaps it (checked below), as `gp containers reap` would.
  await waitFor(
    async () => (await containersOf('killed')).every((c) => c.State === 'created'),
    30_000,
    () => 'containers of the killed run were left running',
  );
  assert.ok(existsSync(join(runDir, 'run.lock')), 'a killed owner cannot remove its lock');
  const finished = events(runDir).flatMap((e) => (e.kind === 'episode-end' ? [e.episode_id] : []));

  const resumed = rollout(runDir, ['--resume']);
  assert.equal(await resumed.exited, 0, resumed.output());
  assert.match(resumed.output(), /took over the run folder from pid \d+, which is gone/);
  assert.deepEqual(await containersOf('killed'), [], 'no container of the run is left after the resume');
  const rerun = episodesStarted(eventsOfProcess(runDir, 1));
  const all = readFileSync(join(repo, tasks), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { task_id: string }).task_id);
  assert.deepEqual(rerun.sort(), all.filter((id) => !finished.includes(id)).sort());
  assert.equal(report(runDir).resolved, resolvedByRule);
  assert.equal(existsSync(join(runDir, 'run.lock')), false, 'the lock is released at the end');
});

test('two launches on one run folder at the same moment: exactly one runs, the other is refused naming the owner', async () => {
  const runDir = join(dir, 'twice');
  mkdirSync(runDir);
  const a = rollout(runDir);
  const b = rollout(runDir);
  const codes = await Promise.all([a.exited, b.exited]);
  assert.deepEqual([...codes].sort(), [0, 2], `${a.output()}\n---\n${b.output()}`);
  const refused = codes[0] === 2 ? a : b;
  assert.match(refused.output(), /the run folder is in use by pid \d+ \(`gp rollout/);
  assert.equal(episodesStarted(events(runDir)).length, planned, 'no episode ran twice');
  assert.equal(events(runDir).filter((e) => e.kind === 'run-start').length, 1);
  assertNoTornLines(runDir);
  assert.equal(report(runDir).resolved, resolvedByRule);
});

test('a full disk stops the run cleanly: no stack trace, status failed with the reason, no torn line, and a resume finishes it', async () => {
  const mount = join(dir, 'small-disk');
  mkdirSync(mount);
  // A real file system that fills up: a tmpfs of 192 KiB holds a few of the run's episodes only.
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=192k', 'tmpfs', mount]);
  mounts.push(mount);
  const runDir = join(mount, 'full');
  const first = rollout(runDir);
  const code = await first.exited;
  const output = first.output();
  assertNoStackTrace(output);
  assert.equal(code, 75, output);
  assert.match(output, /disk is full/);
  const st = status(runDir);
  assert.equal(st.state, 'failed', 'status.json does not stay running');
  assert.match(st.exit_reason ?? '', /disk is full/);
  assertNoTornLines(runDir);
  await waitFor(
    async () => (await containersOf('full')).length === 0,
    30_000,
    () => 'containers of the full-disk run were left behind',
  );

  execFileSync('mount', ['-o', 'remount,size=8m', mount]);
  const resumed = rollout(runDir, ['--resume']);
  assert.equal(await resumed.exited, 0, resumed.output());
  const whole = report(runDir);
  assert.equal(whole.total, planned);
  assert.equal(whole.resolved, resolvedByRule);
  assertNoTornLines(runDir);
});
