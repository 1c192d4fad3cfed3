/**
 * Episodes without an outcome in a training run's figures (protocol/noOutcome.ts): which ends
 * count as none, the step's count `gp train` adds to Verl's line (`gp/no_outcome`), the metrics
 * page's series and totals, and the resolved rate and mean return that leave them out, as
 * `gp runs show --metrics` prints them too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricsLineSchema, noOutcomeKey, stepSamplesLineSchema, type MetricsLine, type VerlMetricsLine } from '../../server/src/protocol/metrics.js';
import { resolvedRate } from '../../server/src/protocol/metricsFigures.js';
import { noOutcomeReason } from '../../server/src/protocol/noOutcome.js';
import { summariseMetrics } from '../../server/src/runs/index.js';
import { withStepFigures } from '../../server/src/trainer/stepFigures.js';
import { noOutcomeSeries, resolvedRateSeries, totalsOf } from '../../webview/src/metrics/series.js';

const verl = (step: number, ts: string, data: Record<string, number> = {}): VerlMetricsLine => ({ source: 'verl', ts, attempt: 1, step, data });
const env = (id: string, ts: string, resolved: boolean, reward: number, noOutcome?: string): MetricsLine => ({
  source: 'env',
  ts,
  episode_id: id,
  task_id: 't',
  total_reward: reward,
  resolved,
  steps: 2,
  env_ms: 1,
  ...(noOutcome === undefined ? {} : { no_outcome: noOutcome }),
});

test('an infrastructure failure or an interrupted close is no outcome; every other end is one', () => {
  assert.equal(noOutcomeReason({ termination_reason: 'error', infrastructure: { code: 'host-lost' } }), 'host-lost');
  assert.equal(noOutcomeReason({ termination_reason: 'submitted', infrastructure: { code: 'not-gradable' } }), 'not-gradable');
  assert.equal(noOutcomeReason({ termination_reason: 'interrupted' }), 'interrupted');
  for (const reason of ['submitted', 'max_steps', 'repo_op_limit', 'step_timeout', 'episode_timeout', 'error'])
    assert.equal(noOutcomeReason({ termination_reason: reason }), null, reason);
});

test("a step's line counts the step's episodes without an outcome, zero included, and the page charts it", () => {
  const line = withStepFigures(verl(3, '2025-01-01T00:00:00Z', { 'critic/score/mean': 0.25 }), [
    { no_outcome: 'host-lost' },
    {},
    { no_outcome: 'interrupted' },
  ]);
  assert.equal(line.data[noOutcomeKey], 2);
  assert.equal(line.data['critic/score/mean'], 0.25);
  assert.equal(withStepFigures(verl(4, '2025-01-01T00:01:00Z'), [{}]).data[noOutcomeKey], 0);
  assert.ok(metricsLineSchema.safeParse(line).success);
  assert.deepEqual(
    noOutcomeSeries([line, verl(5, '2025-01-01T00:02:00Z')]).map((p) => [p.step, p.value]),
    [[3, 2]],
    'a line from before the count has no point rather than a zero',
  );
});

test('the resolved rate and the mean return leave episodes without an outcome out, and count them beside', () => {
  assert.deepEqual(resolvedRate([{ resolved: true }, { resolved: false }, { resolved: false, no_outcome: 'host-lost' }]), {
    resolved: 1,
    ended: 2,
    noOutcome: 1,
    rate: 0.5,
  });
  assert.equal(resolvedRate([{ resolved: false, no_outcome: 'interrupted' }]).rate, undefined, 'no outcome at all is no point, never a zero');
  const lines = [
    env('a', '2025-01-01T00:00:10Z', true, 1),
    env('b', '2025-01-01T00:00:20Z', false, 0),
    env('c', '2025-01-01T00:00:25Z', false, -5, 'not-gradable'),
    verl(1, '2025-01-01T00:00:30Z', { [noOutcomeKey]: 1 }),
  ];
  const totals = totalsOf(lines);
  assert.deepEqual([totals.episodes, totals.resolved, totals.noOutcome, totals.resolvedRate, totals.meanTotalReward], [2, 1, 1, 0.5, 0.5]);
  assert.deepEqual(
    resolvedRateSeries(lines).map((p) => p.value),
    [0.5],
  );
  const summary = summariseMetrics(lines);
  assert.deepEqual([summary.episodes, summary.noOutcome, summary.resolvedRate, summary.meanTotalReward], [2, 1, 0.5, 0.5]);
});

test('a sample table names an episode’s missing outcome, and tables written before it still read', () => {
  const base = { ts: 'x', attempt: 1, step: 1, total: 1 };
  const episode = {
    episode_id: 'e',
    task_id: 't',
    total_reward: 0,
    resolved: false,
    steps: 1,
    termination_reason: 'error',
    trajectory: 'trajectories/e.jsonl',
  };
  const parsed = stepSamplesLineSchema.parse({ ...base, episodes: [{ ...episode, no_outcome: 'host-lost' }] });
  assert.equal(parsed.episodes[0]?.no_outcome, 'host-lost');
  assert.equal(stepSamplesLineSchema.parse({ ...base, episodes: [episode] }).episodes[0]?.no_outcome, undefined);
});
