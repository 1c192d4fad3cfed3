/**
 * The group view's parts on the server: a GRPO group's advantages as Verl computes them, N
 * episodes aligned on a reference with the first divergence, the clipped texts the filters show,
 * and a run's episodes indexed by task, group and training step from its events, built from a
 * real trajectory (test/fixtures/trajectories) varied step by step.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import {
  alignGroup,
  buildGroupView,
  firstDivergence,
  grpoAdvantages,
  realOutcomeAdvantages,
  resolveGroup,
  RunEpisodeIndex,
} from '../../server/src/groups/index.js';
import { buildEpisodeModel, stepTexts, type EpisodeModel } from '../../server/src/episodes/index.js';
import { parseTrajectory, type RunEventInput } from '../../server/src/runs/index.js';
import { fixturePath } from '../support/fixtures.js';
import { advantageSettings } from '../../server/src/lsp/groupRequests.js';
import type { AdvantageSettings } from '../../server/src/groups/index.js';

const lines = readFileSync(fixturePath('trajectories/sample-calc-add.jsonl'), 'utf8').trim().split('\n');
const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);

/** The fixture's episode with its steps replaced by `steps` (indices into the fixture's steps, or a changed copy), renumbered. */
function variant(steps: readonly (number | Record<string, unknown>)[]): string {
  const body = steps.map((s, i) => ({ ...(typeof s === 'number' ? (records[s] as Record<string, unknown>) : s), step: i + 1 }));
  return [records[0], ...body, { ...records.at(-1), steps: body.length }].map((r) => JSON.stringify(r)).join('\n');
}

const model = (text: string): EpisodeModel => buildEpisodeModel(parseTrajectory(text));
/** Step 1 of the fixture expanding other nodes: the same kind of step, a different move. */
const otherExpand = {
  ...(records[1] as Record<string, unknown>),
  action: { type: 'explore', thought: 'Look elsewhere.', op: 'expand', anchors: [], nodes: ['file:tests/test_calc.py'], hop: 1, limit: 8 },
};

test('advantages are (r − mean) / (std + 1e-6) with the sample standard deviation, as Verl’s GRPO computes them', () => {
  const { mean, std, advantages } = grpoAdvantages([1, 0, 0, 1], { normByStd: true });
  assert.equal(mean, 0.5);
  // torch.std divides by n − 1: sqrt((4 × 0.25) / 3).
  assert.ok(Math.abs(std - Math.sqrt(1 / 3)) < 1e-12);
  const expected = 0.5 / (Math.sqrt(1 / 3) + 1e-6);
  advantages.forEach((a, i) => assert.ok(Math.abs(a - (i === 0 || i === 3 ? expected : -expected)) < 1e-12, `advantage ${i}: ${a}`));
  assert.deepEqual(grpoAdvantages([0.3, 0.3, 0.3], { normByStd: true }).advantages, [0, 0, 0], 'equal rewards teach nothing');
});

test('a group of one has mean 0 and std 1, and without std normalisation the advantage is r − mean', () => {
  const one = grpoAdvantages([0.8], { normByStd: true });
  assert.deepEqual([one.mean, one.std], [0, 1]);
  assert.ok(Math.abs((one.advantages[0] ?? 0) - 0.8 / (1 + 1e-6)) < 1e-12);
  assert.deepEqual(grpoAdvantages([2, 0], { normByStd: false }).advantages, [1, -1]);
});

test('N rollouts align on the first: shared moves on one row, a skipped step a gap, an extra step its own row, the first divergence marked', () => {
  const reference = model(variant([1, 2, 3, 4]));
  const same = model(variant([1, 2, 3, 4]));
  const skipped = model(variant([1, 3, 4]));
  const extra = model(variant([1, otherExpand, 2, 3, 4]));
  const rows = alignGroup([reference, same, skipped, extra], 0);
  const steps = rows.map((r) => r.cells.map((c) => c?.step ?? null));
  assert.deepEqual(steps, [
    [1, 1, 1, 1],
    [null, null, null, 2],
    [2, 2, null, 3],
    [3, 3, 2, 4],
    [4, 4, 3, 5],
  ]);
  assert.deepEqual(
    rows.map((r) => r.same),
    [true, false, false, true, true],
  );
  assert.equal(firstDivergence(rows), 1);
  assert.deepEqual(rows[1]?.differs, [false, false, false, true], 'the inserted step differs from the reference, which has none there');
  assert.equal(firstDivergence(alignGroup([reference, same], 0)), undefined, 'identical rollouts never diverge');
  for (const [column, m] of [reference, same, skipped, extra].entries()) {
    assert.deepEqual(
      rows.flatMap((r) => (r.cells[column] === undefined ? [] : [r.cells[column]?.step])),
      m.steps.map((s) => s.step),
      `column ${column} keeps every step once, in order`,
    );
  }
});

test('a rollout that did something else on the reference’s step differs on that row; one that stopped early leaves gaps', () => {
  const reference = model(variant([1, 2, 3, 4]));
  const changed = model(variant([otherExpand, 2, 3, 4]));
  const short = model(variant([1, 2]));
  const rows = alignGroup([reference, changed, short], 0);
  assert.equal(firstDivergence(rows), 0);
  assert.deepEqual(rows[0]?.differs, [false, true, false]);
  assert.deepEqual(
    rows.map((r) => r.cells[2]?.step ?? null),
    [1, 2, null, null],
  );
});

test('the texts the filters show: the thought, the result in a line, the observation, each clipped', () => {
  const m = model(variant([1, 2, 3, 4]));
  const read = stepTexts(m.steps[1] as EpisodeModel['steps'][number]);
  assert.equal(read.thought, 'Read the likeliest places.');
  assert.match(read.result ?? '', /^app\/calc\.py:\d+-\d+/);
  assert.ok((read.observation ?? '').length <= 401);
  const submit = stepTexts(m.steps[3] as EpisodeModel['steps'][number]);
  assert.match(submit.result ?? '', /^resolved: 2 passed, 0 failed/);
});

function runWithEvents(events: readonly RunEventInput[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'gp-groups-'));
  mkdirSync(join(dir, 'trajectories'));
  writeFileSync(join(dir, 'events.jsonl'), events.map((e) => JSON.stringify({ ts: '2026-01-01T00:00:00Z', ...e })).join('\n') + '\n');
  return dir;
}

const ended = (id: string, task: string, reward: number, training?: { group_id: string; group_member: number; step?: number }): RunEventInput => ({
  kind: 'episode-end',
  episode_id: id,
  task_id: task,
  resolved: reward > 0,
  steps: 4,
  total_reward: reward,
  termination_reason: 'submitted',
  duration_ms: 10,
  ...(training === undefined ? {} : { training }),
});

test('a training run’s episodes are indexed by step and group; a running member takes its group’s step; the step’s groups are the choices', async () => {
  const dir = runWithEvents([
    { kind: 'episode-start', episode_id: 'a-g1-0', task_id: 'a', training: { group_id: 'g1', group_member: 0 } },
    { kind: 'episode-start', episode_id: 'a-g1-1', task_id: 'a', training: { group_id: 'g1', group_member: 1 } },
    { kind: 'episode-start', episode_id: 'b-g2-0', task_id: 'b', training: { group_id: 'g2', group_member: 0 } },
    ended('a-g1-1', 'a', 1, { group_id: 'g1', group_member: 1, step: 1 }),
    ended('b-g2-0', 'b', 0, { group_id: 'g2', group_member: 0, step: 1 }),
    { kind: 'episode-start', episode_id: 'a-g3-0', task_id: 'a', training: { group_id: 'g3', group_member: 0 } },
    ended('a-g3-0', 'a', 0.5, { group_id: 'g3', group_member: 0, step: 2 }),
  ]);
  const index = new RunEpisodeIndex(dir);
  assert.deepEqual(await index.refresh(), []);
  const group = resolveGroup(index.all(), { kind: 'step', step: 1, taskId: 'a', groupId: null });
  assert.ok(typeof group !== 'string');
  assert.deepEqual(
    group.members.map((m) => [m.episodeId, m.state, m.totalReward]),
    [
      ['a-g1-0', 'running', null],
      ['a-g1-1', 'resolved', 1],
    ],
  );
  assert.deepEqual(group.steps, [1, 2]);
  assert.deepEqual(
    group.choices.map((c) => [c.taskId, c.groupId, c.size]),
    [
      ['a', 'g1', 2],
      ['b', 'g2', 1],
    ],
  );
  const latest = resolveGroup(index.all(), { kind: 'step', step: null, taskId: null, groupId: null });
  assert.ok(typeof latest !== 'string');
  assert.deepEqual([latest.step, latest.groupId], [2, 'g3']);
  const byEpisode = resolveGroup(index.all(), { kind: 'episode', episodeId: 'a-g1-0' });
  assert.ok(typeof byEpisode !== 'string');
  assert.deepEqual([byEpisode.step, byEpisode.groupId, byEpisode.members.length], [1, 'g1', 2]);
  assert.match(
    String(resolveGroup(index.all(), { kind: 'step', step: 7, taskId: null, groupId: null })),
    /No GRPO group ended in training step 7; the run's steps with groups are 1, 2/,
  );
  // Appended events are read on the next refresh, and only they.
  appendFileSync(
    join(dir, 'events.jsonl'),
    `${JSON.stringify({ ts: 'x', ...ended('a-g1-0', 'a', 0, { group_id: 'g1', group_member: 0, step: 1 }) })}\nnot json\n`,
  );
  assert.equal((await index.refresh()).length, 1, 'a bad line is a problem, not an exception');
  const settled = resolveGroup(index.all(), { kind: 'step', step: 1, taskId: 'a', groupId: null });
  assert.ok(typeof settled !== 'string');
  assert.deepEqual(
    settled.members.map((m) => m.totalReward),
    [0, 1],
  );
});

test('outside training a task’s episodes are one set, and a run without groups says that no step can be shown', async () => {
  const dir = runWithEvents([
    { kind: 'episode-start', episode_id: 'a_1', task_id: 'a' },
    { kind: 'episode-start', episode_id: 'a_2', task_id: 'a' },
    ended('a_1', 'a', 1),
    ended('a_2', 'a', 0),
  ]);
  const index = new RunEpisodeIndex(dir);
  await index.refresh();
  const set = resolveGroup(index.all(), { kind: 'episode', episodeId: 'a_2' });
  assert.ok(typeof set !== 'string');
  assert.deepEqual([set.isTrainingGroup, set.members.map((m) => m.episodeId)], [false, ['a_1', 'a_2']]);
  assert.match(String(resolveGroup(index.all(), { kind: 'step', step: null, taskId: null, groupId: null })), /no training episodes with a GRPO group/);
});

test("a rollout task's attempts are the group view's columns in attempt order, as the Runs view lists them, whatever order they started in", async () => {
  // A resumed run starts the attempts it had not finished after those of the first process.
  const dir = runWithEvents([
    { kind: 'episode-start', episode_id: 'a#10', task_id: 'a' },
    { kind: 'episode-start', episode_id: 'a#2', task_id: 'a' },
    { kind: 'episode-start', episode_id: 'a#1', task_id: 'a' },
    ended('a#10', 'a', 1),
    ended('a#2', 'a', 0),
    ended('a#1', 'a', 1),
  ]);
  const index = new RunEpisodeIndex(dir);
  await index.refresh();
  const group = resolveGroup(index.all(), { kind: 'task', taskId: 'a' });
  assert.ok(typeof group !== 'string');
  assert.deepEqual(
    group.members.map((m) => m.episodeId),
    ['a#1', 'a#2', 'a#10'],
  );
});

test('the view of a group: rewards and advantages per column, aligned rows with texts, and an unreadable trajectory said', async () => {
  const dir = runWithEvents([
    { kind: 'episode-start', episode_id: 'e0', task_id: 'sample-calc-add', training: { group_id: 'g', group_member: 0 } },
    { kind: 'episode-start', episode_id: 'e1', task_id: 'sample-calc-add', training: { group_id: 'g', group_member: 1 } },
    { kind: 'episode-start', episode_id: 'e2', task_id: 'sample-calc-add', training: { group_id: 'g', group_member: 2 } },
    ended('e0', 'sample-calc-add', 1, { group_id: 'g', group_member: 0, step: 3 }),
    ended('e1', 'sample-calc-add', 0, { group_id: 'g', group_member: 1, step: 3 }),
    ended('e2', 'sample-calc-add', 0, { group_id: 'g', group_member: 2, step: 3 }),
  ]);
  writeFileSync(join(dir, 'trajectories', 'e0.jsonl'), variant([1, 2, 3, 4]));
  writeFileSync(join(dir, 'trajectories', 'e1.jsonl'), variant([1, otherExpand, 3, 4]));
  const index = new RunEpisodeIndex(dir);
  await index.refresh();
  const group = resolveGroup(index.all(), { kind: 'step', step: 3, taskId: null, groupId: null });
  assert.ok(typeof group !== 'string');
  const view = await buildGroupView(dir, group, { estimator: 'grpo', normByStd: true, failedMembers: null, assumed: null });
  assert.ok(view.ok);
  assert.deepEqual(
    view.columns.map((c) => [c.episodeId, c.groupMember, c.totalReward]),
    [
      ['e0', 0, 1],
      ['e1', 1, 0],
      ['e2', 2, 0],
    ],
  );
  const { advantages } = grpoAdvantages([1, 0, 0], { normByStd: true });
  assert.deepEqual(
    view.columns.map((c) => c.advantage),
    advantages,
  );
  assert.match(view.columns[2]?.problem ?? '', /cannot be read/);
  assert.equal(view.divergence, 0, 'a rollout with no readable step is missing from the first row already');
  assert.deepEqual(
    view.rows[1]?.cells.map((c) => c?.differs ?? null),
    [false, true, null],
    'the second rollout parts from the first at its second step',
  );
  assert.equal(view.rows[0]?.cells[0]?.texts.thought, 'Expand around what the issue points at.');
  assert.equal(view.advantage.note, null);
  const dr = await buildGroupView(dir, group, { estimator: 'grpo', normByStd: false, failedMembers: null, assumed: null });
  assert.ok(dr.ok);
  assert.match(dr.advantage.note ?? '', /norm_adv_by_std_in_grpo is off/);
  assert.deepEqual(
    dr.columns.map((c) => c.advantage),
    [1 - 1 / 3, -1 / 3, -1 / 3],
  );
});

interface SharedCase {
  readonly name: string;
  readonly rule: 'exclude' | 'drop_group';
  readonly norm: boolean;
  readonly rows: readonly [number, boolean, string][];
  readonly advantages: readonly number[];
}

test('GRPO over real outcomes gives each shared case the advantages the Python estimator computed for it', () => {
  // cases.json is written by python/tests/real_outcome_cases.py with the real estimator, and a
  // Python test checks it still matches: the group view shows what the trainer used.
  const { cases } = JSON.parse(readFileSync(fixturePath('grpo-real-outcomes/cases.json'), 'utf8')) as { cases: SharedCase[] };
  assert.ok(cases.length >= 10);
  for (const c of cases) {
    const byGroup = new Map<string, number[]>();
    c.rows.forEach(([, , uid], row) => byGroup.set(uid, [...(byGroup.get(uid) ?? []), row]));
    const got: number[] = Array.from({ length: c.rows.length }, () => Number.NaN);
    for (const rows of byGroup.values()) {
      const { advantages } = realOutcomeAdvantages(
        rows.map((r) => c.rows[r]?.[0] ?? 0),
        rows.map((r) => c.rows[r]?.[1] ?? false),
        { normByStd: c.norm, rule: c.rule },
      );
      rows.forEach((r, i) => (got[r] = advantages[i] ?? Number.NaN));
    }
    got.forEach((a, i) => assert.ok(Math.abs(a - (c.advantages[i] ?? Number.NaN)) < 2e-6, `${c.name}, row ${i}: ${a} against ${c.advantages[i]}`));
  }
});

test('a group without failures gets exactly plain GRPO’s numbers; a failure is left out, or drops the group, by the rule', () => {
  const rewards = [1, 0, 0.5, 1];
  const all = [true, true, true, true];
  assert.deepEqual(
    realOutcomeAdvantages(rewards, all, { normByStd: true, rule: 'exclude' }).advantages,
    grpoAdvantages(rewards, { normByStd: true }).advantages,
  );
  assert.deepEqual(
    realOutcomeAdvantages(rewards, all, { normByStd: true, rule: 'drop_group' }).advantages,
    grpoAdvantages(rewards, { normByStd: true }).advantages,
  );
  // The issue's example: three resolved and one lost host. Plain GRPO credits the three with +0.5.
  const lost = realOutcomeAdvantages([1, 1, 1, 0], [true, true, true, false], { normByStd: false, rule: 'exclude' });
  assert.deepEqual([lost.advantages, lost.mean, lost.counted], [[0, 0, 0, 0], 1, [true, true, true, false]]);
  assert.deepEqual(grpoAdvantages([1, 1, 1, 0], { normByStd: false }).advantages, [0.25, 0.25, 0.25, -0.75]);
  const dropped = realOutcomeAdvantages([1, 0, 1, 0], [true, true, true, false], { normByStd: true, rule: 'drop_group' });
  assert.deepEqual([dropped.advantages, dropped.mean, dropped.counted], [[0, 0, 0, 0], null, [false, false, false, false]]);
  const one = realOutcomeAdvantages([1, 0, 0], [true, false, false], { normByStd: true, rule: 'exclude' });
  assert.deepEqual([one.advantages, one.mean], [[0, 0, 0], null], 'one outcome has nothing to be compared with');
});

function groupWithFailures(): string {
  const dir = runWithEvents([
    ...[0, 1, 2, 3].map((m) => ({ kind: 'episode-start' as const, episode_id: `e${m}`, task_id: 't', training: { group_id: 'g', group_member: m } })),
    ended('e0', 't', 1, { group_id: 'g', group_member: 0, step: 1 }),
    ended('e1', 't', 0, { group_id: 'g', group_member: 1, step: 1 }),
    ended('e2', 't', 0.5, { group_id: 'g', group_member: 2, step: 1 }),
    {
      ...ended('e3', 't', -0.1, { group_id: 'g', group_member: 3, step: 1 }),
      termination_reason: 'error',
      infrastructure: { code: 'host-lost', cause: 'node-b stopped answering' },
    } as RunEventInput,
  ]);
  return dir;
}

test('the group view leaves a member without an outcome out of its group’s figures and says why, under the run’s rule', async () => {
  const dir = groupWithFailures();
  const index = new RunEpisodeIndex(dir);
  await index.refresh();
  const group = resolveGroup(index.all(), { kind: 'step', step: 1, taskId: null, groupId: null });
  assert.ok(typeof group !== 'string');
  assert.deepEqual(
    group.members.map((m) => m.noOutcome),
    [null, null, null, 'host-lost'],
  );
  const view = await buildGroupView(dir, group, { estimator: 'grpo_real_outcomes', normByStd: true, failedMembers: 'exclude', assumed: null });
  assert.ok(view.ok);
  const expected = grpoAdvantages([1, 0, 0.5], { normByStd: true });
  assert.deepEqual(
    view.columns.map((c) => [c.noOutcome, c.counted, c.totalReward]),
    [
      [null, true, 1],
      [null, true, 0],
      [null, true, 0.5],
      ['host-lost', false, 0],
    ],
    'the trainer was given 0 for the lost member',
  );
  assert.deepEqual(
    view.columns.map((c) => c.advantage),
    [...expected.advantages, 0],
  );
  assert.deepEqual([view.advantage.mean, view.advantage.std, view.advantage.failedMembers], [expected.mean, expected.std, 'exclude']);
  assert.match(view.advantage.note ?? '', /1 of the 4 rollouts reached no outcome \(host-lost\): it is left out of the group’s mean and standard deviation/);

  const dropped = await buildGroupView(dir, group, { estimator: 'grpo_real_outcomes', normByStd: true, failedMembers: 'drop_group', assumed: null });
  assert.ok(dropped.ok);
  assert.deepEqual([dropped.columns.map((c) => [c.advantage, c.counted]), dropped.advantage.mean], [[0, 1, 2, 3].map(() => [0, false]), null]);
  assert.match(dropped.advantage.note ?? '', /drop_group: the whole group contributes nothing/);

  // A run from before GRPO over real outcomes trained with Verl's plain GRPO, which counted the 0.
  const plain = await buildGroupView(dir, group, { estimator: 'grpo', normByStd: true, failedMembers: null, assumed: null });
  assert.ok(plain.ok);
  assert.deepEqual(
    plain.columns.map((c) => c.advantage),
    grpoAdvantages([1, 0, 0.5, 0], { normByStd: true }).advantages,
  );
  assert.match(plain.advantage.note ?? '', /plain grpo, which counted it as reward 0/);
});

test('a member closed as interrupted, or still running when the run ended, reached no outcome', async () => {
  const dir = runWithEvents([
    ...[0, 1, 2].map((m) => ({ kind: 'episode-start' as const, episode_id: `e${m}`, task_id: 't', training: { group_id: 'g', group_member: m } })),
    ended('e0', 't', 1, { group_id: 'g', group_member: 0, step: 1 }),
    { ...ended('e1', 't', 0, { group_id: 'g', group_member: 1, step: 1 }), termination_reason: 'interrupted' } as RunEventInput,
    { kind: 'run-end', state: 'failed' },
  ]);
  const index = new RunEpisodeIndex(dir);
  await index.refresh();
  const group = resolveGroup(index.all(), { kind: 'step', step: 1, taskId: null, groupId: null });
  assert.ok(typeof group !== 'string');
  assert.deepEqual(
    group.members.map((m) => [m.state, m.noOutcome]),
    [
      ['resolved', null],
      ['interrupted', 'interrupted'],
      ['interrupted', 'interrupted'],
    ],
  );
  const view = await buildGroupView(dir, group, { estimator: 'grpo_real_outcomes', normByStd: true, failedMembers: 'exclude', assumed: null });
  assert.ok(view.ok);
  assert.deepEqual(
    view.columns.map((c) => c.advantage),
    [0, 0, 0],
  );
  assert.match(
    view.advantage.note ?? '',
    /2 of the 3 rollouts reached no outcome \(interrupted\); with fewer than two outcomes left the group contributes nothing/,
  );
});

test('the run’s estimator and rule come from its resolved config; a config without failed_members predates them and ran plain GRPO', async () => {
  const settingsOf = async (yaml: string | null): Promise<AdvantageSettings> => {
    const dir = mkdtempSync(join(tmpdir(), 'gp-groups-config-'));
    if (yaml !== null) writeFileSync(join(dir, 'resolved_config.yaml'), yaml);
    return advantageSettings(dir);
  };
  assert.deepEqual(await settingsOf('training:\n  adv_estimator: grpo\n  failed_members: drop_group\n'), {
    estimator: 'grpo_real_outcomes',
    normByStd: true,
    failedMembers: 'drop_group',
    assumed: null,
  });
  assert.deepEqual(await settingsOf('training:\n  adv_estimator: grpo\n'), { estimator: 'grpo', normByStd: true, failedMembers: null, assumed: null });
  assert.deepEqual(
    await settingsOf(
      'training:\n  adv_estimator: grpo\n  failed_members: exclude\nverl_overrides:\n  algorithm:\n    adv_estimator: grpo\n    norm_adv_by_std_in_grpo: false\n',
    ),
    { estimator: 'grpo', normByStd: false, failedMembers: null, assumed: null },
    'verl_overrides naming Verl’s own grpo wins',
  );
  assert.deepEqual(await settingsOf('training:\n  adv_estimator: rloo\n  failed_members: exclude\n'), {
    estimator: 'rloo',
    normByStd: true,
    failedMembers: null,
    assumed: null,
  });
  const missing = await settingsOf(null);
  assert.deepEqual([missing.estimator, missing.failedMembers], ['grpo_real_outcomes', 'exclude']);
  assert.match(missing.assumed ?? '', /cannot be read/);
});
