/** The docs test's parts: which fenced blocks are runnable, where they are, and how a failing or hanging block is reported. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { defaultBlockTimeoutS, describeFailure, runBlock, runnableBlocks, runnableInfo } from '../support/runnableBlocks.js';

const page = [
  '# A page', //                                  line 1
  '',
  '```sh', //                                     3: plain sh, shown only
  'gp train configs/experiments/planner_8g.yaml',
  '```',
  '',
  '```sh runnable', //                            7
  'gp dataset validate datasets/sample/tasks.jsonl',
  '```',
  '',
  '1. In a list:',
  '',
  '   ```sh runnable timeout=5', //               13: indented under a list item
  '   echo listed',
  '   ```',
  '',
  '````markdown', //                              17: a runnable fence shown inside another is text
  '```sh runnable',
  'rm -rf /',
  '```',
  '````',
  '',
  '```bash runnable', //                          23: only sh is the marker's language
  'echo not run',
  '```',
].join('\n');

test('finds the sh blocks marked runnable, with the line of their opening fence, and no other', () => {
  const blocks = runnableBlocks(page, 'docs/page.md');
  assert.deepEqual(
    blocks.map((b) => [b.line, b.code, b.timeoutS]),
    [
      [7, 'gp dataset validate datasets/sample/tasks.jsonl\n', defaultBlockTimeoutS],
      [13, 'echo listed\n', 5],
    ],
  );
  assert.equal(blocks[0]?.file, 'docs/page.md');
});

test('a malformed timeout names the file and line of its block', () => {
  assert.throws(
    () => runnableBlocks('text\n\n```sh runnable timeout=soon\nls\n```\n', 'docs/x.md'),
    /docs\/x\.md:3: sh runnable timeout=soon: timeout= needs a whole number of seconds/,
  );
  assert.equal(runnableInfo('sh'), undefined);
  assert.equal(runnableInfo('shell runnable'), undefined);
});

test('a block that fails reports its file and line, its exit status, the block and the end of its output', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-blocks-'));
  try {
    const [ok, failing] = runnableBlocks(
      '```sh runnable\necho fine\n```\n\nSome text.\n\n```sh runnable\necho first\nfalse\necho never\n```\n',
      'docs/page.md',
    );
    assert.ok(ok && failing);
    const good = await runBlock(ok, dir, dir);
    assert.equal(good.code, 0);
    assert.equal(good.output, 'fine\n');
    const bad = await runBlock(failing, dir, dir);
    assert.equal(bad.code, 1, 'bash -e stops at the first command that fails');
    assert.equal(bad.output, 'first\n');
    assert.match(
      describeFailure(failing, bad),
      /^docs\/page\.md:7: the runnable block exited 1 after \d+\.\d s\.\n--- block ---\necho first\nfalse\necho never\n--- output \(last 40 lines\) ---\nfirst$/,
    );
    const [piped] = runnableBlocks('```sh runnable\nfalse | cat\n```\n', 'p.md');
    assert.ok(piped);
    assert.equal((await runBlock(piped, dir, dir)).code, 1, 'a failure inside a pipeline fails the block');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a block that runs past its time limit is stopped with everything it started', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-blocks-'));
  try {
    const [slow] = runnableBlocks('```sh runnable timeout=1\nsleep 30 &\nsleep 30\n```\n', 'docs/slow.md');
    assert.ok(slow);
    const started = Date.now();
    const result = await runBlock(slow, dir, dir);
    assert.ok(Date.now() - started < 10_000, 'the background sleep did not hold the block open');
    assert.equal(result.timedOut, true);
    assert.match(describeFailure(slow, result), /^docs\/slow\.md:1: the runnable block ran past its 1 s limit and was stopped/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
