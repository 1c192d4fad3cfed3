/**
 * Which documents the language client hands to the server, built from the glob settings.
 */

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { datasetFilters, datasetWatchGlobs, documentSelector, experimentFilters, normaliseGlob } from '../../extension/src/documentSelector.js';
import { defaultClientSettings } from '../../extension/src/clientSettings.js';

describe('document selector', () => {
  test('selects experiment YAML on disk and dataset files of any language for the default globs', () => {
    assert.deepEqual(documentSelector(defaultClientSettings), [
      { scheme: 'file', language: 'yaml', pattern: '**/configs/**/*.{yaml,yml}' },
      { scheme: 'file', language: 'yaml', pattern: '**/*.gp.yaml' },
      { scheme: 'file', pattern: '**/datasets/**/*.jsonl' },
    ]);
  });

  test('never restricts the language of dataset files', () => {
    for (const filter of datasetFilters({ datasetGlobs: ['data/*.jsonl', '**/*.ndjson'] })) {
      assert.equal('language' in filter, false);
      assert.equal(filter.scheme, 'file');
    }
  });

  test('selects nothing when both glob lists are empty', () => {
    assert.deepEqual(documentSelector({ experimentGlobs: [], datasetGlobs: [] }), []);
  });

  test('lists a glob once even when the setting repeats it', () => {
    const filters = experimentFilters({ experimentGlobs: ['exp/*.yaml', './exp/*.yaml', '**/exp/*.yaml'] });
    assert.deepEqual(
      filters.map((f) => f.pattern),
      ['**/exp/*.yaml'],
    );
  });

  test('watches exactly the dataset globs, so the server hears about files changed on disk', () => {
    assert.deepEqual(datasetWatchGlobs({ datasetGlobs: ['**/datasets/**/*.jsonl', 'big/*.jsonl'] }), ['**/datasets/**/*.jsonl', '**/big/*.jsonl']);
  });
});

describe('glob normalisation', () => {
  test('anchors a workspace-relative glob anywhere in the path', () => {
    assert.equal(normaliseGlob('configs/*.yaml'), '**/configs/*.yaml');
    assert.equal(normaliseGlob('./configs/*.yaml'), '**/configs/*.yaml');
  });

  test('keeps globs that already start with ** or are absolute', () => {
    assert.equal(normaliseGlob('**/*.gp.yaml'), '**/*.gp.yaml');
    assert.equal(normaliseGlob('/srv/configs/*.yaml'), '/srv/configs/*.yaml');
    assert.equal(normaliseGlob('C:\\work\\configs\\*.yaml'), 'C:/work/configs/*.yaml');
  });
});
