/** The evaluation report built from end lines: totals, means, reasons, and one failure line per unresolved episode. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runReportSchema, type TrajectoryEnd } from '../../server/src/protocol/runs.js';
import { buildReport, failureReason } from '../../server/src/rollout/index.js';

function end(id: string, extra: Partial<TrajectoryEnd>): TrajectoryEnd {
  return {
    type: 'end',
    episode_id: id,
    task_id: id,
    resolved: false,
    steps: 4,
    total_reward: 0,
    termination_reason: 'submitted',
    duration_ms: 1000,
    patch: '',
    ...extra,
  };
}

const swebenchGrade = (f2pFail: string[], p2pFail: string[]): TrajectoryEnd['grade'] => ({
  kind: 'swebench',
  resolution: f2pFail.length ? 'RESOLVED_NO' : 'RESOLVED_PARTIAL',
  report: {
    patch_is_None: false,
    patch_exists: true,
    patch_successfully_applied: true,
    resolved: false,
    tests_status: {
      FAIL_TO_PASS: { success: [], failure: f2pFail },
      PASS_TO_PASS: { success: [], failure: p2pFail },
      FAIL_TO_FAIL: { success: [], failure: [] },
      PASS_TO_FAIL: { success: [], failure: [] },
    },
  },
});

test('aggregates resolved rate, mean steps and durations, and counts termination reasons', () => {
  const episodes = [
    end('a', { resolved: true, steps: 2, duration_ms: 1000 }),
    end('b', { steps: 6, duration_ms: 3000, termination_reason: 'max_steps' }),
    end('c', { steps: 0, duration_ms: 500, termination_reason: 'error', error: 'boom' }),
    end('d', { resolved: true, steps: 4, duration_ms: 1500 }),
  ].map((e) => ({ end: e, trajectory: `trajectories/${e.episode_id}.jsonl`, instanceReport: undefined }));
  const report = runReportSchema.parse(buildReport({ run: 'r', agent: 'rule', dataset: 'd.jsonl', createdAt: new Date(0), episodes }));
  assert.equal(report.total, 4);
  assert.equal(report.resolved, 2);
  assert.equal(report.resolved_rate, 0.5);
  assert.equal(report.mean_steps, 3);
  assert.equal(report.mean_duration_ms, 1500);
  assert.deepEqual(report.termination_reasons, { submitted: 2, max_steps: 1, error: 1 });
  assert.equal(report.tasks[0]?.failure_reason, undefined, 'a resolved task has no failure reason');
  assert.equal(report.tasks[2]?.failure_reason, 'error: boom');
});

test('an empty run has a zero rate, not NaN', () => {
  const report = buildReport({ run: 'r', agent: 'rule', dataset: 'd', createdAt: new Date(0), episodes: [] });
  assert.equal(report.resolved_rate, 0);
  assert.equal(report.mean_steps, 0);
  runReportSchema.parse(report);
});

test('failure reasons name the failing tests, the limit hit or the error', () => {
  assert.equal(
    failureReason(end('a', { grade: swebenchGrade(['t::a', 't::b'], ['t::c']) })),
    'tests failed: FAIL_TO_PASS still failing: t::a, t::b; PASS_TO_PASS broken: t::c',
  );
  assert.equal(
    failureReason(end('a', { grade: swebenchGrade(['1', '2', '3', '4', '5'], []) })),
    'tests failed: FAIL_TO_PASS still failing: 1, 2, 3 and 2 more',
  );
  assert.equal(failureReason(end('a', { termination_reason: 'max_steps', steps: 8 })), 'hit the step limit after 8 steps, no passing submit');
  assert.equal(
    failureReason(end('a', { termination_reason: 'episode_timeout', steps: 3 })),
    'the episode ran past env.episode_timeout after 3 steps, no passing submit',
  );
  assert.equal(failureReason(end('a', { termination_reason: 'error', error: 'Docker daemon not reachable' })), 'error: Docker daemon not reachable');
  assert.equal(
    failureReason(end('a', { grade: { kind: 'log', passed: false, reason: '2 test(s) failed or errored' } })),
    'tests failed: 2 test(s) failed or errored',
  );
  assert.equal(failureReason(end('a', { resolved: true })), undefined);
});

test('a model agent’s run counts its own steps, parse failures by code, fallback steps and the resolved episodes it reached alone', () => {
  const usage = (own: number, fallback: number, failures: Record<string, number>) => ({
    model_steps: own,
    parse_failures: failures,
    fallback_steps: fallback,
    calls: own + fallback,
    prompt_tokens: 100 * (own + fallback),
    completion_tokens: 10 * (own + fallback),
    generation_ms: 500 * (own + fallback),
  });
  const episodes = [
    // Resolved with the model's replies only.
    end('alone', { resolved: true, steps: 3, model: usage(3, 0, {}) }),
    // Resolved, but the rule agent took two steps: a padded result.
    end('padded', { resolved: true, steps: 4, model: usage(2, 2, { 'missing-function-tag': 2 }) }),
    // Not resolved; one reply went back to the environment as a protocol error (no fallback step).
    end('lost', { steps: 2, termination_reason: 'max_steps', model: { ...usage(1, 0, { 'extra-text': 1 }), calls: 2 } }),
  ].map((e) => ({ end: e, trajectory: `trajectories/${e.episode_id}.jsonl`, instanceReport: undefined }));
  const report = runReportSchema.parse(buildReport({ run: 'r', agent: 'model', dataset: 'd.jsonl', createdAt: new Date(0), episodes, fallbackEnabled: true }));
  const m = report.model;
  assert.ok(m);
  assert.equal(m.fallback_enabled, true);
  assert.equal(m.steps, 9);
  assert.equal(m.model_steps, 6);
  assert.equal(m.fallback_steps, 2);
  assert.deepEqual(m.parse_failures, { 'missing-function-tag': 2, 'extra-text': 1 });
  assert.equal(m.calls, 9);
  assert.equal(m.parse_failure_rate, 3 / 9);
  assert.equal(m.model_step_share, 6 / 9);
  assert.equal(m.resolved_by_model_alone, 1);
  assert.equal(m.resolved_with_fallback, 1);
  assert.equal(report.resolved, 2, 'the resolved count itself is unchanged; the model figures sit beside it');
  assert.deepEqual(
    report.tasks.map((t) => t.model?.fallback_steps),
    [0, 2, 0],
  );
  // A rule-agent run has no model figures at all.
  const rule = buildReport({
    run: 'r',
    agent: 'rule',
    dataset: 'd.jsonl',
    createdAt: new Date(0),
    episodes: [{ end: end('x', {}), trajectory: 't', instanceReport: undefined }],
  });
  assert.equal(rule.model, undefined);
});

test("a Harbor verifier's reward reaches the report, and a reward below 1 is the failure said", () => {
  const verifier = (reward: number): TrajectoryEnd['grade'] => ({
    kind: 'verifier',
    reward,
    rewards: { reward },
    from: 'reward.txt',
    resolved: reward >= 1,
    exitCode: reward >= 1 ? 0 : 1,
  });
  const episodes = [end('pass', { resolved: true, grade: verifier(1), total_reward: 0.9 }), end('fail', { grade: verifier(0.25), total_reward: 0.15 })].map(
    (e) => ({ end: e, trajectory: `trajectories/${e.episode_id}.jsonl`, instanceReport: undefined }),
  );
  const report = runReportSchema.parse(buildReport({ run: 'r', agent: 'scripted', dataset: 'harbor.jsonl', createdAt: new Date(0), episodes }));
  assert.deepEqual(
    report.tasks.map((t) => t.verifier_reward),
    [1, 0.25],
  );
  assert.equal(report.tasks[0]?.failure_reason, undefined);
  assert.equal(report.tasks[1]?.failure_reason, "tests failed: the verifier's reward is 0.25 (reward.txt); 1 or more resolves the task");
  assert.equal(report.resolved, 1);
});
