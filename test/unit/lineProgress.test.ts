import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytes, LineProgress } from '../../server/src/cli/lineProgress.js';
import { bar } from '../../server/src/cli/progress.js';

function sink(isTTY: boolean) {
  const written: string[] = [];
  return { written, sink: { isTTY, columns: 20, write: (t: string) => void written.push(t) } };
}

test('on a terminal the line is redrawn in place at most every 100 ms, clipped to the width, and ended by done()', () => {
  let now = 1000;
  const { written, sink: s } = sink(true);
  const progress = new LineProgress(s, () => now);
  progress.update('first line that is far too long for twenty columns');
  progress.update('dropped: too soon');
  now += 100;
  progress.update('second');
  progress.done();
  assert.deepEqual(written, ['\r\u001b[2Kfirst line that is ', '\r\u001b[2Ksecond', '\n']);
});

test('elsewhere a plain line is printed at most every five seconds, unless forced', () => {
  let now = 0;
  const { written, sink: s } = sink(false);
  const progress = new LineProgress(s, () => now);
  now = 10_000;
  progress.update('a');
  now += 4_999;
  progress.update('b');
  progress.update('c', true);
  progress.done();
  assert.deepEqual(written, ['a\n', 'c\n']);
});

test('bytes and bars read as a person expects', () => {
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(300 * 1024 * 1024), '300 MiB');
  assert.equal(bar(0.5, 10), '[#####-----]');
  assert.equal(bar(2, 4), '[####]');
});
