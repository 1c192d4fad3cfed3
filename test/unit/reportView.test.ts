/**
 * The report page's model (server/src/views/reportView.ts) from reports the real writer builds
 * (rollout/report.ts): the summary head, one row per task with its attempts, failures grouped,
 * infrastructure failures apart, and clear messages for a missing or hostile report.json.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runReportResultSchema } from '../../server/src/protocol/runReportView.js';
import type { TrajectoryEnd } from '../../server/src/protocol/runs.js';
import { buildReport } from '../../server/src/rollout/index.js';
import { readReportView, reportView } from '../../server/src/views/index.js';

function end(episode: string, task: string, extra: Partial<TrajectoryEnd>): TrajectoryEnd {
  return {
    type: 'end',
    episode_id: episode,
    task_id: task,
    resolved: false,
    steps: 4,
    total_reward: 0,
    termination_reason: 'submitted',
    duration_ms: 1000,
    patch: '',
    ...extra,
  };
}

const episodes = [
  end('add#1', 'add', { resolved: true, steps: 2, total_reward: 1, duration_ms: 1000 }),
  end('add#2', 'add', { steps: 6, total_reward: -0.5, duration_ms: 3000, termination_reason: 'max_steps' }),
  end('mul#1', 'mul', { steps: 3, duration_ms: 2000, error: 'sandbox: no local_repo', termination_reason: 'error' }),
  end('div#1', 'div', { resolved: true, steps: 4, total_reward: 1, duration_ms: 500 }),
  end('sub#1', 'sub', { steps: 5, duration_ms: 700, termination_reason: 'max_steps' }),
].map((e) => ({ end: e, trajectory: `trajectories/${e.episode_id.replace('#', '_')}.jsonl`, instanceReport: undefined }));

const report = buildReport({
  run: 'rollout-1',
  agent: 'rule',
  dataset: 'datasets/sample/tasks.jsonl',
  createdAt: new Date(0),
  state: 'failed',
  planned: 7,
  episodes,
  infrastructure: [{ code: 'daemon-lost', cause: 'Docker went away', task_id: 'pow', episode_id: 'pow#1' }],
});

test('the summary head: resolved x of y over the episodes that ran, infrastructure failures counted apart', () => {
  const view = reportView('/runs/rollout-1', report, 'rollout');
  assert.deepEqual(view.summary, {
    graded: 5,
    resolved: 2,
    resolvedRate: 0.4,
    planned: 7,
    infrastructure: 1,
    notRun: 1,
    meanSteps: 4,
    meanDurationMs: 1440,
    suspectedHacks: 0,
    passAtK: [{ k: 1, value: 0.375, tasks: 4 }],
  });
  assert.equal(view.command, 'rollout');
  assert.equal(view.state, 'failed');
});

test('one row per task with its attempts, outcome, means and first failure, and each episode a link into the run folder', () => {
  const view = reportView('/runs/rollout-1', report, 'rollout');
  assert.deepEqual(
    view.tasks.map((t) => [t.taskId, t.attempts, t.graded, t.outcome, t.reward, t.steps, t.durationMs]),
    [
      ['add', 2, 2, 'mixed', 0.25, 4, 4000],
      ['mul', 1, 1, 'unresolved', 0, 3, 2000],
      ['div', 1, 1, 'resolved', 1, 4, 500],
      ['sub', 1, 1, 'unresolved', 0, 5, 700],
      ['pow', 1, 0, 'no-outcome', null, null, null],
    ],
  );
  const add = view.tasks[0];
  assert.equal(add?.failureReason, 'hit the step limit after 6 steps, no passing submit');
  assert.deepEqual(
    add?.episodes.map((e) => [e.episodeId, e.trajectory, e.outcome]),
    [
      ['add#1', '/runs/rollout-1/trajectories/add_1.jsonl', 'resolved'],
      ['add#2', '/runs/rollout-1/trajectories/add_2.jsonl', 'unresolved'],
    ],
  );
  // The infrastructure's failure is the row's reason only because nothing of the task ran to its end; its outcome stays "no outcome".
  const pow = view.tasks[4];
  assert.equal(pow?.failureReason, 'no outcome: daemon-lost: Docker went away');
  assert.equal(pow?.episodes[0]?.outcome, 'no-outcome');
  // An attempt's trajectory is named after the episode (protocol/episodeName.ts).
  assert.equal(pow?.episodes[0]?.trajectory, '/runs/rollout-1/trajectories/pow#1.jsonl');
  assert.deepEqual(
    view.infrastructure.map((f) => [f.taskId, f.code, f.cause]),
    [['pow', 'daemon-lost', 'Docker went away']],
  );
});

test('unresolved episodes grouped by how they ended, the largest group first, each reason with its tasks', () => {
  const view = reportView('/runs/rollout-1', report, null);
  assert.deepEqual(view.failureGroups, [
    {
      group: 'Hit the step limit',
      count: 2,
      reasons: [
        { reason: 'hit the step limit after 6 steps, no passing submit', tasks: ['add'] },
        { reason: 'hit the step limit after 5 steps, no passing submit', tasks: ['sub'] },
      ],
    },
    { group: 'Error', count: 1, reasons: [{ reason: 'error: sandbox: no local_repo', tasks: ['mul'] }] },
  ]);
});

test('a report with nothing that ran has no rate rather than a zero one', () => {
  const empty = reportView('/r', buildReport({ run: 'r', agent: 'rule', dataset: 'd', createdAt: new Date(0), episodes: [] }), null);
  assert.equal(empty.summary.resolvedRate, null);
  assert.equal(empty.summary.meanSteps, null);
});

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gp-report-view-'));
});
after(() => rm(dir, { recursive: true, force: true }));

test('reads report.json and the launch record of a run folder', async () => {
  const run = join(dir, 'ok');
  await mkdir(run, { recursive: true });
  await writeFile(join(run, 'report.json'), JSON.stringify(report));
  await writeFile(join(run, 'launch.json'), JSON.stringify({ command: 'eval', args: [], cwd: dir, agent: 'rule', written_at: '1970-01-01T00:00:00Z' }));
  const result = runReportResultSchema.parse(await readReportView(run));
  assert.ok(result.ok);
  assert.equal(result.report.command, 'eval');
  assert.equal(result.report.tasks.length, 5);
});

test('a missing, broken or hostile report.json is a message naming the file and the field, never a crash', async () => {
  const missing = await readReportView(join(dir, 'none'));
  assert.ok(!missing.ok && missing.message.includes('report.json does not exist') && missing.message.includes('Show Run Log'));
  const broken = join(dir, 'broken');
  await mkdir(broken);
  await writeFile(join(broken, 'report.json'), '{"run": ');
  const notJson = await readReportView(broken);
  assert.ok(!notJson.ok && notJson.message.includes(join(broken, 'report.json')) && notJson.message.includes('is not JSON'));
  const wrong = join(dir, 'wrong');
  await mkdir(wrong);
  await writeFile(join(wrong, 'report.json'), JSON.stringify({ ...report, total: 'five' }));
  const field = await readReportView(wrong);
  assert.ok(!field.ok && field.message.includes('field total'), !field.ok ? field.message : '');
  const hostile = join(dir, 'hostile');
  await mkdir(hostile);
  await writeFile(
    join(hostile, 'report.json'),
    JSON.stringify({ ...report, tasks: report.tasks.map((t, i) => (i === 0 ? { ...t, trajectory: '../../../etc/passwd' } : t)) }),
  );
  const read = await readReportView(hostile);
  assert.ok(read.ok);
  assert.deepEqual(
    read.report.tasks[0]?.episodes.map((e) => e.episodeId),
    ['add#2'],
    'a trajectory outside the run folder is not offered as a link',
  );
});
