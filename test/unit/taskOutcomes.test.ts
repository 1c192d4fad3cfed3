import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { TaskOutcomes } from '../../server/src/runs/index.js';

interface End {
  readonly task: string;
  readonly ts: string;
  readonly resolved?: boolean;
  readonly reason?: string;
}

function endLine({ task, ts, resolved = false, reason = 'submitted' }: End): string {
  const event = {
    ts,
    kind: 'episode-end',
    episode_id: `${task}#1`,
    task_id: task,
    resolved,
    steps: 3,
    total_reward: resolved ? 1 : 0,
    termination_reason: reason,
    duration_ms: 10,
  };
  return `${JSON.stringify(event)}\n`;
}

/** A run folder as `gp rollout` leaves it: a resolved config (which makes it a run) and its events. */
function run(root: string, name: string, events: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'resolved_config.yaml'), 'agent: rule\n');
  writeFileSync(join(dir, 'events.jsonl'), events);
  return dir;
}

const scratch = () => mkdtempSync(join(tmpdir(), 'gp-outcomes-'));

test('the latest episode end of a task wins across runs, whichever run is read first', async () => {
  const root = scratch();
  const older = run(
    root,
    'b-older',
    endLine({ task: 't1', ts: '2026-11-01T10:00:00.000Z', resolved: true }) + endLine({ task: 't2', ts: '2026-11-01T10:00:01.000Z' }),
  );
  const newer = run(root, 'a-newer', endLine({ task: 't1', ts: '2026-11-02T10:00:00.000Z', reason: 'error' }));
  const outcomes = new TaskOutcomes();
  const first = await outcomes.refresh([root]);
  assert.deepEqual(first, { changed: true, problems: [] });
  assert.deepEqual(outcomes.latest('t1'), { outcome: 'error', run: newer, ts: '2026-11-02T10:00:00.000Z' });
  assert.deepEqual(outcomes.latest('t2'), { outcome: 'unresolved', run: older, ts: '2026-11-01T10:00:01.000Z' });
  assert.equal(outcomes.latest('t3'), undefined, 'a task that never ran has no outcome');

  appendFileSync(join(older, 'events.jsonl'), endLine({ task: 't1', ts: '2026-11-03T10:00:00.000Z', resolved: true }));
  assert.equal((await outcomes.refresh([root])).changed, true);
  assert.equal(outcomes.latest('t1')?.outcome, 'resolved', 'a newer end in the other run takes over');
  assert.equal((await outcomes.refresh([root])).changed, false, 'nothing appended, nothing changed');
  rmSync(root, { recursive: true, force: true });
});

test('a truncated last line is ignored until it is completed', async () => {
  const root = scratch();
  const line = endLine({ task: 't1', ts: '2026-11-01T10:00:00.000Z', resolved: true });
  const dir = run(root, 'r', line.slice(0, 40));
  const outcomes = new TaskOutcomes();
  const partial = await outcomes.refresh([root]);
  assert.deepEqual(partial, { changed: false, problems: [] }, 'half a line is neither an outcome nor a problem');
  assert.equal(outcomes.latest('t1'), undefined);
  appendFileSync(join(dir, 'events.jsonl'), line.slice(40));
  assert.equal((await outcomes.refresh([root])).changed, true);
  assert.equal(outcomes.latest('t1')?.outcome, 'resolved');
  rmSync(root, { recursive: true, force: true });
});

test('a corrupt run is skipped with a problem and the others still count', async () => {
  const root = scratch();
  const good = run(root, 'good', endLine({ task: 't1', ts: '2026-11-01T10:00:00.000Z', resolved: true }));
  run(root, 'garbage', `{not json\n${JSON.stringify({ kind: 'episode-end' })}\n`);
  // A folder where events.jsonl should be: it cannot be read at all.
  const broken = join(root, 'broken');
  mkdirSync(join(broken, 'events.jsonl'), { recursive: true });
  writeFileSync(join(broken, 'status.json'), '{ torn');
  const outcomes = new TaskOutcomes();
  const { problems } = await outcomes.refresh([root, join(root, 'no-such-root')]);
  assert.deepEqual(outcomes.latest('t1'), { outcome: 'resolved', run: good, ts: '2026-11-01T10:00:00.000Z' });
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.ok(
    problems.some((p) => p.startsWith(join(root, 'garbage')) && p.includes('events.jsonl:1: not JSON')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.startsWith(broken)),
    problems.join('\n'),
  );
  rmSync(root, { recursive: true, force: true });
});

test('an interrupted episode is not an outcome, and a removed run takes its outcomes with it', async () => {
  const root = scratch();
  run(root, 'one', endLine({ task: 't1', ts: '2026-11-01T10:00:00.000Z' }));
  run(root, 'two', endLine({ task: 't1', ts: '2026-11-02T10:00:00.000Z', reason: 'interrupted' }));
  const outcomes = new TaskOutcomes();
  await outcomes.refresh([root]);
  assert.equal(outcomes.latest('t1')?.outcome, 'unresolved', 'the interrupted episode later on does not hide the finished one');
  rmSync(join(root, 'one'), { recursive: true, force: true });
  assert.equal((await outcomes.refresh([root])).changed, true);
  assert.equal(outcomes.latest('t1'), undefined);
  rmSync(root, { recursive: true, force: true });
});
