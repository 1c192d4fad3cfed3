/**
 * `gp rollout` and `gp eval` end to end on real sandboxes with the real environment and the rule
 * agent: the sample tasks in containers and on local working copies, every trajectory line checked
 * against the protocol's schema; a rollout killed with SIGKILL mid-run and resumed; a rollout
 * stopped with SIGINT. The kill and interrupt tests run the built CLI (`node dist/cli.js`) as a
 * separate process, as a person would; `node scripts/build.mjs` builds it first. The sample
 * episodes' ATIF exports are checked with the `atif` package's validator
 * (test/support/formatConformance.ts), so the trainer environment must be built.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import Docker from 'dockerode';
import { runGp, type GpResult } from '../support/cli.js';
import { formatVerdicts } from '../support/formatConformance.js';
import { swebenchReportSchema } from '../../server/src/protocol/index.js';
import {
  runEventSchema,
  runLaunchRecordSchema,
  runReportSchema,
  runStatusSchema,
  trajectoryLineSchema,
  type RunReport,
} from '../../server/src/protocol/runs.js';
import { readTrajectory } from '../../server/src/runs/index.js';

const root = resolve('.');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'gp-rollout-it-'));
const sampleTasks = 'datasets/sample/tasks.jsonl';
const docker = new Docker();
const runNames: string[] = [];

function runName(label: string): string {
  const name = `rollout-it-${label}-${process.pid}`;
  runNames.push(name);
  return name;
}

async function containersOf(run: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`graph-planner.run=${run}`] } });
}

function gp(...args: string[]): Promise<GpResult> {
  return runGp(root, args);
}

function json<T>(path: string, parse: (v: unknown) => T): T {
  return parse(JSON.parse(readFileSync(path, 'utf8')));
}

/** Every line of every trajectory of the report parses with the protocol's schema, start first and end last. */
function checkTrajectories(runDir: string, report: RunReport, backend: 'docker' | 'local'): void {
  for (const t of report.tasks) {
    const lines = readFileSync(join(runDir, t.trajectory), 'utf8').split('\n');
    assert.equal(lines.pop(), '', `${t.trajectory} ends with a newline`);
    const records = lines.map((l, i) => {
      const parsed = trajectoryLineSchema.safeParse(JSON.parse(l));
      assert.ok(parsed.success, `${t.trajectory}:${i + 1}: ${parsed.success ? '' : parsed.error.message}`);
      return parsed.data;
    });
    const first = records[0];
    assert.equal(first?.type, 'start', `${t.trajectory} starts with its start line`);
    assert.equal(first?.type === 'start' && first.backend, backend);
    assert.equal(records.at(-1)?.type, 'end');
    assert.equal(records.filter((r) => r.type === 'step').length >= t.steps, true);
  }
}

before(() => {
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  assert.equal(built.status, 0, 'the CLI builds');
});

after(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const run of runNames) assert.deepEqual(await containersOf(run), [], `run ${run} left containers behind`);
});

test('rolls out the sample tasks with the rule agent in containers; every trajectory line validates', async () => {
  const name = runName('docker');
  const runDir = join(dir, name);
  const r = await gp('rollout', sampleTasks, '--backend', 'docker', '--run-dir', runDir, '--parallel', '2');
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /^run dir: /m);
  const report = json(join(runDir, 'report.json'), (v) => runReportSchema.parse(v));
  assert.equal(report.total, 3);
  checkTrajectories(runDir, report, 'docker');
  for (const t of report.tasks) assert.match(r.out, new RegExp(`${t.episode_id} .*${t.trajectory.replace(/[.]/g, '\\.')}`), 'the table names each trajectory');
  const calc = report.tasks.find((t) => t.task_id === 'sample-calc-add');
  assert.equal(calc?.resolved, true, `the rule agent fixes add(): ${calc?.failure_reason ?? ''}`);
  const status = json(join(runDir, 'status.json'), (v) => runStatusSchema.parse(v));
  assert.equal(status.state, 'finished');
  assert.deepEqual(status.episodes, { total: 3, finished: 3, resolved: report.resolved, errored: 0 });
  const backend = { episodes: { docker: 3, local: 0 }, fallbacks: [] };
  assert.deepEqual([status.backend, report.backend], [backend, backend]);
  assert.match(r.out, /^backend: docker$/m);
  assert.ok(existsSync(join(runDir, 'resolved_config.yaml')));
  // How it was launched, for resume and re-launch from the editor: the arguments as given.
  const launch = json(join(runDir, 'launch.json'), (v) => runLaunchRecordSchema.parse(v));
  assert.deepEqual(
    [launch.command, launch.args, launch.cwd, launch.agent],
    ['rollout', [sampleTasks, '--backend', 'docker', '--run-dir', runDir, '--parallel', '2'], root, 'rule'],
  );
  assert.deepEqual(await containersOf(basenameOf(runDir)), []);
  // The format's own validator (the atif package) accepts each fresh episode's ATIF export (issue 40).
  const exports = await Promise.all(
    report.tasks.map(async (t) => {
      const out = join(runDir, `${t.episode_id}.atif.json`);
      const exported = await gp('trajectory', 'export', join(runDir, t.trajectory), '--format', 'atif', '--out', out);
      assert.equal(exported.code, 0, exported.err);
      return out;
    }),
  );
  for (const v of formatVerdicts('atif', exports, root)) assert.equal(v.ok, true, `${v.file}: ${v.error ?? ''}`);
});

test('gp eval on the local backend (the built CLI) prints the SWE-bench-style summary and writes per-instance reports', () => {
  const runDir = join(dir, runName('eval-local'));
  const r = spawnSync(process.execPath, [cli, 'eval', sampleTasks, '--backend', 'local', '--run-dir', runDir], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /Evaluation of 3 instance\(s\) with the rule agent/);
  assert.match(r.stderr, /^\[\d\/3\] sample-/m, 'plain progress lines when stderr is not a terminal');
  const report = json(join(runDir, 'report.json'), (v) => runReportSchema.parse(v));
  checkTrajectories(runDir, report, 'local');
  for (const t of report.tasks.filter((x) => !x.resolved)) assert.ok(t.failure_reason, `${t.task_id} says why it failed`);
  const calc = report.tasks.find((t) => t.task_id === 'sample-calc-add');
  assert.equal(calc?.instance_report, 'reports/sample-calc-add/report.json');
  const instance = json(join(runDir, 'reports', 'sample-calc-add', 'report.json'), (v) => swebenchReportSchema.parse(v));
  assert.equal(instance['sample-calc-add']?.resolved, calc?.resolved);
  assert.ok(existsSync(join(runDir, 'test_runs.jsonl')), 'every submit records its test run in the run folder');
});

test('kill -9 mid-run, then --resume: finished episodes are kept, the torn one is redone, no container is left', async () => {
  const name = runName('kill');
  const runDir = join(dir, name);
  const trajectories = join(runDir, 'trajectories');
  const child = spawn(process.execPath, [cli, 'rollout', sampleTasks, '--backend', 'docker', '--run-dir', runDir, '--parallel', '1'], {
    cwd: root,
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  // Wait until one episode has finished and the next has written its start line, then kill.
  let finishedFile = '';
  let tornFile = '';
  await waitFor(
    async () => {
      if (!existsSync(trajectories)) return false;
      const reads = await Promise.all(readdirSync(trajectories).map(async (f) => ({ f, read: await readTrajectory(join(trajectories, f)) })));
      finishedFile = reads.find((x) => x.read?.end !== undefined)?.f ?? '';
      tornFile = reads.find((x) => x.read?.start !== undefined && x.read.end === undefined)?.f ?? '';
      return finishedFile !== '' && tornFile !== '';
    },
    180_000,
    () => `no moment with one finished and one running episode in ${trajectories}`,
  );
  child.kill('SIGKILL');
  await exited;
  const kept = readFileSync(join(trajectories, finishedFile), 'utf8');
  // A step half written when the process died.
  appendFileSync(join(trajectories, tornFile), '{"type":"step","step":2,"observ');
  // The container dies with its owner (sandbox/lifeline.ts): the engine removes it by itself.
  await waitFor(
    async () => (await containersOf(name)).length === 0,
    20_000,
    () => 'the killed process left its container behind for 20 s',
  );
  assert.equal(json(join(runDir, 'status.json'), (v) => runStatusSchema.parse(v)).state, 'running', 'the status still says running');

  const r = spawnSync(process.execPath, [cli, 'rollout', sampleTasks, '--backend', 'docker', '--run-dir', runDir, '--resume'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.equal(readFileSync(join(trajectories, finishedFile), 'utf8'), kept, 'the finished trajectory was not touched');
  const redone = await readTrajectory(join(trajectories, tornFile));
  assert.equal(redone?.torn, false);
  assert.deepEqual(redone?.problems, []);
  assert.ok(redone?.end, 'the torn episode ran again to its end');
  const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => runEventSchema.parse(JSON.parse(l)));
  const lastStart = events.filter((e) => e.kind === 'run-start').at(-1);
  assert.equal(lastStart?.kind === 'run-start' ? lastStart.resumed : -1, 1, 'one episode counted as already finished');
  const started = events
    .slice(events.lastIndexOf(lastStart as (typeof events)[number]))
    .filter((e) => e.kind === 'episode-start')
    .map((e) => (e.kind === 'episode-start' ? e.episode_id : ''));
  assert.equal(started.length, 2, `the resumed process ran the two unfinished episodes: ${started.join(', ')}`);
  const report = json(join(runDir, 'report.json'), (v) => runReportSchema.parse(v));
  assert.equal(report.total, 3);
  checkTrajectories(runDir, report, 'docker');
  assert.equal(json(join(runDir, 'status.json'), (v) => runStatusSchema.parse(v)).state, 'finished');
  assert.deepEqual(await containersOf(name), [], 'the resumed run closed its own containers');
});

test('SIGINT ends the running episodes, closes their containers, writes status interrupted and exits 130', async () => {
  const name = runName('sigint');
  const runDir = join(dir, name);
  const child: ChildProcess = spawn(process.execPath, [cli, 'rollout', sampleTasks, '--backend', 'docker', '--run-dir', runDir, '--parallel', '2'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await waitFor(
    async () => (await containersOf(name)).length > 0,
    120_000,
    () => 'no container of the run appeared',
  );
  child.kill('SIGINT');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([exited, new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), 90_000)))]);
  clearTimeout(timer);
  assert.equal(code, 130, stderr);
  assert.deepEqual(await containersOf(name), [], 'no container is left');
  const status = json(join(runDir, 'status.json'), (v) => runStatusSchema.parse(v));
  assert.equal(status.state, 'interrupted');
  assert.ok(status.ended_at);
  assert.match(stderr, /Resume with: gp rollout .*--resume/);
});

test('usage errors exit 2: a task file row that is not a task names file:line:col', async () => {
  const bad = join(dir, 'bad.jsonl');
  appendFileSync(bad, `${readFileSync(sampleTasks, 'utf8').split('\n')[0] ?? ''}\n{"task_id": 5}\n`);
  const r = await gp('rollout', bad, '--backend', 'local', '--run-dir', join(dir, 'never'));
  assert.equal(r.code, 2);
  assert.match(r.err, /bad\.jsonl:2:1 /);
  assert.equal(existsSync(join(dir, 'never', 'status.json')), false, 'nothing ran');
});

function basenameOf(path: string): string {
  return path.split('/').pop() ?? path;
}

async function waitFor(check: () => Promise<boolean>, ms: number, what: () => string): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(what());
    await new Promise((r) => setTimeout(r, 50));
  }
}
