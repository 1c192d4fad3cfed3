/** The metrics page's figures are defined once (protocol/metricsFigures.ts) and every reader uses that definition. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MetricsLine } from '../../server/src/protocol/metrics.js';
import { resolvedRate } from '../../server/src/protocol/metricsFigures.js';
import { summariseMetrics } from '../../server/src/runs/metrics.js';
import { resolvedRateSeries, totalsOf } from '../../webview/src/metrics/series.js';

const t0 = Date.UTC(2026, 0, 1);
const at = (s: number) => new Date(t0 + s * 1000).toISOString();
const env = (s: number, resolved: boolean): MetricsLine => ({
  source: 'env',
  ts: at(s),
  episode_id: `e${s}`,
  task_id: 't',
  total_reward: resolved ? 1 : 0,
  resolved,
  steps: 3,
  env_ms: 10,
});
const step = (s: number, n: number): MetricsLine => ({ source: 'verl', ts: at(s), attempt: 1, step: n, data: {} });

test('the resolved rate is resolved over the episodes that ended with an outcome, and has no value with none', () => {
  assert.deepEqual(resolvedRate([{ resolved: true }, { resolved: false }, { resolved: true }]), { resolved: 2, ended: 3, noOutcome: 0, rate: 2 / 3 });
  assert.deepEqual(resolvedRate([]), { resolved: 0, ended: 0, noOutcome: 0, rate: undefined });
});

test('the page header, the CLI and the per-step chart use that one definition; the whole run and the last step are different figures', () => {
  // Step 1: 5 of 6 resolved; step 2: 1 of 4. The whole run: 6 of 10.
  const lines = [
    env(1, true),
    env(2, true),
    env(3, true),
    env(4, true),
    env(5, true),
    env(6, false),
    step(7, 1),
    env(8, true),
    env(9, false),
    env(10, false),
    env(11, false),
    step(12, 2),
  ];
  const totals = totalsOf(lines);
  const cli = summariseMetrics(lines);
  assert.equal(totals.resolvedRate, 0.6);
  assert.equal(cli.resolvedRate, totals.resolvedRate, 'gp runs show --metrics and the page header agree');
  assert.deepEqual(
    resolvedRateSeries(lines).map((p) => [p.step, p.value]),
    [
      [1, 5 / 6],
      [2, 0.25],
    ],
  );
});
