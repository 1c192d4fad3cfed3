import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EventTail } from '../../server/src/runs/index.js';

const start = (id: string) => `${JSON.stringify({ ts: '2026-11-23T10:00:00.000Z', kind: 'episode-start', episode_id: id, task_id: id })}\n`;

test('reads only what was appended since the last read, holding back a line without its newline', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-tail-'));
  const path = join(dir, 'events.jsonl');
  const tail = new EventTail(path);
  assert.deepEqual(await tail.read(), { events: [], problems: [], restarted: false, missing: true });
  writeFileSync(path, start('a'));
  assert.deepEqual(
    (await tail.read()).events.map((e) => e.kind === 'episode-start' && e.episode_id),
    ['a'],
  );
  const b = start('b');
  appendFileSync(path, b.slice(0, 20));
  const partial = await tail.read();
  assert.deepEqual(partial.events, [], 'half a line is not an event yet');
  assert.deepEqual(partial.problems, [], 'nor a problem');
  appendFileSync(path, b.slice(20) + start('c'));
  assert.deepEqual(
    (await tail.read()).events.map((e) => e.kind === 'episode-start' && e.episode_id),
    ['b', 'c'],
  );
  assert.deepEqual((await tail.read()).events, [], 'nothing new, nothing read');
});

test('names a bad line by its number and goes on; starts again when the file got shorter; says when it is gone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-tail-'));
  const path = join(dir, 'events.jsonl');
  writeFileSync(path, `${start('a')}{not json\n${JSON.stringify({ kind: 'bogus' })}\n${start('b')}`);
  const tail = new EventTail(path);
  const first = await tail.read();
  assert.equal(first.events.length, 2);
  assert.equal(first.problems.length, 2);
  assert.match(first.problems[0] ?? '', /^events\.jsonl:2: not JSON/);
  assert.match(first.problems[1] ?? '', /^events\.jsonl:3: /);
  writeFileSync(path, start('z'));
  const again = await tail.read();
  assert.equal(again.restarted, true);
  assert.deepEqual(
    again.events.map((e) => e.kind === 'episode-start' && e.episode_id),
    ['z'],
  );
  rmSync(dir, { recursive: true, force: true });
  assert.equal((await tail.read()).missing, true);
});

test('a new file in the place of the old one (a new run in the folder) is read from its start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-tail-'));
  const path = join(dir, 'events.jsonl');
  writeFileSync(path, start('a'));
  const tail = new EventTail(path);
  await tail.read();
  // Written beside the old file and renamed over it, as an atomic replace does: two inodes at once.
  writeFileSync(join(dir, 'next.jsonl'), start('x') + start('y'));
  const { renameSync } = await import('node:fs');
  renameSync(join(dir, 'next.jsonl'), path);
  const read = await tail.read();
  assert.equal(read.restarted, true);
  assert.deepEqual(
    read.events.map((e) => e.kind === 'episode-start' && e.episode_id),
    ['x', 'y'],
  );
});
