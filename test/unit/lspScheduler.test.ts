import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newScheduleState, Scheduler, type Clock } from '../../server/src/lsp/scheduler.js';

/** A clock that moves only when the test says so, running due timers in order. */
function manualClock() {
  let now = 1_000;
  let nextId = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  const clock: Clock = {
    now: () => now,
    setTimeout: (run, delayMs) => {
      const id = ++nextId;
      timers.set(id, { at: now + delayMs, run });
      return id as unknown as ReturnType<typeof setTimeout>; // The scheduler only hands the handle back to clearTimeout.
    },
    clearTimeout: (timer) => {
      timers.delete(timer as unknown as number);
    },
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at <= now && timers.delete(id)) t.run();
    }
  };
  return { clock, advance, pending: () => timers.size };
}

test('validates an edit after a quiet spell at once', () => {
  const { clock } = manualClock();
  const scheduler = new Scheduler(clock);
  const runs: string[] = [];
  scheduler.schedule(newScheduleState(), 15, () => runs.push('first'));
  assert.deepEqual(runs, ['first']);
});

test('coalesces a burst of edits within the delay into one run after the burst', () => {
  const { clock, advance } = manualClock();
  const scheduler = new Scheduler(clock);
  const state = newScheduleState();
  const runs: number[] = [];
  scheduler.schedule(state, 100, () => runs.push(1));
  for (let v = 2; v <= 5; v++) {
    advance(10);
    scheduler.schedule(state, 100, () => runs.push(v));
  }
  assert.deepEqual(runs, [1], 'edits inside the delay wait');
  advance(99);
  assert.deepEqual(runs, [1], 'the delay restarts with every edit');
  advance(1);
  assert.deepEqual(runs, [1, 5], 'only the last edit of the burst runs');
  advance(500);
  assert.deepEqual(runs, [1, 5]);
});

test('a burst longer than the delay still waits for quiet, however long ago the last run was', () => {
  const { clock, advance } = manualClock();
  const scheduler = new Scheduler(clock);
  const state = newScheduleState();
  const runs: number[] = [];
  scheduler.schedule(state, 100, () => runs.push(1));
  advance(90);
  scheduler.schedule(state, 100, () => runs.push(2));
  advance(60);
  scheduler.schedule(state, 100, () => runs.push(3));
  assert.deepEqual(runs, [1], 'a keystroke while a run is pending never runs at once');
  advance(100);
  assert.deepEqual(runs, [1, 3]);
});

test('runs at once with no delay, replacing a pending run', () => {
  const { clock, advance } = manualClock();
  const scheduler = new Scheduler(clock);
  const state = newScheduleState();
  const runs: string[] = [];
  scheduler.schedule(state, 100, () => runs.push('open'));
  scheduler.schedule(state, 100, () => runs.push('edit'));
  scheduler.schedule(state, 0, () => runs.push('settings changed'));
  advance(1_000);
  assert.deepEqual(runs, ['open', 'settings changed']);
});

test('keeps documents apart: a burst in one does not delay another', () => {
  const { clock, advance } = manualClock();
  const scheduler = new Scheduler(clock);
  const [a, b] = [newScheduleState(), newScheduleState()];
  const runs: string[] = [];
  scheduler.schedule(a, 100, () => runs.push('a1'));
  scheduler.schedule(a, 100, () => runs.push('a2'));
  scheduler.schedule(b, 100, () => runs.push('b1'));
  assert.deepEqual(runs, ['a1', 'b1']);
  advance(100);
  assert.deepEqual(runs, ['a1', 'b1', 'a2']);
});

test('a cancelled document and a stopped scheduler run nothing more', () => {
  const { clock, advance, pending } = manualClock();
  const scheduler = new Scheduler(clock);
  const [closed, open] = [newScheduleState(), newScheduleState()];
  const runs: string[] = [];
  scheduler.schedule(closed, 100, () => runs.push('closed 1'));
  scheduler.schedule(closed, 100, () => runs.push('closed 2'));
  scheduler.cancel(closed);
  assert.equal(closed.timer, undefined);
  scheduler.schedule(open, 100, () => runs.push('open 1'));
  scheduler.schedule(open, 100, () => runs.push('open 2'));
  scheduler.stop();
  assert.equal(pending(), 0, 'stopping clears every pending timer');
  scheduler.schedule(open, 0, () => runs.push('after stop'));
  advance(1_000);
  assert.deepEqual(runs, ['closed 1', 'open 1']);
});
