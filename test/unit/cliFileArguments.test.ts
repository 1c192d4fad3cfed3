/**
 * Every command that reads a task file, given a folder or a misspelt file, says which path is wrong
 * and what to pass, and exits with the usage status 2: never "internal error: EISDIR" and 70.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runGp } from '../support/cli.js';

const cwd = process.cwd();
const files = 'datasets/sample/gold_predictions_tasks.jsonl, datasets/sample/legacy_flat.jsonl, datasets/sample/tasks.jsonl';

for (const args of [
  ['rollout', 'datasets/sample'],
  ['eval', 'datasets/sample'],
  ['task', 'test', 'datasets/sample'],
  ['dataset', 'verify', 'datasets/sample'],
  ['env', 'build', 'datasets/sample'],
]) {
  test(`gp ${args.join(' ')} names the folder and the task files inside it, and exits 2`, async () => {
    const r = await runGp(cwd, [...args, '--backend', 'local'].slice(0, args[0] === 'env' ? 3 : undefined));
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, new RegExp(`datasets/sample is a folder; pass one of its task files: ${files.replace(/[./]/g, '\\$&')}\\.`));
    assert.doesNotMatch(r.err, /internal error|EISDIR/);
  });
}

test('gp rollout with a misspelt task file asks "did you mean" the closest file beside it', async () => {
  const r = await runGp(cwd, ['rollout', 'datasets/sample/taks.jsonl', '--backend', 'local']);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /datasets\/sample\/taks\.jsonl: no such file\. Did you mean datasets\/sample\/tasks\.jsonl\?/);
});

test('gp task test --patch with a folder says so and exits 2', async () => {
  const r = await runGp(cwd, ['task', 'test', 'datasets/sample/tasks.jsonl', '--patch', 'datasets', '--backend', 'local']);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /--patch datasets: is a folder; pass a patch file/);
});
