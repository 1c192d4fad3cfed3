import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MetricsLine } from '../../server/src/protocol/metrics.js';
import { ticks } from '../../webview/src/metrics/ticks.js';
import { smoothEma } from '../../webview/src/metrics/ema.js';
import { parseFailureSeries, resolvedRateSeries, totalsOf, verlSeries } from '../../webview/src/metrics/series.js';

/** TensorBoard's smoothing, written out for three points with weight 0.6 (debiased EMA). */
test('smooths as TensorBoard does: a debiased moving average', () => {
  const w = 0.6;
  const values = [1, 0, 1];
  let last = 0;
  const expected = values.map((v, i) => {
    last = last * w + (1 - w) * v;
    return last / (1 - Math.pow(w, i + 1));
  });
  const got = smoothEma(values, w);
  got.forEach((v, i) => assert.ok(Math.abs(v - (expected[i] ?? NaN)) < 1e-12, `point ${i}: ${v} vs ${expected[i] ?? NaN}`));
  assert.equal(got[0], 1, 'the first point is not pulled towards zero');
  assert.ok((got[1] ?? 0) > 0 && (got[1] ?? 1) < 1);
});

test('leaves a constant series, weight 0 and non-finite values as they are', () => {
  assert.deepEqual(smoothEma([2, 2, 2], 0.9), [2, 2, 2]);
  assert.deepEqual(smoothEma([1, 3, 5], 0), [1, 3, 5]);
  const withNaN = smoothEma([1, NaN, 3], 0.5);
  assert.ok(Number.isNaN(withNaN[1]));
  assert.ok(Number.isFinite(withNaN[2]));
});

const t0 = Date.parse('2026-11-23T10:00:00.000Z');
const at = (s: number) => new Date(t0 + s * 1000).toISOString();
const lines: MetricsLine[] = [
  { source: 'env', ts: at(1), episode_id: 'a', task_id: 't', total_reward: 1, resolved: true, steps: 3, env_ms: 10 },
  { source: 'env', ts: at(2), episode_id: 'b', task_id: 't', total_reward: 0, resolved: false, steps: 3, env_ms: 10 },
  { source: 'verl', ts: at(3), attempt: 1, step: 1, data: { 'critic/score/mean': 0.5 } },
  { source: 'env', ts: at(4), episode_id: 'c', task_id: 't', total_reward: 1, resolved: true, steps: 3, env_ms: 10 },
  { source: 'verl', ts: at(5), attempt: 1, step: 2, data: { 'critic/score/mean': 0.7 } },
  // A resumed attempt redoes step 2: its value replaces the first one.
  { source: 'env', ts: at(6), episode_id: 'd', task_id: 't', total_reward: 0, resolved: false, steps: 3, env_ms: 10 },
  { source: 'verl', ts: at(7), attempt: 2, step: 2, data: { 'critic/score/mean': 0.9 } },
];

test('draws one point per step, the latest attempt’s value for a step done twice', () => {
  assert.deepEqual(
    verlSeries(lines, 'critic/score/mean').map((p) => [p.step, p.value]),
    [
      [1, 0.5],
      [2, 0.9],
    ],
  );
  assert.deepEqual(verlSeries(lines, 'actor/ppo_kl'), []);
});

test('puts each episode in the first step logged after it ended', () => {
  // Step 1: a and b (1 of 2); step 2 (its last line at 7 s): c and d, after step 1's line (1 of 2).
  assert.deepEqual(
    resolvedRateSeries(lines).map((p) => [p.step, p.value]),
    [
      [1, 0.5],
      [2, 0.5],
    ],
  );
  const totals = totalsOf(lines);
  assert.deepEqual([totals.steps, totals.episodes, totals.resolved, totals.meanTotalReward, totals.firstTime], [2, 4, 2, 0.5, t0 + 1000]);
});

test('picks round tick values that cover the range', () => {
  assert.deepEqual(ticks(0, 1), [0, 0.25, 0.5, 0.75, 1]);
  assert.deepEqual(ticks(0.03, 0.97, 4), [0.25, 0.5, 0.75]);
  assert.deepEqual(ticks(5, 5), [5]);
});

test('the parse-failure rate per step counts the replies of the episodes that ended before its line, leaving out lines without them', () => {
  const withReplies: MetricsLine[] = [
    { source: 'env', ts: at(1), episode_id: 'a', task_id: 't', total_reward: 0, resolved: false, steps: 4, env_ms: 10, replies: 4, parse_failures: 3 },
    { source: 'env', ts: at(2), episode_id: 'b', task_id: 't', total_reward: 0, resolved: false, steps: 4, env_ms: 10, replies: 4, parse_failures: 1 },
    { source: 'verl', ts: at(3), attempt: 1, step: 1, data: {} },
    // Written before replies were recorded: no rate can be said for it.
    { source: 'env', ts: at(4), episode_id: 'c', task_id: 't', total_reward: 0, resolved: false, steps: 2, env_ms: 10 },
    { source: 'verl', ts: at(5), attempt: 1, step: 2, data: {} },
    { source: 'env', ts: at(6), episode_id: 'd', task_id: 't', total_reward: 1, resolved: true, steps: 2, env_ms: 10, replies: 2, parse_failures: 0 },
    { source: 'verl', ts: at(7), attempt: 1, step: 3, data: {} },
  ];
  assert.deepEqual(
    parseFailureSeries(withReplies).map((p) => [p.step, p.value]),
    [
      [1, 0.5],
      [3, 0],
    ],
  );
});
