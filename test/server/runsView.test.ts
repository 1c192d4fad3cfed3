/**
 * The Runs view's messages and launching over a real LSP connection, with the engine's real
 * launcher: the run roots come from an experiment's `logging.output_dir`, a launch is planned and
 * preflighted (errors located in the YAML), started as a detached `gp` (the CLI from source under
 * tsx), and its run arrives as `runs/changed` pushes while watched; then its episodes, re-launch
 * into a new folder, resume refused for a finished run, and delete.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { planLaunch, startFollowed } from '../../server/src/launch/index.js';
import type {
  LaunchExited,
  LaunchPlanResult,
  LaunchSpec,
  LaunchStartResult,
  RunActionResult,
  RunEpisodesResult,
  RunsChanged,
  RunsListResult,
} from '../../server/src/protocol/index.js';
import { episodeName } from '../../server/src/protocol/episodeName.js';
import { engineServices, startHarness, type Harness } from '../support/lspHarness.js';

const repoRoot = resolve(__dirname, '../..');
let root: string;
let h: Harness;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'gp-runs-view-'));
  mkdirSync(join(root, 'configs', 'experiments'), { recursive: true });
  mkdirSync(join(root, 'datasets', 'sample'), { recursive: true });
  cpSync(join(repoRoot, 'docker/repoenv_sample/sample_repo'), join(root, 'repos', 'sample_repo'), { recursive: true });
  const tasks = readFileSync(join(repoRoot, 'datasets/sample/tasks.jsonl'), 'utf8').replaceAll(
    '../../docker/repoenv_sample/sample_repo',
    '../../repos/sample_repo',
  );
  writeFileSync(join(root, 'datasets', 'sample', 'tasks.jsonl'), tasks);
  const paths = 'paths:\n  dataset_train: datasets/sample/tasks.jsonl\n  dataset_val: datasets/sample/tasks.jsonl\n';
  writeFileSync(
    join(root, 'configs', 'experiments', 'ok.yaml'),
    `experiment:\n  name: ok\n${paths}logging:\n  output_dir: runs-out\nsandbox:\n  backend: local\n`,
  );
  writeFileSync(join(root, 'configs', 'experiments', 'bad.yaml'), `experiment:\n  name: bad\n${paths}env:\n  failure_penalty: -1.0\n`);
  // The real launcher, running the CLI from source (the bundle is not built for server tests).
  // tsx is named by its file: the run's working folder has no node_modules to resolve it from.
  const gp = {
    program: process.execPath,
    prefix: ['--import', pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href, join(repoRoot, 'server/src/cli/main.ts')],
  };
  h = await startHarness({}, root, { ...engineServices(), launch: { plan: (spec) => planLaunch(spec), start: (plan) => startFollowed(plan, gp) } });
});
after(async () => {
  await h.close();
  if (process.env['GP_KEEP'] === undefined) rmSync(root, { recursive: true, force: true });
  else console.log(root);
});

const newRun = (config: string): LaunchSpec => ({
  mode: 'new',
  run: {
    kind: 'rollout',
    config: join(root, 'configs/experiments', config),
    taskFiles: [join(root, 'datasets/sample/tasks.jsonl')],
    tasks: [],
    agent: null,
    backend: null,
    parallel: 2,
    attempts: null,
    sets: [],
    cwd: root,
  },
});

/** Waits for a `runs/changed` push that passes `accept`. */
async function pushed(accept: (c: RunsChanged) => boolean, what: string, timeoutMs = 60_000): Promise<RunsChanged> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = h.notifications
      .filter((n) => n.method === 'graphPlanner/runs/changed')
      .map((n) => n.params as RunsChanged)
      .find(accept);
    if (hit !== undefined) return hit;
    if (Date.now() > deadline)
      throw new Error(
        `no runs/changed push: ${what}; got ${JSON.stringify(h.notifications.filter((n) => n.method === 'graphPlanner/runs/changed').map((n) => n.params))}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("lists the run roots of the workspace: the experiments' output_dir and the default outputs folder", async () => {
  const listed = (await h.client.sendRequest('graphPlanner/runs/list', {})) as RunsListResult;
  assert.deepEqual(listed.roots.map((r) => r.path).sort(), [join(root, 'outputs'), join(root, 'runs-out')].sort());
  assert.deepEqual(listed.runs, []);
});

test('a config with an error plans with the error located in its YAML, and refuses to start', async () => {
  const plan = (await h.client.sendRequest('graphPlanner/launch/plan', newRun('bad.yaml'))) as LaunchPlanResult;
  assert.equal(plan.refused, null);
  const error = plan.findings.find((f) => f.severity === 'error');
  assert.deepEqual(
    { file: error?.file, line: error?.line, character: error?.character },
    { file: join(root, 'configs/experiments/bad.yaml'), line: 6, character: 19 },
  );
  assert.match(error?.message ?? '', /^preflight\/negative-penalty/);
  const started = (await h.client.sendRequest('graphPlanner/launch/start', newRun('bad.yaml'))) as LaunchStartResult;
  assert.equal(started.ok, false);
  assert.equal(existsSync(join(root, 'outputs')), false, 'no run folder was made');
});

test('a launch starts detached, its run arrives through pushes while watched and finishes with its episodes', async () => {
  await h.client.sendRequest('graphPlanner/runs/watch', { watching: true });
  const plan = (await h.client.sendRequest('graphPlanner/launch/plan', newRun('ok.yaml'))) as LaunchPlanResult;
  assert.deepEqual(plan.findings, []);
  assert.match(
    plan.display,
    /^gp rollout datasets\/sample\/tasks\.jsonl --config configs\/experiments\/ok\.yaml --parallel 2 --run-dir runs-out\/ok-rollout-\d{8}-\d{6}$/,
  );
  const started = (await h.client.sendRequest('graphPlanner/launch/start', newRun('ok.yaml'))) as LaunchStartResult;
  assert.ok(started.ok, JSON.stringify(started));
  // Detached: its own session, so closing the editor (and the server with it) does not end the run.
  const sessionOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[3];
  assert.notEqual(sessionOf(started.pid), sessionOf(process.pid), 'the run has a session of its own');
  const finished = await pushed((c) => c.changed.some((r) => r.dir === started.runDir && r.state === 'finished'), 'the run finished');
  const run = finished.changed.find((r) => r.dir === started.runDir);
  assert.equal(run?.kind, 'rollout');
  assert.equal(run?.agent, 'rule');
  assert.equal(run?.relaunchable, true);
  assert.equal(run?.hasLog, true);
  assert.deepEqual(run?.episodes?.total, 3);
  const report = JSON.parse(readFileSync(join(started.runDir, 'report.json'), 'utf8')) as { resolved: number };
  assert.equal(run?.episodes?.resolved, report.resolved, 'the view shows the resolved count of the report');
  assert.match(readFileSync(started.logFile, 'utf8'), /launched from the editor[\s\S]*resolved/);
  const eps = (await h.client.sendRequest('graphPlanner/runs/episodes', { dir: started.runDir })) as RunEpisodesResult;
  assert.deepEqual(eps.episodes.map((e) => e.taskId).sort(), ['sample-calc-add', 'sample-calc-add-unittest', 'sample-version']);
  assert.ok(eps.episodes.every((e) => e.state === 'resolved' || e.state === 'unresolved'));

  const resume = (await h.client.sendRequest('graphPlanner/launch/plan', { mode: 'resume', dir: started.runDir })) as LaunchPlanResult;
  assert.match(resume.refused ?? '', /finished; every episode has ended/);
  const relaunch = (await h.client.sendRequest('graphPlanner/launch/plan', { mode: 'relaunch', dir: started.runDir })) as LaunchPlanResult;
  assert.equal(relaunch.refused, null);
  assert.notEqual(relaunch.runDir, started.runDir, 'a re-launch writes a new folder');
  assert.ok(relaunch.args.includes(join(started.runDir, 'resolved_config.yaml')), relaunch.display);

  const removed = (await h.client.sendRequest('graphPlanner/runs/action', { dir: started.runDir, action: 'remove' })) as RunActionResult;
  assert.ok(removed.ok, removed.message);
  await pushed((c) => c.removed.includes(started.runDir), 'the removal');
  await h.client.sendRequest('graphPlanner/runs/watch', { watching: false });
});

test("a task attempted twice gives two episodes whose names are their trajectories' file names, as the viewer's tab shows them (issue 27)", async () => {
  await h.client.sendRequest('graphPlanner/runs/watch', { watching: true });
  const spec = newRun('ok.yaml');
  const twice: LaunchSpec = spec.mode === 'new' ? { ...spec, run: { ...spec.run, tasks: ['sample-version'], attempts: 2 } } : spec;
  const started = (await h.client.sendRequest('graphPlanner/launch/start', twice)) as LaunchStartResult;
  assert.ok(started.ok, JSON.stringify(started));
  await pushed((c) => c.changed.some((r) => r.dir === started.runDir && r.state === 'finished'), 'the run of two attempts finished');
  const eps = (await h.client.sendRequest('graphPlanner/runs/episodes', { dir: started.runDir })) as RunEpisodesResult;
  assert.deepEqual(eps.episodes.map((e) => episodeName(e)).sort(), ['sample-version#1', 'sample-version#2']);
  for (const e of eps.episodes) {
    assert.ok(existsSync(e.trajectory), `${e.trajectory} exists`);
    assert.equal(basename(e.trajectory), `${episodeName(e)}.jsonl`);
  }
  const removed = (await h.client.sendRequest('graphPlanner/runs/action', { dir: started.runDir, action: 'remove' })) as RunActionResult;
  assert.ok(removed.ok, removed.message);
  await pushed((c) => c.removed.includes(started.runDir), 'the removal');
  await h.client.sendRequest('graphPlanner/runs/watch', { watching: false });
});

test('a launch whose every task line fails validation exits before it reports: the server writes its failure with the first error, placed, and says so at once (issue 37)', async () => {
  writeFileSync(join(root, 'datasets', 'bad.jsonl'), '{"task_id": 5}\n{"foo": "bar"}\n');
  const spec = newRun('ok.yaml');
  const bad: LaunchSpec = spec.mode === 'new' ? { ...spec, run: { ...spec.run, taskFiles: [join(root, 'datasets', 'bad.jsonl')] } } : spec;
  const started = (await h.client.sendRequest('graphPlanner/launch/start', bad)) as LaunchStartResult;
  assert.ok(started.ok, JSON.stringify(started));
  const deadline = Date.now() + 60_000;
  let exited: LaunchExited | undefined;
  while (exited === undefined) {
    exited = h.notifications
      .filter((n) => n.method === 'graphPlanner/launch/exited')
      .map((n) => n.params as LaunchExited)
      .find((e) => e.runDir === started.runDir);
    if (Date.now() > deadline) throw new Error('no launch/exited notification');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(exited.reported, false);
  assert.equal(exited.code, 2);
  assert.deepEqual(
    { file: exited.error?.file, line: exited.error?.line, character: exited.error?.character },
    { file: join(root, 'datasets', 'bad.jsonl'), line: 0, character: 0 },
  );
  assert.match(exited.error?.message ?? '', /^datasets\/bad\.jsonl:1:1 task_id: /);
  assert.equal(exited.run?.state, 'failed');
  assert.equal(exited.run?.kind, 'rollout');
  assert.equal(exited.run?.exitReason, exited.error?.message);
  assert.ok(exited.sentAt - exited.exitedAt < 1000, `the notification left ${exited.sentAt - exited.exitedAt} ms after the exit`);
  // The record is in the run folder, so the Runs view, gp runs list and a later window see it too.
  const listed = (await h.client.sendRequest('graphPlanner/runs/list', {})) as RunsListResult;
  const row = listed.runs.find((r) => r.dir === started.runDir);
  assert.equal(row?.state, 'failed');
  assert.equal(row?.hasLog, true);
  const removed = (await h.client.sendRequest('graphPlanner/runs/action', { dir: started.runDir, action: 'remove' })) as RunActionResult;
  assert.ok(removed.ok, removed.message);
});

test('a training launch is planned into a run folder of its own, passed to gp train with --run-dir, so the editor follows exactly that run (issue 37)', async () => {
  const spec: LaunchSpec = {
    mode: 'train',
    train: {
      config: join(root, 'configs/experiments/ok.yaml'),
      tasks: join(root, 'datasets/sample/tasks.jsonl'),
      smoke: 'scripted',
      steps: 3,
      ray: null,
      cwd: root,
    },
  };
  const plan = (await h.client.sendRequest('graphPlanner/launch/plan', spec)) as LaunchPlanResult;
  assert.equal(plan.refused, null);
  assert.match(plan.runDir, new RegExp(`^${join(root, 'runs-out', 'ok-train-')}\\d{8}-\\d{6}$`));
  assert.deepEqual(plan.args, [
    'train',
    'configs/experiments/ok.yaml',
    '--smoke',
    '--smoke-policy',
    'scripted',
    '--steps',
    '3',
    '--tasks',
    'datasets/sample/tasks.jsonl',
    '--run-dir',
    plan.runDir.slice(root.length + 1),
  ]);
  assert.equal(existsSync(plan.runDir), false, 'planning starts nothing');
});

test('a training run that recorded its launch is re-launched into a new folder and resumed in its own, with its own flags (issue 37)', async () => {
  const dir = join(root, 'runs-out', 'ok-train-20261127-174735');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'resolved_config.yaml'), readFileSync(join(root, 'configs/experiments/ok.yaml'), 'utf8'));
  writeFileSync(
    join(dir, 'launch.json'),
    JSON.stringify({
      command: 'train',
      args: ['configs/experiments/ok.yaml', '--smoke', '--run-dir', 'runs-out/ok-train-20261127-174735'],
      cwd: root,
      agent: 'rule',
      written_at: '2026-11-27T17:47:35Z',
    }),
  );
  writeFileSync(
    join(dir, 'status.json'),
    JSON.stringify({
      state: 'failed',
      command: 'gp train configs/experiments/ok.yaml --smoke',
      pid: 1,
      host: 'elsewhere',
      started_at: '2026-11-27T17:47:35Z',
      ended_at: '2026-11-27T17:48:35Z',
      episodes: { total: 2, finished: 1, resolved: 0, errored: 0 },
    }),
  );
  const relaunch = (await h.client.sendRequest('graphPlanner/launch/plan', { mode: 'relaunch', dir })) as LaunchPlanResult;
  assert.equal(relaunch.refused, null);
  assert.notEqual(relaunch.runDir, dir, 'a re-launch writes a new folder');
  assert.deepEqual(relaunch.args, ['train', 'configs/experiments/ok.yaml', '--smoke', '--run-dir', relaunch.runDir.slice(root.length + 1)]);
  const resume = (await h.client.sendRequest('graphPlanner/launch/plan', { mode: 'resume', dir })) as LaunchPlanResult;
  assert.deepEqual(resume.args, ['train', 'configs/experiments/ok.yaml', '--smoke', '--run-dir', 'runs-out/ok-train-20261127-174735']);
  rmSync(dir, { recursive: true, force: true });
});
