/**
 * The editor's launch plan on real files: the command line a new run gets (only what was chosen,
 * paths relative to the working folder), its preflight verdict, and resume and re-launch from a
 * run's own launch record, refused with a reason when they cannot work.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { displayCommand, newRunArgs, planLaunch } from '../../server/src/launch/index.js';
import type { NewRunLaunch } from '../../server/src/protocol/launch.js';
import { forkChoiceSets, validEndpoint } from '../../extension/src/forkChoices.js';
import { runLayout, withoutConfigFlags, withoutRunFolderFlags, writeLaunchRecord, writeStatus } from '../../server/src/runs/index.js';
import { describeEpisode, describeEpisodeHost, describeNodes, describeRun, durationOf } from '../../extension/src/views/runsText.js';
import type { RunSummary } from '../../server/src/protocol/runsView.js';

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'gp-plan-'));
  mkdirSync(join(root, 'configs'), { recursive: true });
  mkdirSync(join(root, 'datasets'), { recursive: true });
  writeFileSync(join(root, 'datasets', 'tasks.jsonl'), '');
  writeFileSync(join(root, 'configs', 'x.yaml'), 'experiment:\n  name: x\nsandbox:\n  backend: local\n');
  return root;
}

const run = (root: string, extra: Partial<NewRunLaunch> = {}): NewRunLaunch => ({
  kind: 'rollout',
  config: join(root, 'configs', 'x.yaml'),
  taskFiles: [join(root, 'datasets', 'tasks.jsonl')],
  tasks: [],
  agent: null,
  backend: null,
  parallel: null,
  attempts: null,
  sets: [],
  cwd: root,
  ...extra,
});

test('a new run carries only the values that were chosen, with paths relative to its folder', () => {
  const root = workspace();
  assert.deepEqual(newRunArgs(run(root)), ['datasets/tasks.jsonl', '--config', 'configs/x.yaml']);
  assert.deepEqual(newRunArgs(run(root, { agent: 'model', backend: 'docker', parallel: 3, attempts: 2, tasks: ['a', 'b'], sets: ['env.max_steps=4'] })), [
    'datasets/tasks.jsonl',
    '--config',
    'configs/x.yaml',
    '--agent',
    'model',
    '--backend',
    'docker',
    '--parallel',
    '3',
    '--attempts',
    '2',
    '--task',
    'a',
    '--task',
    'b',
    '--set',
    'env.max_steps=4',
  ]);
  assert.ok(!newRunArgs(run(root, { kind: 'eval', attempts: 2 })).includes('--attempts'), 'evaluation runs one attempt');
  assert.deepEqual(newRunArgs(run(root, { taskFiles: ['/elsewhere/t.jsonl'] })).slice(0, 1), ['/elsewhere/t.jsonl']);
});

test("the plan names the run folder under the config's output_dir and locates a flag's error on the flag", async () => {
  const root = workspace();
  const plan = await planLaunch({ mode: 'new', run: run(root, { sets: ['env.step_penalty=-0.5'] }) }, new Date('2026-11-23T10:00:00Z'));
  assert.equal(plan.refused, null);
  assert.equal(plan.runDir, join(root, 'outputs', 'x-rollout-20261123-100000'));
  assert.equal(plan.display, 'gp rollout datasets/tasks.jsonl --config configs/x.yaml --set env.step_penalty=-0.5 --run-dir outputs/x-rollout-20261123-100000');
  const error = plan.findings.find((f) => f.severity === 'error');
  assert.equal(error?.flag, '--set env.step_penalty=-0.5');
  assert.equal(error?.file, null);
});

test('an unreadable config and bad flag values refuse the plan with the reason', async () => {
  const root = workspace();
  const missing = await planLaunch({ mode: 'new', run: run(root, { config: join(root, 'nope.yaml') }) });
  assert.match(missing.refused ?? '', /nope\.yaml: cannot read it/);
  const bad = await planLaunch({ mode: 'new', run: run(root, { sets: ['not a set'] }) });
  assert.match(bad.refused ?? '', /--set expects KEY=VALUE/);
});

test('resume keeps the recorded arguments and adds the folder; re-launch swaps in the resolved config and a new folder', async () => {
  const root = workspace();
  const dir = join(root, 'outputs', 'x-rollout-1');
  const layout = runLayout(dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(layout.resolvedConfig, 'experiment:\n  name: x\nsandbox:\n  backend: local\n');
  await writeLaunchRecord(layout.launch, {
    command: 'rollout',
    args: ['datasets/tasks.jsonl', '--config', 'configs/x.yaml', '--run-name', 'old', '--parallel', '2'],
    cwd: root,
    agent: 'rule',
    written_at: 'now',
  });
  const status = {
    state: 'interrupted' as const,
    command: 'gp rollout',
    pid: 1,
    host: hostname(),
    started_at: 'x',
    episodes: { total: 3, finished: 1, resolved: 1, errored: 0 },
  };
  await writeStatus(layout.status, status);
  const resume = await planLaunch({ mode: 'resume', dir });
  assert.deepEqual(resume.args, [
    'rollout',
    'datasets/tasks.jsonl',
    '--config',
    'configs/x.yaml',
    '--parallel',
    '2',
    '--run-dir',
    'outputs/x-rollout-1',
    '--resume',
  ]);
  const relaunch = await planLaunch({ mode: 'relaunch', dir });
  assert.equal(relaunch.refused, null);
  assert.deepEqual(relaunch.args.slice(0, 5), ['rollout', 'datasets/tasks.jsonl', '--parallel', '2', '--config']);
  assert.equal(relaunch.args[5], layout.resolvedConfig);
  assert.notEqual(relaunch.runDir, dir);
  await writeStatus(layout.status, { ...status, state: 'running', pid: process.pid });
  assert.match((await planLaunch({ mode: 'resume', dir })).refused ?? '', /still running/);
  await writeStatus(layout.status, { ...status, state: 'finished' });
  assert.match((await planLaunch({ mode: 'resume', dir })).refused ?? '', /nothing to resume/);
});

test('a run without a launch record, and a folder that is not a run, are refused with what to do', async () => {
  const root = workspace();
  const dir = join(root, 'outputs', 'old');
  mkdirSync(dir, { recursive: true });
  writeFileSync(runLayout(dir).resolvedConfig, 'x: 1\n');
  assert.match((await planLaunch({ mode: 'relaunch', dir })).refused ?? '', /no launch\.json \(the run was started by an older gp\)/);
  assert.match((await planLaunch({ mode: 'resume', dir: join(root, 'datasets') })).refused ?? '', /is not a run folder/);
  // A verification resumes by its own command, which never takes --resume.
  const verification = join(root, 'outputs', 'verify');
  mkdirSync(verification, { recursive: true });
  await writeStatus(runLayout(verification).status, {
    state: 'interrupted',
    command: `gp dataset verify datasets/a.jsonl --repeat 2 --run-dir ${verification}`,
    pid: 1,
    host: 'h',
    started_at: '2026-11-26T00:00:00Z',
    episodes: { total: 2, finished: 1, resolved: 1, errored: 0 },
  });
  const refused = (await planLaunch({ mode: 'resume', dir: verification })).refused ?? '';
  assert.match(refused, /run gp dataset verify datasets\/a\.jsonl --repeat 2 --run-dir \S+ again in a terminal: tasks with a verdict are not run again/);
  assert.doesNotMatch(refused, /--resume/);
});

test('a verification runs gp dataset verify on the file, as one argument whatever it holds, into a new folder of its own', async () => {
  const root = workspace();
  const odd = join(root, 'datasets', "it's $(touch x).jsonl");
  writeFileSync(odd, '');
  const verify = { dataset: odd, repeats: 3, parallel: 2, backend: 'local' as const, cwd: root };
  const now = new Date('2026-11-23T10:00:00.000Z');
  const plan = await planLaunch({ mode: 'verify', verify }, now);
  assert.equal(plan.refused, null);
  assert.equal(plan.command, 'dataset verify');
  assert.match(plan.runDir, new RegExp(`^${root}/outputs/[\\w.-]+-verify-20261123-100000$`));
  assert.deepEqual(plan.args, [
    'dataset',
    'verify',
    "datasets/it's $(touch x).jsonl",
    '--repeat',
    '3',
    '--parallel',
    '2',
    '--backend',
    'local',
    '--run-dir',
    plan.runDir.slice(root.length + 1),
  ]);
  assert.match(plan.display, /^gp dataset verify 'datasets\/it'\\''s \$\(touch x\)\.jsonl' --repeat 3/);
  mkdirSync(plan.runDir, { recursive: true });
  const again = await planLaunch({ mode: 'verify', verify: { ...verify, parallel: null, backend: null } }, now);
  assert.equal(again.runDir, `${plan.runDir}-2`, 'a folder already there is never written into');
  assert.deepEqual(again.args.slice(2, 5), ["datasets/it's $(touch x).jsonl", '--repeat', '3']);
  assert.ok(!again.args.includes('--parallel') && !again.args.includes('--backend'), 'values left to the config are not passed');
  const missing = await planLaunch({ mode: 'verify', verify: { ...verify, dataset: join(root, 'gone.jsonl') } }, now);
  assert.match(missing.refused ?? '', /gone\.jsonl does not exist/);
});

test('run-folder and config flags are dropped in both of their spellings; display quotes what the shell needs', () => {
  assert.deepEqual(withoutRunFolderFlags(['a', '--run-dir', 'd', '--run-name=n', '--resume', '--run-name', 'm', 'b']), ['a', 'b']);
  assert.deepEqual(withoutConfigFlags(['a', '--config', 'c.yaml', '--config-file=d.yaml', 'b']), ['a', 'b']);
  assert.equal(displayCommand(['rollout', 'my tasks.jsonl', "it's"]), `gp rollout 'my tasks.jsonl' 'it'\\''s'`);
});

test('the Runs view describes a run and an episode in one line', () => {
  const summary: RunSummary = {
    dir: '/r/x',
    name: 'x',
    root: '/r',
    state: 'running',
    stale: false,
    kind: 'rollout',
    command: 'gp rollout t.jsonl',
    agent: 'rule',
    episodes: { total: 10, finished: 4, resolved: 3, errored: 1 },
    backend: null,
    model: null,
    nodes: [],
    startedAt: '2026-11-23T10:00:00.000Z',
    endedAt: null,
    exitReason: null,
    problem: null,
    hasReport: false,
    hasLog: true,
    hasMetrics: false,
    relaunchable: true,
    fork: null,
  };
  assert.equal(describeRun(summary, Date.parse('2026-11-23T10:01:05.000Z')), '4/10 · 3 resolved · 1 errored · running · 1m 05s · rollout · rule');
  assert.equal(durationOf({ ...summary, state: 'finished', endedAt: '2026-11-23T12:05:00.000Z' }, 0), '2h 05m');
  assert.equal(
    describeRun(
      {
        ...summary,
        kind: 'verify',
        agent: null,
        command: 'gp dataset verify t.jsonl',
        episodes: { total: 7, finished: 7, resolved: 6, errored: 1 },
        state: 'finished',
        endedAt: '2026-11-23T10:00:09.000Z',
      },
      0,
    ),
    '6/7 certified · 1 not certified · finished · 9s · verify',
  );
  assert.equal(describeRun({ ...summary, state: 'unknown', problem: 'status.json is not JSON' }, 0), 'status.json is not JSON');
  const ep = {
    episodeId: 't#2',
    taskId: 't',
    state: 'interrupted' as const,
    steps: 2,
    totalReward: 0,
    terminationReason: 'interrupted',
    sandboxHost: null,
    trajectory: '/r/x/t.jsonl',
  };
  assert.equal(describeEpisode(ep), 'interrupted · reward 0.00 · 2 steps');
  assert.equal(describeEpisode({ ...ep, state: 'unresolved', terminationReason: 'max_steps', steps: 1 }), 'unresolved · reward 0.00 · 1 step · max steps');
  assert.equal(describeEpisodeHost(ep), null);
  assert.equal(describeNodes(summary), null);
});

test('the Runs view names the Ray node of an episode a sandbox host ran, and a run spread over several nodes says so', () => {
  const ep = {
    episodeId: 't',
    taskId: 't',
    state: 'resolved' as const,
    steps: 4,
    totalReward: 1,
    terminationReason: 'submitted',
    sandboxHost: { id: 'host-a', node: 'worker-1' },
    trajectory: '/r/x/t.jsonl',
  };
  assert.equal(describeEpisode(ep), 'resolved · reward 1.00 · 4 steps · node worker-1');
  assert.equal(describeEpisodeHost(ep), 'Ray node worker-1 (sandbox host host-a)');
  // A Ray node id is 56 hex digits: the row shows its first 8, as Ray's dashboard does.
  const rayId = 'a3f9c2e1'.repeat(7);
  assert.equal(describeEpisode({ ...ep, sandboxHost: { id: 'host-b', node: rayId } }), 'resolved · reward 1.00 · 4 steps · node a3f9c2e1…');
  const run: RunSummary = {
    dir: '/r/x',
    name: 'x',
    root: '/r',
    state: 'finished',
    stale: false,
    kind: 'eval',
    command: 'gp eval t.jsonl',
    agent: 'rule',
    episodes: { total: 3, finished: 3, resolved: 2, errored: 0 },
    backend: null,
    model: null,
    nodes: [
      { node: 'worker-1', episodes: 2 },
      { node: 'worker-2', episodes: 1 },
    ],
    startedAt: '2026-11-23T10:00:00.000Z',
    endedAt: '2026-11-23T10:00:30.000Z',
    exitReason: null,
    problem: null,
    hasReport: true,
    hasLog: false,
    hasMetrics: false,
    relaunchable: true,
    fork: null,
  };
  assert.equal(describeRun(run, 0), '2/3 resolved · finished · 30s · on 2 nodes · eval · rule');
  assert.equal(describeNodes(run), 'worker-1 (2 episodes), worker-2 (1 episode)');
  // One node is named on each episode; the run's row stays as it was.
  assert.equal(describeRun({ ...run, nodes: [{ node: 'worker-1', episodes: 3 }] }, 0), '2/3 resolved · finished · 30s · eval · rule');
});

/** A run folder holding the sample's recorded episode (test/fixtures/trajectories/), with its launch record and config, as `gp rollout` leaves it. */
async function recordedRun(root: string): Promise<{ dir: string; trajectory: string }> {
  const dir = join(root, 'outputs', 'x-rollout-1');
  const layout = runLayout(dir);
  mkdirSync(join(dir, 'trajectories'), { recursive: true });
  writeFileSync(layout.resolvedConfig, 'experiment:\n  name: x\nsandbox:\n  backend: local\n');
  await writeLaunchRecord(layout.launch, {
    command: 'rollout',
    args: ['datasets/tasks.jsonl', '--config', 'configs/x.yaml'],
    cwd: root,
    agent: 'rule',
    written_at: 'now',
  });
  const trajectory = join(dir, 'trajectories', 'sample-calc-add.jsonl');
  copyFileSync(join(__dirname, '..', 'fixtures', 'trajectories', 'sample-calc-add.jsonl'), trajectory);
  return { dir, trajectory };
}

test("a fork from the viewer is a rollout of the episode's task from its run's config, into the one folder its arguments name", async () => {
  const root = workspace();
  const { dir, trajectory } = await recordedRun(root);
  const fork = { trajectory, step: 3, count: 2, agent: 'rule' as const, sets: ['backends.planner_backend=embedded'], cwd: root };
  const plan = await planLaunch({ mode: 'fork', fork }, new Date('2026-11-23T10:00:00Z'));
  assert.equal(plan.refused, null);
  assert.equal(plan.command, 'rollout');
  assert.equal(plan.runDir, join(root, 'outputs', 'x-rollout-1-fork-20261123-100000'));
  // A flag's value, written `--flag value` or `--flag=value` (a recorded value is joined to its flag).
  const at = (flag: string): string | undefined => {
    const i = plan.args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
    const arg = plan.args[i];
    return arg === undefined ? undefined : arg === flag ? plan.args[i + 1] : arg.slice(flag.length + 1);
  };
  assert.equal(plan.args[0], 'rollout');
  assert.equal(at('--task'), 'sample-calc-add');
  assert.equal(at('--config'), 'outputs/x-rollout-1/resolved_config.yaml');
  assert.equal(at('--fork-of'), 'outputs/x-rollout-1/trajectories/sample-calc-add.jsonl');
  assert.equal(at('--fork-step'), '3');
  assert.equal(at('--attempts'), '2');
  assert.equal(at('--agent'), 'rule');
  assert.ok(
    plan.args.some((a) => a.endsWith('backends.planner_backend=embedded')),
    'the picked model reaches the command line',
  );
  assert.deepEqual(
    plan.args.filter((a) => a === '--run-dir' || a.startsWith('--run-dir=')).length,
    1,
    'the folder is named once, never planned again from the config',
  );
  assert.equal(at('--run-dir'), 'outputs/x-rollout-1-fork-20261123-100000');
  assert.ok(!plan.args.includes('--resume'));
  assert.equal(plan.values?.attempts.value, '2');
  assert.notEqual(plan.runDir, dir);
});

test("a fork's flags are preflighted with the parent's config, and a step or trajectory it cannot continue from is refused with why", async () => {
  const root = workspace();
  const { trajectory } = await recordedRun(root);
  const fork = { trajectory, step: 2, count: 1, agent: null, sets: ['env.step_penalty=-0.5'], cwd: root };
  const flagged = await planLaunch({ mode: 'fork', fork });
  assert.equal(flagged.refused, null);
  assert.equal(flagged.findings.find((f) => f.severity === 'error')?.flag, '--set env.step_penalty=-0.5');
  assert.ok(!flagged.args.some((a) => a === '--agent' || a.startsWith('--agent=')), "no agent picked keeps the parent run's");
  assert.match((await planLaunch({ mode: 'fork', fork: { ...fork, sets: [], step: 9 } })).refused ?? '', /--step 9 is not a step of .*sample-calc-add\.jsonl/);
  assert.match(
    (await planLaunch({ mode: 'fork', fork: { ...fork, trajectory: join(root, 'gone.jsonl') } })).refused ?? '',
    /gone\.jsonl does not exist any more/,
  );
});

test("Continue from Here…'s model choices become the config's backends keys, and an endpoint must be an http URL that survives --set", () => {
  assert.deepEqual(forkChoiceSets({ kind: 'config' }), []);
  assert.deepEqual(forkChoiceSets({ kind: 'embedded' }), ['backends.planner_backend=embedded', 'backends.planner_endpoint=null']);
  assert.deepEqual(forkChoiceSets({ kind: 'endpoint', url: 'http://10.0.0.2:8000/v1' }), [
    'backends.planner_backend=openai',
    'backends.planner_endpoint=http://10.0.0.2:8000/v1',
  ]);
  assert.equal(validEndpoint('https://models.example/v1'), undefined);
  assert.match(validEndpoint('') ?? '', /base URL/);
  assert.match(validEndpoint('localhost:8000') ?? '', /http or https/);
  assert.match(validEndpoint('not a url') ?? '', /Not a URL/);
  assert.match(validEndpoint('http://h/v1#x') ?? '', /without spaces or #/);
});

test('each model choice of Continue from Here… passes the preflight of a fork of a rule run', async () => {
  const root = workspace();
  const { trajectory } = await recordedRun(root);
  for (const model of [{ kind: 'config' as const }, { kind: 'embedded' as const }, { kind: 'endpoint' as const, url: 'http://127.0.0.1:8000/v1' }]) {
    const plan = await planLaunch({ mode: 'fork', fork: { trajectory, step: 1, count: 1, agent: 'model', sets: forkChoiceSets(model), cwd: root } });
    assert.equal(plan.refused, null);
    assert.deepEqual(
      plan.findings.filter((f) => f.severity === 'error' && f.flag !== null),
      [],
      `${model.kind}: no flag of the choice is an error`,
    );
    assert.equal(plan.values?.agent.value, 'model');
  }
});
