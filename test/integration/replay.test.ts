/**
 * `gp trajectory replay` on real sandboxes: episodes of a real `gp rollout` of the sample tasks
 * (in containers and on local working copies) replay without divergence, and their repairs kept
 * the pre-images their patches need to be shown whole; a trajectory altered on
 * purpose reports the step that diverges with both sides; a run without its launch record says
 * how to name the task file, and does with `--tasks`. The replay leaves no container and writes
 * nothing into the recorded run.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Docker from 'dockerode';
import { runGp, type GpResult } from '../support/cli.js';
import { buildEpisodeModel, patchImages } from '../../server/src/episodes/index.js';
import { readTrajectory } from '../../server/src/runs/index.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-replay-it-'));
const sampleTasks = 'datasets/sample/tasks.jsonl';
const docker = new Docker();

after(() => rmSync(dir, { recursive: true, force: true }));

function gp(...args: string[]): Promise<GpResult> {
  return runGp(root, args);
}

const trajectoriesOf = (runDir: string): string[] => readdirSync(join(runDir, 'trajectories')).map((f) => join(runDir, 'trajectories', f));

for (const backend of ['local', 'docker'] as const) {
  describe(`replay on the ${backend} backend`, () => {
    const runDir = join(dir, `run-${backend}`);
    before(async () => {
      const r = await gp('rollout', sampleTasks, '--backend', backend, '--run-dir', runDir);
      assert.equal(r.code === 0 || r.code === 1, true, `the rollout ran:\n${r.out}\n${r.err}`);
    });

    test('every recorded episode replays without divergence, and nothing is written into the run', async () => {
      const before = readdirSync(runDir).sort();
      const testRuns = readFileSync(join(runDir, 'test_runs.jsonl'), 'utf8');
      for (const trajectory of trajectoriesOf(runDir)) {
        const r = await gp('trajectory', 'replay', trajectory);
        assert.equal(r.code, 0, `${trajectory}:\n${r.out}\n${r.err}`);
        assert.match(r.out, new RegExp(`on the ${backend} backend`));
        assert.match(r.out, /No divergence: (\d+) of \1 steps reproduced the recording \(replayed in [\d.]+ s; the original took [\d.]+ s\)/);
      }
      assert.deepEqual(readdirSync(runDir).sort(), before, 'the replay adds no file to the run');
      assert.equal(readFileSync(join(runDir, 'test_runs.jsonl'), 'utf8'), testRuns, 'nor a test run');
      if (backend === 'docker') {
        const left = await docker.listContainers({ all: true, filters: { label: ['graph-planner.task=sample-calc-add'] } });
        assert.deepEqual(
          left.filter((c) => c.Labels['graph-planner.run']?.startsWith('replay-')),
          [],
          'no replay container is left',
        );
      }
    });

    test('the run kept the pre-images of its candidates, so every patch rebuilds as whole files', async () => {
      const trajectory = join(runDir, 'trajectories', 'sample-calc-add.jsonl');
      const read = await readTrajectory(trajectory);
      assert.ok(read !== undefined);
      const model = buildEpisodeModel(read);
      const repair = model.steps.find((s) => s.kind === 'repair');
      const last = repair?.record.observation.last;
      assert.ok(
        last?.kind === 'repair' && last.candidates.every((c) => c.diff === '' || (c.preimages?.length ?? 0) > 0),
        'every candidate with a diff records its pre-images',
      );
      for (const ref of [
        { step: repair?.step ?? 0, candidate: 0 },
        { step: null, candidate: null },
      ]) {
        const images = await patchImages(trajectory, model, ref);
        assert.ok(images.ok, images.ok ? '' : images.message);
        assert.deepEqual(
          images.files.map((f) => [f.newPath, f.problem]),
          [['app/calc.py', null]],
        );
        assert.match(images.files[0]?.before ?? '', /return lhs - rhs/);
        assert.match(images.files[0]?.after ?? '', /return lhs \+ rhs/);
      }
    });

    test('an altered recording reports the step that diverges, with both sides', async () => {
      const original = join(runDir, 'trajectories', 'sample-calc-add.jsonl');
      const altered = join(runDir, 'trajectories', 'altered.jsonl');
      const lines = readFileSync(original, 'utf8').trimEnd().split('\n');
      // The read step's snippet as if the repository had held something else.
      const readLine = lines.findIndex((l) => l.includes('"kind":"read"'));
      assert.ok(readLine > 0, 'the episode has a read step');
      lines[readLine] = (lines[readLine] ?? '').replace('return lhs - rhs', 'return lhs - rhs  # edited');
      writeFileSync(altered, `${lines.join('\n')}\n`);
      try {
        const r = await gp('trajectory', 'replay', altered, '--json');
        assert.equal(r.code, 1, r.out + r.err);
        const report = JSON.parse(r.out) as { divergence?: { step: number; where: string; recorded: string; replayed: string }; replayed: number };
        assert.equal(report.divergence?.step, readLine, 'the read step (line n holds step n) diverges');
        assert.match(report.divergence?.where ?? '', /^observation\.last\.snippets\[\d\]\.text$/);
        assert.match(report.divergence?.recorded ?? '', /# edited/);
        assert.doesNotMatch(report.divergence?.replayed ?? '', /# edited/);
        assert.equal(report.replayed, readLine, 'the replay stops at the diverging step');
      } finally {
        rmSync(altered, { force: true });
      }
    });
  });
}

test('a run without launch.json asks for the task file, and replays with --tasks', async () => {
  const source = join(dir, 'run-local');
  const copy = join(dir, 'run-without-launch');
  cpSync(source, copy, { recursive: true });
  rmSync(join(copy, 'launch.json'));
  const trajectory = join(copy, 'trajectories', 'sample-version.jsonl');
  const refused = await gp('trajectory', 'replay', trajectory);
  assert.equal(refused.code, 3);
  assert.match(refused.err, /no launch\.json .*name the task file with --tasks FILE/);
  const r = await gp('trajectory', 'replay', trajectory, '--tasks', sampleTasks);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /No divergence/);
});

test('an untouched episode whose tests print object addresses replays without divergence (sample-arith-operator, issue 21)', async () => {
  const runDir = join(dir, 'run-addresses');
  const r = await gp('rollout', 'datasets/samples.jsonl', '--backend', 'local', '--task', 'sample-arith-operator', '--run-dir', runDir);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  const trajectory = join(runDir, 'trajectories', 'sample-arith-operator.jsonl');
  // The recording holds a default repr with its address, which the replay's process prints differently.
  assert.match(readFileSync(trajectory, 'utf8'), /object at 0x[0-9a-f]{8,}/);
  const replay = await gp('trajectory', 'replay', trajectory);
  assert.equal(replay.code, 0, `${replay.out}\n${replay.err}`);
  assert.match(replay.out, /No divergence: (\d+) of \1 steps reproduced the recording/);
});
