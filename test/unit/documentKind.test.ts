import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify } from '../../server/src/lsp/documentKind.js';
import { defaultSettings } from '../../server/src/protocol/index.js';

test('classifies files by the default globs', () => {
  assert.equal(classify('/ws/configs/experiments/a.yaml', defaultSettings), 'experiment');
  assert.equal(classify('/ws/configs/a.yml', defaultSettings), 'experiment');
  assert.equal(classify('/ws/src/run.gp.yaml', defaultSettings), 'experiment');
  assert.equal(classify('/ws/datasets/r2e/train.jsonl', defaultSettings), 'dataset');
  assert.equal(classify('/ws/.github/workflows/ci.yaml', defaultSettings), 'other');
  assert.equal(classify('/ws/outputs/run-1/events.jsonl', defaultSettings), 'other');
});

test('the gold patches gp dataset prepare writes beside a dataset are not a dataset', () => {
  assert.equal(classify('/ws/datasets/gold_predictions_samples.jsonl', defaultSettings), 'other');
  assert.equal(classify('/ws/datasets/my_gold_predictions.jsonl', defaultSettings), 'dataset');
});

test('honours custom globs, workspace-relative ones at any depth', () => {
  const settings = { experimentGlobs: ['experiments/*.yaml'], datasetGlobs: ['data/*.jsonl'] };
  assert.equal(classify('/home/me/proj/experiments/x.yaml', settings), 'experiment');
  assert.equal(classify('/home/me/proj/configs/x.yaml', settings), 'other');
  assert.equal(classify('C:\\proj\\data\\t.jsonl', settings), 'dataset');
});
