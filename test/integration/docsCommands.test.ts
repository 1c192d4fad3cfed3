/**
 * Every command the documentation marks runnable (```sh runnable, docs/README.md) runs and exits 0:
 * each block in a fresh copy of the repository, as a new user's clone, with `gp` its own CLI. A
 * failure names the page and line of the block, so a documented command cannot rot unseen.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import test from 'node:test';
import { describeFailure, freshCopy, runBlock, runnableBlocks } from '../support/runnableBlocks.js';

const repo = join(__dirname, '..', '..');

/** README.md, every page under docs/, and the walkthrough's pages, which show the terminal's way of each step. */
function documentationFiles(): string[] {
  const below = (dir: string): string[] =>
    readdirSync(join(repo, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(dir, f));
  return ['README.md', ...below('docs'), ...below(join('resources', 'walkthrough'))].sort();
}

const blocks = documentationFiles().flatMap((file) => runnableBlocks(readFileSync(join(repo, file), 'utf8'), relative(repo, join(repo, file))));

test('the documentation marks commands runnable, so this test has something to hold', () => {
  assert.ok(blocks.length > 0, 'no ```sh runnable block was found in README.md, docs/ or resources/walkthrough/');
});

for (const block of blocks) {
  test(`${block.file}:${block.line} runs on the samples in a fresh copy and exits 0`, { timeout: (block.timeoutS + 60) * 1000 }, async () => {
    const copy = freshCopy(repo);
    try {
      const result = await runBlock(block, copy.root, copy.bin);
      assert.ok(result.code === 0 && !result.timedOut, describeFailure(block, result));
    } finally {
      rmSync(copy.root, { recursive: true, force: true });
    }
  });
}
