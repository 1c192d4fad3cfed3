/**
 * What the Runs view shows of a run's episodes (extension/src/views/runsText.ts): grouped by task
 * once a task has several attempts, each task with its outcomes, and the Compare picker's items
 * (extension/src/episodePicker.ts) sorted by task and attempt with their outcomes (issue 27).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickerEntries, type FoundTrajectory } from '../../extension/src/episodePicker.js';
import {
  describeForkRow,
  describeRun,
  describeTask,
  forkRowLabel,
  forksOf,
  localTime,
  noEpisodeText,
  runChildren,
  runIcon,
  runLabel,
  runTitle,
  taskIcon,
} from '../../extension/src/views/runsText.js';
import type { EpisodeSummary, RunSummary } from '../../server/src/protocol/runsView.js';

// Local times are read in UTC here (Node reads TZ again when it changes), so the expected labels are the same on every machine.
process.env['TZ'] = 'UTC';

function episode(
  episodeId: string,
  taskId: string,
  state: EpisodeSummary['state'],
  totalReward: number | null = state === 'resolved' ? 1 : state === 'running' ? null : 0,
): EpisodeSummary {
  return {
    episodeId,
    taskId,
    state,
    steps: state === 'running' ? null : 4,
    totalReward,
    terminationReason: state === 'running' ? null : 'submitted',
    sandboxHost: null,
    trajectory: `/w/outputs/run-a/trajectories/${episodeId}.jsonl`,
  };
}

test('a run whose tasks ran once each lists its episodes, sorted by task', () => {
  const children = runChildren([episode('b', 'b', 'resolved'), episode('a', 'a', 'unresolved')]);
  assert.equal(children.grouped, false);
  assert.deepEqual(children.grouped ? [] : children.episodes.map((e) => e.episodeId), ['a', 'b']);
});

test('a run with several attempts per task lists tasks, each with its attempts in order, however they arrived', () => {
  const arrived = [
    episode('t2#2', 't2', 'resolved'),
    episode('t10#1', 't10', 'unresolved'),
    episode('t2#10', 't2', 'running'),
    episode('t2#1', 't2', 'resolved'),
    episode('t10#2', 't10', 'error'),
  ];
  const children = runChildren(arrived);
  assert.equal(children.grouped, true);
  assert.deepEqual(children.grouped ? children.tasks.map((t) => [t.taskId, t.episodes.map((e) => e.episodeId)]) : [], [
    ['t2', ['t2#1', 't2#2', 't2#10']],
    ['t10', ['t10#1', 't10#2']],
  ]);
});

test('a task row says how many attempts were resolved, their mean reward and what still runs, with an icon for the mix', () => {
  const some = { taskId: 't', episodes: [episode('t#1', 't', 'resolved'), episode('t#2', 't', 'unresolved'), episode('t#3', 't', 'resolved', 0.5)] };
  assert.equal(describeTask(some), '2/3 resolved · mean reward 0.50');
  assert.deepEqual(taskIcon(some), { id: 'pass', color: 'charts.yellow' });
  const running = { taskId: 't', episodes: [episode('t#1', 't', 'resolved'), episode('t#2', 't', 'running')] };
  assert.equal(describeTask(running), '1/2 resolved · mean reward 1.00 · 1 running');
  assert.equal(taskIcon(running).id, 'sync~spin');
  const all = { taskId: 't', episodes: [episode('t#1', 't', 'resolved'), episode('t#2', 't', 'resolved')] };
  assert.equal(taskIcon(all).id, 'pass-filled');
  const none = { taskId: 't', episodes: [episode('t#1', 't', 'unresolved'), episode('t#2', 't', 'error')] };
  assert.equal(describeTask(none), '0/2 resolved · mean reward 0.00 · 1 errored');
  assert.equal(taskIcon(none).id, 'circle-slash');
});

const found = (run: string, ep: EpisodeSummary | undefined, stem = ep?.episodeId ?? 'x'): FoundTrajectory => ({
  path: `/w/outputs/${run}/trajectories/${stem}.jsonl`,
  run,
  episode: ep,
});

test('the Compare picker names each episode as the Runs view does, with its outcome, sorted by task then attempt, newest run first', () => {
  const items = [
    found('run-2026-11-25', episode('b#1', 'b', 'resolved')),
    found('run-2026-11-26', episode('a#10', 'a', 'unresolved')),
    found('run-2026-11-26', episode('a#2', 'a', 'resolved')),
    found('run-2026-11-25', episode('a#2', 'a', 'error')),
  ];
  const { sameTask, rest } = pickerEntries(items, undefined, Date.parse('2026-11-26T18:00:00.000Z'));
  assert.deepEqual(sameTask, []);
  assert.deepEqual(
    rest.map((e) => `${e.label} | ${e.description}`),
    [
      '$(pass-filled) a#2 | resolved · reward 1.00 · 4 steps · run-2026-11-26',
      '$(error) a#2 | error · reward 0.00 · 4 steps · run-2026-11-25',
      '$(circle-slash) a#10 | unresolved · reward 0.00 · 4 steps · run-2026-11-26',
      '$(pass-filled) b#1 | resolved · reward 1.00 · 4 steps · run-2026-11-25',
    ],
  );
});

test('the Compare picker names a run as the Runs view labels it', () => {
  const [entry] = pickerEntries(
    [found('attempts-rollout-20261126-112343', episode('a#1', 'a', 'resolved'))],
    undefined,
    Date.parse('2026-11-26T18:00:00.000Z'),
  ).rest;
  assert.equal(entry?.description, 'resolved · reward 1.00 · 4 steps · attempts 11:23:43');
});

test('comparing with an episode puts the other attempts at its task first and leaves it out', () => {
  const first = found('r', episode('a#1', 'a', 'resolved'));
  const items = [first, found('r', episode('b#1', 'b', 'resolved')), found('r', episode('a#2', 'a', 'running')), found('old', undefined, 'a_3-0cc26b3c')];
  const { sameTask, rest } = pickerEntries(items, first, Date.parse('2026-11-26T18:00:00.000Z'));
  assert.deepEqual(
    sameTask.map((e) => e.label),
    ['$(sync) a#2', '$(file) a_3-0cc26b3c'],
    'a file an older version named is known by its stem, under its task',
  );
  assert.deepEqual(
    rest.map((e) => e.label),
    ['$(pass-filled) b#1'],
  );
});

test('a run is labelled by its experiment and the local time of its default stamp, so its state and result fit beside it', () => {
  const sameDay = Date.parse('2026-11-26T18:00:00.000Z');
  assert.equal(runLabel('attempts-rollout-20261126-112343', sameDay), 'attempts 11:23:43');
  assert.equal(runLabel('sample-eval-20261126-112343-2', sameDay), 'sample 11:23:43 (2)', 'the second launch of that second');
  assert.equal(runLabel('my-exp-train-20261125-235959', sameDay), 'my-exp 25 Nov 23:59:59', 'another day says which');
  assert.equal(runLabel('tests-20261126-112343', sameDay), 'tests 11:23:43');
  assert.equal(runLabel('first', sameDay), 'first', 'a name given with --run-name shows whole');
  assert.equal(runLabel('x-rollout-20261399-112343', sameDay), 'x-rollout-20261399-112343', 'a stamp that is no date shows whole');
  assert.equal(runLabel('-20261126-112343', sameDay), '-20261126-112343');
});

test('each kind of run has its own icon in the colour of its state; a running run spins whatever its kind (issue 37)', () => {
  const kinds = ['rollout', 'eval', 'train', 'verify'];
  const icons = kinds.map((kind) => runIcon({ state: 'finished', kind, problem: null }).id);
  assert.equal(new Set(icons).size, kinds.length, `every kind its own icon: ${icons.join(', ')}`);
  assert.ok(!icons.includes(runIcon({ state: 'finished', kind: null, problem: null }).id), 'a run of no known kind is not shown as one');
  assert.deepEqual(runIcon({ state: 'failed', kind: 'train', problem: null }), { id: 'rocket', color: 'testing.iconFailed' });
  assert.deepEqual(runIcon({ state: 'finished', kind: 'train', problem: null }), { id: 'rocket', color: 'testing.iconPassed' });
  assert.equal(runIcon({ state: 'running', kind: 'train', problem: null }).id, 'sync~spin');
  assert.equal(runIcon({ state: 'unknown', kind: null, problem: 'status.json is not JSON' }).id, 'warning');
});

test('a run has one name: its label after its kind, as the notice, the progress and the status bar say it', () => {
  const sameDay = Date.parse('2026-11-27T18:00:00.000Z');
  assert.equal(runTitle({ name: 'sample-rollout-20261127-174735', kind: 'rollout' }, sameDay), 'Rollout sample 17:47:35');
  assert.equal(runTitle({ name: 'train_smoke-train-20261127-174735', kind: 'train' }, sameDay), 'Training train_smoke 17:47:35');
  assert.equal(runTitle({ name: 'mine', kind: null }, sameDay), 'Run mine');
});

test('a tooltip’s times are local, as the labels are, not the UTC ISO stamps the files keep', () => {
  assert.equal(localTime('2026-11-27T17:47:35.120Z'), '27 Nov 2026 17:47:35');
  assert.equal(localTime(null), null);
  assert.equal(localTime('not a time'), 'not a time');
});

test('a run that failed before any episode was planned says why in its row, not 0/0 resolved (issue 37)', () => {
  const run: RunSummary = {
    dir: '/w/outputs/b',
    name: 'b',
    root: '/w/outputs',
    state: 'failed',
    stale: false,
    kind: 'rollout',
    command: 'gp rollout bad.jsonl',
    agent: null,
    episodes: { total: 0, finished: 0, resolved: 0, errored: 0 },
    backend: null,
    model: null,
    nodes: [],
    startedAt: '2026-11-27T17:47:35Z',
    endedAt: '2026-11-27T17:47:37Z',
    exitReason: 'bad.jsonl:1:1 task_id: Invalid input',
    problem: null,
    hasReport: false,
    hasLog: true,
    hasMetrics: false,
    relaunchable: false,
    fork: null,
  };
  assert.equal(describeRun(run, Date.now()), 'failed · 2s · rollout · bad.jsonl:1:1 task_id: Invalid input');
  assert.equal(
    describeRun({ ...run, state: 'finished', episodes: { total: 2, finished: 2, resolved: 1, errored: 0 }, exitReason: null }, Date.now()),
    '1/2 resolved · finished · 2s · rollout',
  );
});

test('a run with no episode says why in its place: still starting, a verification, or ended before any began with its reason', () => {
  const base: RunSummary = {
    dir: '/w/outputs/b',
    name: 'b',
    root: '/w/outputs',
    state: 'running',
    stale: false,
    kind: 'rollout',
    command: 'gp rollout bad.jsonl',
    agent: null,
    episodes: null,
    backend: null,
    model: null,
    nodes: [],
    startedAt: '2026-11-27T17:47:35Z',
    endedAt: null,
    exitReason: null,
    problem: null,
    hasReport: false,
    hasLog: true,
    hasMetrics: false,
    relaunchable: false,
    fork: null,
  };
  assert.equal(noEpisodeText(base), 'No episode has started yet.');
  assert.match(noEpisodeText({ ...base, kind: 'verify' }), /A verification runs no episodes/);
  assert.equal(
    noEpisodeText({ ...base, state: 'failed', exitReason: 'bad.jsonl:1:1\ntask_id: Invalid input' }),
    'It ended before any episode started: bad.jsonl:1:1 task_id: Invalid input',
  );
  assert.equal(noEpisodeText({ ...base, state: 'interrupted' }), 'It was interrupted before any episode started');
  assert.ok(!noEpisodeText({ ...base, state: 'failed', exitReason: 'x\u001b[31mred' }).includes('\u001b'), 'no control code reaches the tree');
});

test('a fork reads as one under the episode it continues and names whose fork it is among the runs', () => {
  const parent: RunSummary = {
    dir: '/w/outputs/sample-rollout-20261126-112343',
    name: 'sample-rollout-20261126-112343',
    root: '/w/outputs',
    state: 'finished',
    stale: false,
    kind: 'rollout',
    command: 'gp rollout tasks.jsonl',
    agent: 'rule',
    episodes: { total: 1, finished: 1, resolved: 1, errored: 0 },
    backend: null,
    model: null,
    nodes: [],
    startedAt: '2026-11-26T11:23:43Z',
    endedAt: '2026-11-26T11:23:50Z',
    exitReason: null,
    problem: null,
    hasReport: true,
    hasLog: true,
    hasMetrics: false,
    relaunchable: true,
    fork: null,
  };
  const fork = (stamp: string, step: number, startedAt: string): RunSummary => ({
    ...parent,
    dir: `${parent.dir}-fork-${stamp}`,
    name: `${parent.name}-fork-${stamp}`,
    state: 'running',
    endedAt: null,
    episodes: { total: 2, finished: 1, resolved: 1, errored: 0 },
    startedAt,
    fork: { run: parent.dir, episode_id: 'sample-calc-add', trajectory: `${parent.dir}/trajectories/sample-calc-add.jsonl`, step },
  });
  const later = fork('20261126-113000', 3, '2026-11-26T11:30:00Z');
  const earlier = fork('20261126-112500', 2, '2026-11-26T11:25:00Z');
  const other = { ...earlier, dir: '/w/outputs/x', fork: { run: parent.dir, episode_id: 'sample-version', trajectory: '', step: 2 } };
  const now = Date.parse('2026-11-26T11:30:12Z');
  assert.deepEqual(
    forksOf([parent, later, other, earlier], parent.dir, 'sample-calc-add').map((r) => r.dir),
    [earlier.dir, later.dir],
    "an episode's forks, oldest first, and no other episode's",
  );
  assert.deepEqual(forksOf([parent, later], parent.dir, 'sample-version'), []);
  assert.equal(forkRowLabel({ run: parent.dir, episode_id: 'sample-calc-add', trajectory: '', step: 3 }), 'fork from step 3');
  assert.equal(describeForkRow(later, now), 'rule · 1/2 · 1 resolved · running · 12s');
  assert.equal(describeRun(later, now), '1/2 · 1 resolved · running · 12s · fork of sample-calc-add at step 3 · rule');
  assert.equal(runLabel(later.name, now), 'sample 11:23:43 › fork 11:30:00', "the parent's label and the fork's own time");
  assert.equal(runLabel('odd-fork-20261399-999999', now), 'odd-fork-20261399-999999', 'a stamp that is no time shows the name whole');
  assert.equal(runIcon({ ...later, state: 'finished' }).id, 'repo-forked');
  assert.equal(runIcon(parent).id, 'play');
});
