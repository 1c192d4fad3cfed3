/**
 * Suspected reward hacking per training step: `gp train` adds the count of a step's episodes whose
 * submit was flagged to the step's line of `metrics.jsonl` (trainer/stepFigures.ts, as
 * `gp/suspected_hacks`); the metrics page charts it and counts the run's flagged episodes; the
 * viewer's row of the flagged submit carries the count its badge shows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricsLineSchema, runnerTamperedKey, suspectedHacksKey, type MetricsLine, type VerlMetricsLine } from '../../server/src/protocol/metrics.js';
import type { TrajectoryStep } from '../../server/src/protocol/runs.js';
import { stepRow, viewOfStep } from '../../server/src/episodes/index.js';
import { withStepFigures } from '../../server/src/trainer/stepFigures.js';
import { runnerTamperedSeries, suspectedHacksSeries, totalsOf } from '../../webview/src/metrics/series.js';

const verl = (step: number, ts: string, data: Record<string, number> = {}): VerlMetricsLine => ({
  source: 'verl',
  ts,
  attempt: 1,
  step,
  data: { 'critic/score/mean': 0.5, ...data },
});

test("a step's line counts the step's episodes with suspected reward hacking, zero included, and keeps Verl's keys", () => {
  const ended = [{ suspected_hacks: 3 }, {}, { suspected_hacks: 1 }, { suspected_hacks: undefined }];
  const line = withStepFigures(verl(4, '2025-01-01T00:00:00Z'), ended);
  assert.equal(line.data[suspectedHacksKey], 2, 'episodes flagged, not signals');
  assert.equal(line.data['critic/score/mean'], 0.5);
  assert.equal(withStepFigures(verl(5, '2025-01-01T00:01:00Z'), [{}, {}]).data[suspectedHacksKey], 0);
  assert.ok(metricsLineSchema.safeParse(line).success);
});

test("a step's line counts the step's episodes whose runner was tampered with (masked in the update), zero included", () => {
  const line = withStepFigures(verl(4, '2025-01-01T00:00:00Z'), [{ runner_tampered: true }, {}, { runner_tampered: true, suspected_hacks: 2 }]);
  assert.equal(line.data[runnerTamperedKey], 2);
  assert.equal(line.data[suspectedHacksKey], 1);
  assert.equal(withStepFigures(verl(5, '2025-01-01T00:01:00Z'), [{}]).data[runnerTamperedKey], 0);
  assert.deepEqual(
    runnerTamperedSeries([line]).map((p) => p.value),
    [2],
  );
});

test('the metrics page charts the count per step and counts the flagged episodes of the run', () => {
  const lines: MetricsLine[] = [
    { source: 'env', ts: '2025-01-01T00:00:10Z', episode_id: 'a', task_id: 't', total_reward: 1, resolved: true, steps: 2, env_ms: 1, suspected_hacks: 2 },
    { source: 'env', ts: '2025-01-01T00:00:20Z', episode_id: 'b', task_id: 't', total_reward: 0, resolved: false, steps: 2, env_ms: 1 },
    verl(1, '2025-01-01T00:00:30Z', { [suspectedHacksKey]: 1 }),
    verl(2, '2025-01-01T00:01:00Z', { [suspectedHacksKey]: 0 }),
    // A line from before the count was recorded has no point rather than a zero.
    verl(3, '2025-01-01T00:02:00Z'),
  ];
  assert.deepEqual(
    suspectedHacksSeries(lines).map((p) => [p.step, p.value]),
    [
      [1, 1],
      [2, 0],
    ],
  );
  assert.equal(totalsOf(lines).suspectedHacks, 1);
});

test("the viewer's row of a flagged submit carries the count its badge shows", () => {
  const record = {
    type: 'step',
    step: 3,
    action: { type: 'submit' },
    observation: {
      task_id: 't',
      step: 3,
      max_steps: 8,
      issue: { title: '', body: '' },
      done: true,
      memory: { nodes: [], edges: 0, notes: [], size: { nodes: 0, edges: 0, note_tokens: 0 }, limits: { nodes: 1, edges: 1, note_tokens: 1 } },
      last: {
        kind: 'submit',
        resolved: true,
        patch: '',
        grade: { kind: 'log', passed: true, reason: 'ok' },
        tests: { passed: true, counts: { PASSED: 1, FAILED: 0, ERROR: 0, SKIPPED: 0, XFAIL: 0, XPASS: 0 }, failing: [], tail: '', duration_ms: 1 },
        suspected_hacks: [{ kind: 'network', path: 'app/calc.py', line: 2, evidence: 'import socket', rule: 'opens a socket' }],
      },
    },
    reward: 1,
    done: true,
    timings: { agent_ms: 0, env_ms: 1, task_commands_ms: 0 },
  } as unknown as TrajectoryStep;
  const row = stepRow(viewOfStep(record, 0));
  assert.equal(row.suspectedHacks, 1);
  const submit = record.observation.last;
  if (submit?.kind === 'submit') delete submit.suspected_hacks;
  assert.equal(stepRow(viewOfStep(record, 0)).suspectedHacks, undefined, 'an honest submit has no badge');
});
