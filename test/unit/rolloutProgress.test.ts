/** Rollout progress: a bar redrawn in place on a terminal, plain lines elsewhere. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RolloutProgress, eta, formatDuration, renderBar, renderFinished } from '../../server/src/cli/progress.js';
import type { TrajectoryEnd } from '../../server/src/protocol/runs.js';
import type { EpisodeResult, EpisodeSpec } from '../../server/src/rollout/index.js';
import { plannedTasks } from './rolloutDoubles.js';

const spec = { episodeId: 'x', task: plannedTasks(['x'])[0]?.task, attempt: 1, baseDir: '/', source: 'f:1' } as EpisodeSpec;

function result(id: string, extra: Partial<TrajectoryEnd> = {}): EpisodeResult {
  return {
    end: {
      type: 'end',
      episode_id: id,
      task_id: id,
      resolved: true,
      steps: 4,
      total_reward: 1,
      termination_reason: 'submitted',
      duration_ms: 12_300,
      patch: '',
      ...extra,
    },
    trajectory: `trajectories/${id}.jsonl`,
    instanceReport: undefined,
  };
}

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { chunks, sink: { isTTY, columns: 100, write: (t: string) => void chunks.push(t) } };
}

test('plain output is one line per finished episode and no escape codes', () => {
  const { chunks, sink: s } = sink(false);
  let now = 0;
  const p = new RolloutProgress(s, () => now);
  p.runStarted({ total: 7, alreadyFinished: 2 });
  p.episodeStarted(spec);
  now = 5000;
  p.episodeFinished(spec, result('sample-x'));
  p.episodeStarted(spec);
  p.episodeFinished(spec, result('sample-y', { resolved: false, termination_reason: 'max_steps', steps: 8, duration_ms: 20_100 }));
  p.stop();
  const text = chunks.join('');
  assert.ok(!text.includes('\x1b') && !text.includes('\r'), 'no escape codes or carriage returns');
  assert.deepEqual(text.trim().split('\n'), [
    '2 of 7 episodes already finished in this run; running the rest.',
    '[3/7] sample-x resolved in 4 steps, 12.3 s',
    '[4/7] sample-y not resolved (max_steps) in 8 steps, 20.1 s: hit the step limit after 8 steps, no passing submit',
  ]);
});

test('on a terminal the bar is redrawn in place and finished episodes print above it', () => {
  const { chunks, sink: s } = sink(true);
  let now = 0;
  const p = new RolloutProgress(s, () => now, 60_000);
  p.runStarted({ total: 4, alreadyFinished: 0 });
  p.episodeStarted(spec);
  p.episodeStarted(spec);
  now = 10_000;
  p.episodeFinished(spec, result('a'));
  p.stop();
  const text = chunks.join('');
  const redraws = text.split('\r\x1b[2K').length - 1;
  assert.ok(redraws >= 4, `the line is cleared and redrawn (${redraws} times)`);
  assert.ok(text.includes('\r\x1b[2K[1/4] a resolved in 4 steps, 12.3 s\n'), 'the finished line is printed on a cleared line');
  assert.match(text, /\[#{5,}-+\] 1\/4 · 1 resolved · 1 running · 0:10 elapsed · ETA 0:30/);
  assert.ok(text.endsWith('\r\x1b[2K'), 'stop leaves a clean line');
  for (const draw of text.split('\r\x1b[2K')) assert.ok(!draw.includes('\n') || draw.endsWith('\n'), 'a redraw never spans lines');
});

test('the bar fits the terminal width and the ETA waits for a first finished episode', () => {
  const state = { total: 10, done: 3, doneHere: 0, resolved: 1, running: 2, elapsedMs: 65_000 };
  assert.equal(eta(state), undefined);
  assert.match(renderBar(state, 200), /ETA \?$/);
  assert.ok(renderBar(state, 40).length <= 39);
  assert.equal(eta({ ...state, doneHere: 2, done: 5 }), 162_500);
  assert.equal(formatDuration(3_725_000), '1:02:05');
  assert.equal(
    renderFinished(1, 2, result('z', { resolved: false, termination_reason: 'error', error: 'boom', steps: 0, duration_ms: 1200 }).end),
    '[1/2] z not resolved (error) in 0 steps, 1.2 s: error: boom',
  );
});
