/**
 * Over a real LSP connection: the report page's request answers a run folder's report.json shaped
 * for the page, or says why it cannot; and the trajectory viewer's open request states the run of an
 * episode that failed before its first step (so the viewer can say what happened), and only then.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { episodeOpenRequest, type EpisodeOpenResult } from '../../server/src/protocol/episodeView.js';
import { runReportRequest, type RunReportResult } from '../../server/src/protocol/runReportView.js';
import type { RunStatus, TrajectoryEnd } from '../../server/src/protocol/runs.js';
import { buildReport } from '../../server/src/rollout/index.js';
import { fixturePath } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/lspHarness.js';

let dir: string;
let h: Harness;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gp-report-lsp-'));
  h = await startHarness({}, dir);
});
after(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const status = (state: RunStatus['state'], reason?: string): RunStatus => ({
  state,
  command: 'rollout',
  pid: 999_999,
  host: hostname(),
  started_at: '2026-01-01T00:00:00Z',
  ...(reason === undefined ? {} : { exit_reason: reason }),
  episodes: { total: 1, finished: 1, resolved: 0, errored: 1 },
});

const sample = readFileSync(fixturePath('trajectories/sample-calc-add.jsonl'), 'utf8').trim().split('\n');
const failedEnd: TrajectoryEnd = {
  type: 'end',
  episode_id: 'sample-calc-add',
  task_id: 'sample-calc-add',
  resolved: false,
  steps: 0,
  total_reward: 0,
  termination_reason: 'error',
  duration_ms: 12,
  patch: '',
  error: 'sandbox: no local_repo',
};

function runFolder(name: string, state: RunStatus['state'], reason?: string): string {
  const run = join(dir, name);
  mkdirSync(join(run, 'trajectories'), { recursive: true });
  writeFileSync(join(run, 'status.json'), JSON.stringify(status(state, reason)));
  writeFileSync(join(run, 'trajectories', 'sample-calc-add.jsonl'), `${sample[0] ?? ''}\n${JSON.stringify(failedEnd)}\n`);
  return run;
}

test('the report request answers the page’s view of report.json', async () => {
  const run = runFolder('reported', 'failed', '1 episode failed');
  writeFileSync(
    join(run, 'report.json'),
    JSON.stringify(
      buildReport({
        run: 'reported',
        agent: 'rule',
        dataset: 'd.jsonl',
        createdAt: new Date(0),
        episodes: [{ end: failedEnd, trajectory: 'trajectories/sample-calc-add.jsonl', instanceReport: undefined }],
      }),
    ),
  );
  const result = await h.client.sendRequest<RunReportResult>(runReportRequest, { dir: run });
  assert.ok(result.ok, JSON.stringify(result));
  assert.deepEqual(result.report.summary, {
    graded: 1,
    resolved: 0,
    resolvedRate: 0,
    planned: 1,
    infrastructure: 0,
    notRun: 0,
    meanSteps: 0,
    meanDurationMs: 12,
    suspectedHacks: 0,
    passAtK: [],
  });
  assert.deepEqual(
    result.report.tasks.map((t) => [t.taskId, t.outcome, t.failureReason, t.episodes[0]?.trajectory]),
    [['sample-calc-add', 'unresolved', 'error: sandbox: no local_repo', join(run, 'trajectories', 'sample-calc-add.jsonl')]],
  );
  const missing = await h.client.sendRequest<RunReportResult>(runReportRequest, { dir: join(dir, 'nothing-here') });
  assert.ok(!missing.ok && missing.message.includes('report.json does not exist'));
});

test('a run with three attempts per task answers pass@1 to pass@3 over its tasks', async () => {
  const run = runFolder('attempts', 'finished');
  const attempt = (task: string, n: number, resolved: boolean) => ({
    end: { ...failedEnd, episode_id: `${task}#${n}`, task_id: task, resolved, termination_reason: 'submitted' as const },
    trajectory: `trajectories/${task}#${n}.jsonl`,
    instanceReport: undefined,
  });
  const episodes = [
    attempt('a', 1, true),
    attempt('a', 2, false),
    attempt('a', 3, false),
    attempt('b', 1, false),
    attempt('b', 2, false),
    attempt('b', 3, false),
  ];
  writeFileSync(
    join(run, 'report.json'),
    JSON.stringify(buildReport({ run: 'attempts', agent: 'rule', dataset: 'd.jsonl', createdAt: new Date(0), episodes })),
  );
  const result = await h.client.sendRequest<RunReportResult>(runReportRequest, { dir: run });
  assert.ok(result.ok, JSON.stringify(result));
  // Task a: 1 of 3 resolved, so pass@1 = 1/3, pass@2 = 1 − C(2,2)/C(3,2) = 2/3, pass@3 = 1; task b: 0 throughout.
  assert.deepEqual(
    result.report.summary.passAtK.map((p) => [p.k, Number(p.value.toFixed(4)), p.tasks]),
    [
      [1, 0.1667, 2],
      [2, 0.3333, 2],
      [3, 0.5, 2],
    ],
  );
});

test('opening an episode that failed before its first step states its run; a running status whose process is gone reads interrupted', async () => {
  const failed = runFolder('failed-run', 'failed', '1 episode failed');
  const opened = await h.client.sendRequest<EpisodeOpenResult>(episodeOpenRequest, {
    path: join(failed, 'trajectories', 'sample-calc-add.jsonl'),
    knownSteps: 0,
  });
  assert.ok(opened.ok, JSON.stringify(opened));
  assert.equal(opened.rows.length, 0);
  assert.deepEqual(opened.header.run, { name: 'failed-run', state: 'failed', reason: '1 episode failed' });
  // A `running` status whose process is gone (pid 999999 on this host) is a crashed run.
  const crashed = runFolder('crashed-run', 'running');
  const again = await h.client.sendRequest<EpisodeOpenResult>(episodeOpenRequest, {
    path: join(crashed, 'trajectories', 'sample-calc-add.jsonl'),
    knownSteps: 0,
  });
  assert.ok(
    again.ok && again.header.run?.state === 'interrupted' && /pid 999999/.test(again.header.run.reason ?? ''),
    JSON.stringify(again.ok && again.header.run),
  );
});

test('an episode with steps and no error does not read its run', async () => {
  const run = join(dir, 'fine');
  mkdirSync(join(run, 'trajectories'), { recursive: true });
  writeFileSync(join(run, 'status.json'), JSON.stringify(status('finished')));
  writeFileSync(join(run, 'trajectories', 'sample-calc-add.jsonl'), `${sample.join('\n')}\n`);
  const opened = await h.client.sendRequest<EpisodeOpenResult>(episodeOpenRequest, { path: join(run, 'trajectories', 'sample-calc-add.jsonl'), knownSteps: 0 });
  assert.ok(opened.ok && opened.rows.length > 0);
  assert.equal(opened.header.run, undefined);
});
