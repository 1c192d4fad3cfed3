/**
 * `gp trajectory fork` on real sandboxes (issue 40): a real rollout of a sample task is the
 * parent; forks of it at step 3, with the rule agent (four at once) and with the embedded model,
 * on the local and the Docker backend, replay steps 1–2 exactly as recorded, then go on live, and
 * each continuation records its parent. A parent whose recording was altered makes the fork stop
 * at the altered step and say so; a step the episode does not have is refused before anything runs.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runGp, type GpResult } from '../support/cli.js';
import { compareStep } from '../../server/src/episodes/index.js';
import { readTrajectory, type TrajectoryRead } from '../../server/src/runs/index.js';
import { runLaunchRecordSchema } from '../../server/src/protocol/runs.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-fork-it-'));
const sampleTasks = 'datasets/sample/tasks.jsonl';
const task = 'sample-calc-add';

after(() => rmSync(dir, { recursive: true, force: true }));

function gp(...args: string[]): Promise<GpResult> {
  return runGp(root, args);
}

async function read(path: string): Promise<TrajectoryRead> {
  const r = await readTrajectory(path);
  assert.ok(r !== undefined, `${path} exists`);
  return r;
}

function forkTrajectories(runDir: string): string[] {
  return readdirSync(join(runDir, 'trajectories'))
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(runDir, 'trajectories', f));
}

/** The run folder a fork's output names (`run dir: …`). */
function runDirOf(r: GpResult): string {
  const m = /^run dir: (\S+)$/m.exec(r.out);
  assert.ok(m?.[1] !== undefined, `the fork names its run folder:\n${r.out}\n${r.err}`);
  return resolve(root, m[1]);
}

/** Every continuation replays the parent's first `step − 1` steps as recorded, records its parent, and goes on live. */
async function assertContinues(parentFile: string, parent: TrajectoryRead, forkRun: string, step: number, count: number, agent: RegExp): Promise<void> {
  const files = forkTrajectories(forkRun);
  assert.equal(files.length, count, `${count} continuation(s): ${files.join(', ')}`);
  const launch = runLaunchRecordSchema.parse(JSON.parse(readFileSync(join(forkRun, 'launch.json'), 'utf8')));
  assert.deepEqual(launch.fork, { run: resolve(parentFile, '..', '..'), episode_id: task, trajectory: parentFile, step });
  for (const file of files) {
    const fork = await read(file);
    assert.deepEqual(fork.start?.fork, { run: resolve(parentFile, '..', '..'), episode_id: task, trajectory: parentFile, step }, `${file} records its parent`);
    assert.match(fork.start?.agent ?? '', agent);
    assert.equal(fork.end?.fork_divergence, undefined, `${file}: ${JSON.stringify(fork.end?.fork_divergence)}`);
    assert.equal(fork.end?.infrastructure, undefined, `${file}: ${fork.end?.error ?? ''}`);
    assert.ok(fork.steps.length >= step, `${file} goes on past the prefix (${fork.steps.length} steps)`);
    assert.ok(fork.start !== undefined && parent.start !== undefined);
    assert.equal(compareStep(asRecord(parent.start.observation), asRecord(fork.start.observation)), undefined, 'the reset matches');
    for (let i = 0; i < step - 1; i++) {
      const [recorded, replayed] = [parent.steps[i], fork.steps[i]];
      assert.ok(recorded !== undefined && replayed !== undefined);
      assert.equal(replayed.replayed, true, `step ${i + 1} is marked replayed`);
      assert.deepEqual(replayed.action, recorded.action, `step ${i + 1} is the parent's action`);
      const difference = compareStep(
        { observation: recorded.observation, reward: recorded.reward, done: recorded.done, terminationReason: recorded.termination_reason },
        { observation: replayed.observation, reward: replayed.reward, done: replayed.done, terminationReason: replayed.termination_reason },
      );
      assert.equal(difference, undefined, `step ${i + 1} came out as recorded: ${JSON.stringify(difference)}`);
    }
    const live = fork.steps.slice(step - 1);
    assert.ok(live.length > 0 && live.every((s) => s.replayed === undefined), 'the steps from the fork on are live');
    assert.equal(fork.end?.steps, fork.steps.length, 'the end counts the replayed steps too');
  }
}

function asRecord(observation: TrajectoryRead['steps'][number]['observation']) {
  return { observation, reward: 0, done: false, terminationReason: undefined };
}

for (const backend of ['local', 'docker'] as const) {
  describe(`gp trajectory fork on the ${backend} backend`, () => {
    const parentRun = join(dir, `parent-${backend}`);
    const parentFile = join(parentRun, 'trajectories', `${task}.jsonl`);
    let parent: TrajectoryRead;
    before(async () => {
      const r = await gp('rollout', sampleTasks, '--task', task, '--backend', backend, '--run-dir', parentRun);
      assert.equal(r.code, 0, `the parent rollout ran:\n${r.out}\n${r.err}`);
      parent = await read(parentFile);
      assert.ok(parent.steps.length >= 3, `the parent has a step 3 (${parent.steps.length} steps)`);
    });

    test('four rule-agent continuations from step 3 replay steps 1–2 as recorded and record their parent', async () => {
      const r = await gp('trajectory', 'fork', parentFile, '--step', '3', '--count', '4', '--agent', 'rule');
      assert.equal(r.code, 0, `${r.out}\n${r.err}`);
      assert.match(r.out, /Forking sample-calc-add \(task sample-calc-add\) at step 3: 4 continuations; steps 1\.\.2 are replayed first\./);
      assert.match(r.out, /gp rollout .* --fork-of \S+ --fork-step 3 /);
      const forkRun = runDirOf(r);
      assert.ok(forkRun.startsWith(`${parentRun}-fork-`), `${forkRun} lies beside its parent`);
      await assertContinues(parentFile, parent, forkRun, 3, 4, /^rule$/);
      for (const file of forkTrajectories(forkRun)) {
        const run = await read(file);
        assert.equal(run.start?.backend, backend, 'the fork runs on the backend its parent ran on');
      }
    });

    test('a continuation from step 3 with the embedded model asks the model from step 3 on', { timeout: 900_000 }, async () => {
      const r = await gp(
        'trajectory',
        'fork',
        parentFile,
        '--step',
        '3',
        '--agent',
        'model',
        '--set',
        'backends.planner_backend=embedded',
        '--set',
        'planner_sampling.max_new_tokens=96',
      );
      assert.equal(r.code, 0, `${r.out}\n${r.err}`);
      const forkRun = runDirOf(r);
      await assertContinues(parentFile, parent, forkRun, 3, 1, /^model /);
      const fork = await read(forkTrajectories(forkRun)[0] ?? '');
      const live = fork.steps.slice(2);
      assert.ok(
        live.some((s) => s.model !== undefined),
        'a live step records its model call',
      );
      assert.ok(
        fork.steps.slice(0, 2).every((s) => s.model === undefined && s.tokens === undefined),
        'the replayed steps spent no model call',
      );
      assert.equal(fork.end?.model?.replayed_steps, 2, 'the end says which steps no model of this episode took');
      assert.match(r.out, new RegExp(`model: \\d+/${fork.steps.length - 2} steps from its own replies`), 'the model share is of the live steps');
    });
  });
}

describe('a fork that cannot continue its parent', () => {
  const parentRun = join(dir, 'parent-altered');
  before(async () => {
    const r = await gp('rollout', sampleTasks, '--task', task, '--backend', 'local', '--run-dir', parentRun);
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  });

  test('a recording altered at step 2 stops the fork there, and it says what differs', async () => {
    const altered = join(dir, 'altered-run');
    cpSync(parentRun, altered, { recursive: true });
    const file = join(altered, 'trajectories', `${task}.jsonl`);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const at = lines.findIndex((l) => (JSON.parse(l) as { type: string; step?: number }).step === 2);
    const step = JSON.parse(lines[at] ?? '{}') as { reward: number };
    lines[at] = JSON.stringify({ ...step, reward: step.reward + 0.5 });
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await gp('trajectory', 'fork', file, '--step', '3', '--agent', 'rule');
    assert.equal(r.code, 1, `${r.out}\n${r.err}`);
    assert.match(r.err, /the replay diverged at step 2 \(reward\): recorded 0\.5; replayed 0\./);
    const fork = await read(forkTrajectories(runDirOf(r))[0] ?? '');
    assert.deepEqual(fork.end?.fork_divergence, { step: 2, where: 'reward', recorded: '0.5', replayed: '0' });
    assert.equal(fork.end?.termination_reason, 'error');
    assert.equal(fork.steps.length, 1, 'nothing after the divergence was run');
  });

  test('a recording whose reset was altered stops the fork before any step, and the fork still names its parent', async () => {
    const altered = join(dir, 'altered-reset');
    cpSync(parentRun, altered, { recursive: true });
    const file = join(altered, 'trajectories', `${task}.jsonl`);
    const [first = '', ...rest] = readFileSync(file, 'utf8').trimEnd().split('\n');
    const start = JSON.parse(first) as { observation: { step: number } };
    writeFileSync(file, `${[JSON.stringify({ ...start, observation: { ...start.observation, step: 7 } }), ...rest].join('\n')}\n`);
    const r = await gp('trajectory', 'fork', file, '--step', '2', '--agent', 'rule');
    assert.equal(r.code, 1, `${r.out}\n${r.err}`);
    assert.match(r.err, /the replay diverged at the reset \(observation\.step\): recorded 7; replayed 0\./);
    const fork = await read(forkTrajectories(runDirOf(r))[0] ?? '');
    assert.equal(fork.start?.fork?.trajectory, file);
    assert.equal(fork.steps.length, 0);
  });

  test('a step the episode does not have is refused before anything runs', async () => {
    const file = join(parentRun, 'trajectories', `${task}.jsonl`);
    const steps = (await read(file)).steps.length;
    for (const bad of ['0', String(steps + 1)]) {
      const r = await gp('trajectory', 'fork', file, '--step', bad);
      assert.equal(r.code, 2, `--step ${bad}: ${r.out}\n${r.err}`);
      assert.match(
        r.err,
        bad === '0'
          ? /--step must be|--step needs|at least 1/
          : new RegExp(`--step ${bad} is not a step of .*: it can be continued from step 1 to ${steps}\\.`),
      );
    }
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.startsWith('parent-altered-fork-')),
      [],
      'a refused fork leaves no run folder',
    );
  });
});
