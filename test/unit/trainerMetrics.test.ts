import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { MetricsLine } from '../../server/src/protocol/metrics.js';
import { MetricsTail, Watchdog } from '../../server/src/trainer/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-metrics-tail-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function tailOf(file: string) {
  const lines: MetricsLine[] = [];
  const warnings: string[] = [];
  const tail = new MetricsTail({ source: file, attempt: 2, append: async (l) => void lines.push(l), warn: (w) => warnings.push(w) });
  return { tail, lines, warnings };
}

test('copies complete file-logger lines with their step, attempt and numeric values only', async () => {
  const file = join(dir, 'a.jsonl');
  const { tail, lines, warnings } = tailOf(file);
  await tail.poll();
  assert.equal(lines.length, 0, 'no file yet is not an error');
  writeFileSync(file, '{"step": 1, "data": {"critic/score/mean": 0.5, "note": "text", "nan": NaN}}\n{"step": 2, "data": {"critic/sc');
  await tail.poll();
  assert.equal(lines.length, 1, 'a line Verl is still writing waits for its end');
  assert.deepEqual(lines[0], { ...lines[0], source: 'verl', attempt: 2, step: 1, data: { 'critic/score/mean': 0.5 } });
  appendFileSync(file, 'ore/mean": 0.75}}\n');
  await tail.poll();
  assert.deepEqual(
    lines.map((l) => (l.source === 'verl' ? [l.step, l.data['critic/score/mean']] : [])),
    [
      [1, 0.5],
      [2, 0.75],
    ],
  );
  assert.deepEqual(tail.steps, [1, 2]);
  assert.deepEqual(warnings, [], 'Python writes NaN, which is not JSON: the line is kept without it');
});

test('skips a line that is not Verl’s shape, naming the file and line', async () => {
  const file = join(dir, 'b.jsonl');
  writeFileSync(file, 'not json\n{"steps": 3}\n{"step": 4, "data": {"x": 1}}\n');
  const { tail, lines, warnings } = tailOf(file);
  await tail.stop();
  assert.deepEqual(
    lines.map((l) => (l.source === 'verl' ? l.step : -1)),
    [4],
  );
  assert.equal(warnings.length, 2);
  assert.match(warnings[0] ?? '', /b\.jsonl:1: not JSON/);
  assert.match(warnings[1] ?? '', /b\.jsonl:2: not a Verl file-logger line/);
});

test('reads a file that was truncated from its start again, and says so', async () => {
  const file = join(dir, 'c.jsonl');
  writeFileSync(file, '{"step": 1, "data": {"x": 1}}\n{"step": 2, "data": {"x": 2}}\n');
  const { tail, lines, warnings } = tailOf(file);
  await tail.poll();
  writeFileSync(file, '{"step": 3, "data": {"x": 3}}\n');
  await tail.poll();
  assert.deepEqual(tail.steps, [1, 2, 3]);
  assert.equal(lines.length, 3);
  assert.match(warnings.join('\n'), /shrank/);
});

test('the watchdog fires once when nothing has happened for its limit, and not before', () => {
  let now = 0;
  const fired: number[] = [];
  const dog = new Watchdog(
    1000,
    (quiet) => fired.push(quiet),
    () => now,
  );
  now = 900;
  dog.check();
  dog.touch();
  now = 1800;
  dog.check();
  assert.deepEqual(fired, [], 'a touch restarts the count');
  now = 1900;
  dog.check();
  now = 5000;
  dog.check();
  assert.deepEqual(fired, [1000]);
});
