/**
 * A run folder written before issue 38 renamed its fields (test/fixtures/runs/old-names, from the
 * environment service and trainRun.ts of that commit) opens with the same views and values as the
 * same folder written under the new names: the metrics page's lines and summary, the step-sample
 * table, the GRPO group view, and the trajectory's group. The new-names copy is made here, line by
 * line, with the renames listed in ARCHITECTURE.md's "Names" section.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';

import { buildGroupView, resolveGroup, RunEpisodeIndex } from '../../server/src/groups/index.js';
import { readMetrics, readMetricsFrom, readTrajectory, runLayout, summariseMetrics } from '../../server/src/runs/index.js';
import { readStepSamples } from '../../server/src/views/stepSamplesRead.js';
import { fixturePath } from '../support/fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'gp-old-names-'));
after(() => rmSync(root, { recursive: true, force: true }));

type Line = Record<string, unknown>;

/** `line` with `old` renamed to `name`, in the key's place. */
function rename(line: Line, old: string, name: string): Line {
  return Object.fromEntries(Object.entries(line).map(([key, value]) => [key === old ? name : key, value]));
}

/** Rewrites each line of `path` with `change`. */
function rewrite(path: string, change: (line: Line) => Line): void {
  const lines = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => change(JSON.parse(l) as Line));
  writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

const withGroupMember = (line: Line): Line =>
  typeof line['training'] === 'object' && line['training'] !== null ? { ...line, training: rename(line['training'] as Line, 'member', 'group_member') } : line;

function oldFolder(): string {
  const dir = join(root, 'old', 'run');
  cpSync(fixturePath('runs/old-names'), dir, { recursive: true });
  return dir;
}

function newFolder(): string {
  const dir = join(root, 'new', 'run');
  cpSync(fixturePath('runs/old-names'), dir, { recursive: true });
  const layout = runLayout(dir);
  rewrite(layout.metrics, (line) => rename(line, 'return', 'total_reward'));
  rewrite(layout.stepSamples, (line) => ({ ...line, episodes: (line['episodes'] as Line[]).map((e) => rename(e, 'return', 'total_reward')) }));
  rewrite(layout.events, withGroupMember);
  for (const file of readdirSync(join(dir, 'trajectories'))) rewrite(join(dir, 'trajectories', file), withGroupMember);
  return dir;
}

/** Everything the views show of a run folder, with the folder's own path taken out. */
async function views(dir: string): Promise<unknown> {
  const layout = runLayout(dir);
  const metrics = await readMetrics(layout.metrics);
  // Where the next read starts differs by the names' lengths; the lines read are what is compared.
  const { nextByte: _offset, ...chunk } = await readMetricsFrom(layout.metrics, 0);
  const samples = await readStepSamples(dir, null);
  const index = new RunEpisodeIndex(dir);
  const indexProblems = await index.refresh();
  const group = resolveGroup(index.all(), { kind: 'step', step: 1, taskId: 't1', groupId: null });
  assert.ok(typeof group !== 'string', String(group));
  const groupView = await buildGroupView(dir, group, { estimator: 'grpo', normByStd: true, failedMembers: null, assumed: null });
  const trajectories = await Promise.all(
    readdirSync(join(dir, 'trajectories'))
      .sort()
      .map(async (file) => (await readTrajectory(join(dir, 'trajectories', file)))?.start?.training),
  );
  const seen = { metrics, summary: summariseMetrics(metrics.records), chunk, samples, indexProblems, episodes: index.all(), groupView, trajectories };
  return JSON.parse(JSON.stringify(seen).replaceAll(dir, '<run>'));
}

test('a run folder written under the old names shows the same views and values as under the new ones', async () => {
  const [old, renamed] = await Promise.all([views(oldFolder()), views(newFolder())]);
  assert.deepEqual(old, renamed);
});

test('the old names are read as the new: returns, the mean return, each episode’s place in its group', async () => {
  const dir = oldFolder();
  const metrics = await readMetrics(runLayout(dir).metrics);
  assert.deepEqual(metrics.problems, []);
  assert.deepEqual(
    metrics.records.flatMap((l) => (l.source === 'env' ? [l.total_reward] : [])),
    [1, -0.5, 1],
  );
  assert.equal(summariseMetrics(metrics.records).meanTotalReward, 0.5);
  const samples = await readStepSamples(dir, 1);
  assert.deepEqual(samples.problems, []);
  assert.deepEqual(
    samples.samples?.episodes.map((e) => e.total_reward),
    [-0.5, 1, 1],
  );
  const index = new RunEpisodeIndex(dir);
  assert.deepEqual(await index.refresh(), []);
  assert.deepEqual(
    index.all().map((e) => [e.taskId, e.group?.group_member, e.totalReward]),
    [
      ['t1', 0, 1],
      ['t1', 1, -0.5],
      ['t2', 0, 1],
    ],
  );
  const group = resolveGroup(index.all(), { kind: 'step', step: 1, taskId: 't1', groupId: null });
  assert.ok(typeof group !== 'string', String(group));
  const view = await buildGroupView(dir, group, { estimator: 'grpo', normByStd: true, failedMembers: null, assumed: null });
  assert.ok(view.ok, JSON.stringify(view));
  assert.deepEqual(
    view.columns.map((c) => [c.groupMember, c.totalReward]),
    [
      [0, 1],
      [1, -0.5],
    ],
  );
});

test('the emitted trajectory schema accepts every line of a trajectory under the old names and the new, and a misspelt name under neither', () => {
  // An outside tool validates with schemas/trajectory.schema.json alone, as this test does with ajv.
  const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync('schemas/trajectory.schema.json', 'utf8')) as object);
  const linesOf = (dir: string) =>
    readdirSync(join(dir, 'trajectories')).flatMap((file) =>
      readFileSync(join(dir, 'trajectories', file), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line),
    );
  for (const dir of [oldFolder(), newFolder()]) {
    const lines = linesOf(dir);
    assert.ok(
      lines.some((l) => typeof l['training'] === 'object'),
      'the fixture has a training group',
    );
    for (const line of lines) assert.ok(validate(line), `${dir}: ${JSON.stringify(validate.errors)}`);
  }
  const start = linesOf(oldFolder()).find((l) => typeof l['training'] === 'object');
  assert.ok(start !== undefined);
  assert.equal(validate({ ...start, training: rename(start['training'] as Line, 'member', 'group_membr') }), false);
  assert.equal(validate({ ...start, training: { ...(start['training'] as Line), group_member: 0 } }), false, 'both spellings at once');
});
