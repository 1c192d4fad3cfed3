/**
 * What a person reads around a launch (issue 27): the notice when a run ends with the buttons that
 * apply, the status bar's live runs, and the review list's rows (errors first, the start blocked,
 * values as the run will get them, the tasks that cannot run).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blockedMessage, reviewRows, type ReviewRow } from '../../extension/src/launchReviewRows.js';
import { liveRunsStatus, runEndNotice, type EndedRun } from '../../extension/src/notices.js';
import type { LaunchPlanResult, NewRunLaunch, TaskPreflightResult } from '../../server/src/protocol/lsp.js';

// The run's one name is its label (views/runsText.ts); a name that is not a default stamp shows whole.
const run: EndedRun = {
  name: 'sample-rollout-20261126T110000Z',
  state: 'finished',
  kind: 'rollout',
  episodes: { total: 10, finished: 10, resolved: 7, errored: 0 },
  exitReason: null,
  problem: null,
  hasReport: true,
  hasMetrics: false,
  hasLog: true,
  relaunchable: true,
};
const now = Date.UTC(2026, 10, 26, 12);

describe('the notice when a run ends', () => {
  test('a finished run says how many episodes resolved and offers its report, log and a re-launch', () => {
    assert.deepEqual(runEndNotice(run, now), {
      severity: 'info',
      text: 'Rollout sample-rollout-20261126T110000Z finished: 7 of 10 resolved',
      actions: ['Open Report', 'Show Log', 'Re-launch'],
    });
  });

  test('a run whose every episode ended with an error gives its reason and offers the Problems panel, not a report it never wrote', () => {
    const reason = 'every episode ended with an error (first: Task swe-1 has no local_repo, so the local backend cannot run it.)';
    const failed = runEndNotice(
      { ...run, state: 'failed', episodes: { total: 1, finished: 1, resolved: 0, errored: 1 }, hasReport: false, exitReason: reason },
      now,
    );
    assert.equal(failed.severity, 'error');
    assert.equal(failed.text, `Rollout sample-rollout-20261126T110000Z failed after 1 of 1 episode: ${reason}`);
    assert.deepEqual(failed.actions, ['Show Log', 'Re-launch', 'Show Problems']);
    // A run where some episodes ran is not a config problem: no Problems button.
    assert.ok(!runEndNotice({ ...run, state: 'failed', episodes: { total: 4, finished: 4, resolved: 1, errored: 3 } }, now).actions.includes('Show Problems'));
  });

  test('a reason from the run’s files cannot act on the screen and is cut to a notice’s length', () => {
    const text = runEndNotice({ ...run, state: 'failed', exitReason: `bad\u202e\u001b[2J${'x'.repeat(400)}` }, now).text;
    assert.ok(!text.includes('\u001b') && !text.includes('\u202e'), text);
    assert.match(text, /bad\\u202e\\x1b\[2J/);
    assert.ok(text.length < 320, `${text.length} characters`);
  });

  test('an interrupted run is a warning', () => {
    assert.equal(
      runEndNotice({ ...run, state: 'interrupted', episodes: { total: 45, finished: 12, resolved: 3, errored: 0 } }, now).text,
      'Rollout sample-rollout-20261126T110000Z was interrupted after 12 of 45 episodes',
    );
  });

  test('a launch that exited before its run reported says so, with Go to Error for the place its first error names and no Problems button (issue 37)', () => {
    const reason = 'datasets/bad.jsonl:1:1 task_id: Invalid input: expected string, received number';
    const failed: EndedRun = {
      ...run,
      state: 'failed',
      episodes: { total: 0, finished: 0, resolved: 0, errored: 0 },
      hasReport: false,
      relaunchable: false,
      exitReason: reason,
    };
    const notice = runEndNotice(failed, now, { file: '/ws/datasets/bad.jsonl' });
    assert.equal(notice.text, `Rollout sample-rollout-20261126T110000Z failed before it started: ${reason}`);
    assert.deepEqual(notice.actions, ['Go to Error', 'Show Log']);
    // An error that names no file has no place to go to; the Problems panel is offered instead.
    assert.deepEqual(runEndNotice(failed, now, { file: null }).actions, ['Show Log', 'Show Problems']);
  });

  test('a training run that finished offers its metrics page under the run’s one name, its label', () => {
    const trained = runEndNotice(
      { ...run, name: 'train_smoke-train-20261126-113005', kind: 'train', hasReport: false, hasMetrics: true, episodes: null },
      Date.UTC(2026, 10, 26, 12),
    );
    assert.match(trained.text, /^Training train_smoke (\d+ \w+ )?\d\d:\d\d:05 finished$/);
    assert.deepEqual(trained.actions, ['Show Metrics', 'Show Log', 'Re-launch']);
  });

  test('the status bar counts the live runs and hides when none runs', () => {
    assert.equal(liveRunsStatus([]), undefined);
    assert.equal(liveRunsStatus(['a'])?.text, '$(sync~spin) 1 run');
    assert.match(liveRunsStatus(['a', 'b'])?.tooltip ?? '', /2 runs running.*\n• a\n• b$/);
  });
});

const draft: NewRunLaunch = {
  kind: 'rollout',
  config: '/ws/configs/broken.yaml',
  taskFiles: ['/ws/datasets/swe.jsonl'],
  tasks: [],
  agent: null,
  backend: null,
  parallel: null,
  attempts: null,
  sets: [],
  cwd: '/ws',
};
const rel = (p: string) => p.replace('/ws/', '');
const finding = (message: string, line: number) => ({ severity: 'error' as const, message, file: '/ws/configs/broken.yaml', line, character: 11, flag: null });
const okValues = {
  agent: { value: 'rule', from: 'file', error: null },
  backend: { value: 'local', from: 'flag', error: null },
  parallel: { value: '2', from: 'default', error: null },
  attempts: { value: '1', from: 'default', error: null },
  dataset: { value: null, from: 'default', error: null },
} as const;
const brokenPlan: LaunchPlanResult = {
  args: [],
  display: '',
  cwd: '/ws',
  runDir: '',
  refused: null,
  findings: [
    finding('schema/enum: sandbox.backend must be one of "auto", "docker", "local", not \'dockr\'. Did you mean \'docker\'?', 1),
    finding('schema/range: rollout.parallel is 0 but must be ≥ 1, ≤ 256.', 3),
  ],
  values: {
    agent: { value: 'rule', from: 'file', error: null },
    backend: { value: 'dockr', from: 'file', error: 'sandbox.backend must be one of "auto", "docker", "local", not \'dockr\'. Did you mean \'docker\'?' },
    parallel: { value: '0', from: 'file', error: 'rollout.parallel is 0 but must be ≥ 1, ≤ 256.' },
    attempts: { value: '1', from: 'default', error: null },
    dataset: { value: null, from: 'default', error: null },
  },
};

const labelled = (rows: ReviewRow[]) => rows.map((r) => ('description' in r ? `${r.label} | ${r.description}` : `-- ${r.label}`));

describe('the launch review list', () => {
  test('lists the config’s errors first, blocks the start, and shows the values as written with their errors', () => {
    const rows = reviewRows({ draft, plan: brokenPlan, preflight: undefined, preflightBackend: '', rel });
    assert.deepEqual(labelled(rows).slice(0, 4), [
      '-- 2 errors: fix them first',
      '$(error) broken.yaml:2:12 | schema/enum',
      '$(error) broken.yaml:4:12 | schema/range',
      '$(circle-slash) Start rollout | blocked by 2 errors',
    ]);
    assert.deepEqual(
      rows.slice(1, 3).map((r) => ('detail' in r ? r.detail : '')),
      ['sandbox.backend must be one of "auto", "docker", "local", not \'dockr\'. Did you mean \'docker\'?', 'rollout.parallel is 0 but must be ≥ 1, ≤ 256.'],
    );
    const backend = rows.find((r) => r.kind === 'value' && r.key === 'backend');
    assert.deepEqual(backend && 'description' in backend ? [backend.label, backend.description] : [], ['$(error) Backend', 'dockr (from the config)']);
    const parallel = rows.find((r) => r.kind === 'value' && r.key === 'parallel');
    assert.equal(parallel && 'description' in parallel ? parallel.description : '', '0 (from the config)');
    assert.equal(
      blockedMessage(brokenPlan.findings, rel),
      'Launch blocked: the config has 2 errors. First (configs/broken.yaml:2:12): schema/enum: sandbox.backend must be one of "auto", "docker", "local", not \'dockr\'. Did you mean \'docker\'?',
    );
  });

  test('counts and names the tasks that cannot run on the chosen backend, after the start row', () => {
    const okPlan: LaunchPlanResult = { ...brokenPlan, findings: [], values: okValues };
    const blocked = (id: string, line: number) => ({
      taskId: id,
      file: '/ws/datasets/swe.jsonl',
      line,
      readiness: { backend: 'local' as const, imagePresent: null, problem: { code: 'no-local-repo' as const, reason: `Task ${id} has no local_repo` } },
    });
    const preflight: TaskPreflightResult = { total: 10, blocked: [blocked('a', 0), blocked('b', 1), blocked('c', 2), blocked('d', 3)], problems: [] };
    const rows = labelled(reviewRows({ draft, plan: okPlan, preflight, preflightBackend: 'local', rel }));
    assert.equal(rows[0], '$(play) Start rollout | ');
    assert.equal(rows[1], '$(warning) 4 of 10 tasks cannot run on local | a, b, c, … 1 more');
    assert.ok(rows.includes('$(server-environment) Backend | local (chosen here)'));
    assert.ok(rows.includes('$(layers) Parallel episodes | 2 (default)'));
  });
});
