/**
 * The Containers view's event follower with a manual clock and in-memory streams: when it
 * refreshes, why, and that it leaves Docker alone while nobody watches.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { combineReasons, ContainerEventFollower, eventReason, type FollowerClock, type FollowerOptions } from '../../server/src/sandbox/containerEvents.js';

/** A clock that moves only when the test says so, running due timers in order. */
function manualClock() {
  let now = 1_000;
  let nextId = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  const clock: FollowerClock = {
    now: () => now,
    after: (delayMs, run) => {
      const id = ++nextId;
      timers.set(id, { at: now + delayMs, run });
      return () => timers.delete(id);
    },
  };
  const advance = async (ms: number) => {
    const until = now + ms;
    await settle();
    for (;;) {
      const due = [...timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].run();
      await settle();
    }
    now = until;
    await settle();
  };
  return { clock, advance, pending: () => timers.size };
}

/** Lets promise callbacks (stream opening, refreshes) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function dockerEvent(action: string, id = 'c0ffee000000aaaa', run = 'run-a', task = 'task-1'): string {
  return `${JSON.stringify({ Type: 'container', Action: action, Actor: { ID: id, Attributes: { 'graph-planner.run': run, 'graph-planner.task': task } } })}\n`;
}

interface Rig {
  readonly follower: ContainerEventFollower;
  readonly refreshes: string[];
  readonly logs: string[];
  readonly streams: PassThrough[];
  opens: number;
  advance(ms: number): Promise<void>;
  pending(): number;
}

/**
 * A follower whose stream opens fail while `failing()` says so, and whose refreshes are recorded
 * (and take `refreshMs` of clock time when given a resolver).
 */
function rig(options: { failing?: () => boolean; refresh?: (reason: string) => Promise<void> } & Partial<FollowerOptions> = {}): Rig {
  const { clock, advance, pending } = manualClock();
  const refreshes: string[] = [];
  const logs: string[] = [];
  const streams: PassThrough[] = [];
  const state = { opens: 0 };
  const follower = new ContainerEventFollower({
    clock,
    debounceMs: 150,
    pollMs: 30_000,
    firstRetryMs: 1_000,
    maxRetryMs: 8_000,
    ...options,
    open: async () => {
      state.opens++;
      if (options.failing?.() === true) throw new Error('connect ECONNREFUSED /var/run/docker.sock');
      const stream = new PassThrough();
      streams.push(stream);
      return stream;
    },
    refresh: async (reason) => {
      refreshes.push(reason);
      await options.refresh?.(reason);
    },
    log: (line) => logs.push(line),
  });
  return {
    follower,
    refreshes,
    logs,
    streams,
    get opens() {
      return state.opens;
    },
    advance,
    pending,
  };
}

test('coalesces a burst of events into one refresh that names them', async () => {
  const r = rig();
  r.follower.watch(true);
  await r.advance(200);
  assert.deepEqual(r.refreshes, ['event stream connected']);
  const stream = r.streams[0];
  assert.ok(stream);
  stream.write(dockerEvent('kill'));
  stream.write(dockerEvent('die'));
  // A line split across chunks is put back together.
  const stop = dockerEvent('stop');
  stream.write(stop.slice(0, 20));
  await r.advance(100);
  stream.write(stop.slice(20));
  await r.advance(100);
  assert.equal(r.refreshes.length, 1, 'still within the debounce');
  await r.advance(200);
  assert.equal(r.refreshes.length, 2);
  assert.equal(r.refreshes[1], 'event: kill c0ffee000000 (run-a/task-1); event: die c0ffee000000 (run-a/task-1); event: stop c0ffee000000 (run-a/task-1)');
});

test('a steady stream of events still refreshes within the longest wait', async () => {
  const r = rig({ maxWaitMs: 1_000 });
  r.follower.watch(true);
  await r.advance(200);
  const stream = r.streams[0];
  assert.ok(stream);
  for (let i = 0; i < 12; i++) {
    stream.write(dockerEvent('start', `id${i}`.padEnd(16, '0')));
    await r.advance(100);
  }
  assert.ok(r.refreshes.length >= 2, `expected a refresh during the stream, got ${JSON.stringify(r.refreshes)}`);
});

test('ignores events that do not change the list (exec) and lines that are not events', async () => {
  assert.equal(eventReason(JSON.stringify({ Type: 'container', Action: 'exec_start: bash -c ls', Actor: { ID: 'x' } })), undefined);
  assert.equal(eventReason(JSON.stringify({ Type: 'image', Action: 'pull', Actor: { ID: 'x' } })), undefined);
  assert.equal(eventReason('not json'), undefined);
  assert.equal(eventReason(JSON.stringify({ Type: 'container', Action: 'destroy', Actor: { ID: 'abcdef0123456789' } })), 'event: destroy abcdef012345');
  const r = rig();
  r.follower.watch(true);
  await r.advance(200);
  r.streams[0]?.write(`${JSON.stringify({ Type: 'container', Action: 'exec_die', Actor: { ID: 'x' } })}\ngarbage\n`);
  await r.advance(500);
  assert.deepEqual(r.refreshes, ['event stream connected']);
});

test('opens nothing, polls nothing and refreshes nothing while not watching', async () => {
  const r = rig();
  r.follower.nudge('after stop');
  await r.advance(120_000);
  assert.equal(r.opens, 0);
  assert.deepEqual(r.refreshes, []);
  assert.equal(r.pending(), 0);

  r.follower.watch(true);
  await r.advance(200);
  r.follower.watch(false);
  assert.ok(r.streams[0]?.destroyed, 'hiding the view closes the stream');
  assert.equal(r.pending(), 0, 'hiding the view cancels the poll');
  await r.advance(120_000);
  assert.deepEqual(r.refreshes, ['event stream connected']);
  assert.equal(r.opens, 1);
});

test('polls slowly while watching, only after a quiet spell with no other refresh', async () => {
  const r = rig();
  r.follower.watch(true);
  await r.advance(200);
  await r.advance(20_000);
  r.streams[0]?.write(dockerEvent('create'));
  await r.advance(200);
  assert.equal(r.refreshes.length, 2);
  // The event's refresh restarted the poll's wait: no poll 30 s after watching began.
  await r.advance(25_000);
  assert.equal(r.refreshes.length, 2);
  await r.advance(5_500);
  assert.equal(r.refreshes.length, 3);
  assert.equal(r.refreshes[2], 'poll: no refresh for 30 s');
  await r.advance(61_000);
  assert.equal(r.refreshes.length, 5, 'one poll every 30 s');
});

test('refreshes never overlap: reasons that arrive during one make exactly one more after it', async () => {
  let release: (() => void) | undefined;
  let running = 0;
  let most = 0;
  const r = rig({
    refresh: async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => (release = resolve));
      running--;
    },
  });
  r.follower.watch(true);
  await r.advance(200);
  assert.equal(r.refreshes.length, 1, 'the first refresh is running');
  r.streams[0]?.write(dockerEvent('start'));
  await r.advance(200);
  r.streams[0]?.write(dockerEvent('stop'));
  await r.advance(200);
  assert.equal(r.refreshes.length, 1, 'nothing starts while a refresh runs');
  release?.();
  await r.advance(10);
  assert.equal(r.refreshes.length, 2);
  assert.match(r.refreshes[1] ?? '', /start .*; event: stop/);
  release?.();
  await r.advance(10);
  assert.equal(most, 1);
  assert.equal(r.refreshes.length, 2);
});

test('reopens a stream that ends, with a growing delay, and refreshes once when it is lost and once when it is back', async () => {
  let down = false;
  const r = rig({ failing: () => down });
  r.follower.watch(true);
  await r.advance(200);
  down = true;
  r.streams[0]?.end();
  await r.advance(200);
  assert.deepEqual(r.refreshes, ['event stream connected', 'the event stream ended']);
  // Attempts at 1 s, then 2 s, 4 s, 8 s, 8 s after each failure: five in 23 s, no refresh for each.
  await r.advance(23_000);
  assert.equal(r.opens, 6);
  assert.equal(r.refreshes.length, 2, 'a failed reopening does not refresh again');
  assert.match(r.logs.join('\n'), /could not be opened: connect ECONNREFUSED.*reopening in 8000 ms/);
  down = false;
  await r.advance(8_200);
  assert.equal(r.opens, 7);
  assert.equal(r.refreshes.at(-1), 'event stream reconnected (it was down: the event stream ended)');
  // Back up, the delay starts from the first again.
  r.streams[1]?.destroy(new Error('socket hang up'));
  await r.advance(1_200);
  assert.equal(r.opens, 8);
  assert.match(r.logs.join('\n'), /the event stream failed: socket hang up; reopening in 1000 ms/);
});

test('a daemon that is away when watching begins refreshes once, so the view can say so', async () => {
  let down = true;
  const r = rig({ failing: () => down });
  r.follower.watch(true);
  await r.advance(200);
  assert.deepEqual(r.refreshes, ['the event stream could not be opened: connect ECONNREFUSED /var/run/docker.sock']);
  down = false;
  await r.advance(1_200);
  assert.equal(r.refreshes.length, 2);
  assert.match(r.refreshes[1] ?? '', /^event stream reconnected/);
});

test('a nudge while watching goes through the debounce and joins the event it caused', async () => {
  const r = rig();
  r.follower.watch(true);
  await r.advance(200);
  r.follower.nudge('after stop c0ffee000000');
  await r.advance(50);
  r.streams[0]?.write(dockerEvent('stop'));
  await r.advance(200);
  assert.equal(r.refreshes.length, 2);
  assert.equal(r.refreshes[1], 'after stop c0ffee000000; event: stop c0ffee000000 (run-a/task-1)');
});

test('stop closes everything and watching cannot start again', async () => {
  const r = rig();
  r.follower.watch(true);
  await r.advance(200);
  r.follower.stop();
  r.follower.watch(true);
  await r.advance(60_000);
  assert.equal(r.opens, 1);
  assert.equal(r.pending(), 0);
  assert.ok(r.streams[0]?.destroyed);
});

test('combines many reasons into the first three and a count', () => {
  assert.equal(combineReasons(['a', 'b', 'a', 'c', 'd', 'e']), 'a; b; c; and 2 more');
});
