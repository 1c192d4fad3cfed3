import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkConfigText } from '../../server/src/config/index.js';
import { DocumentStore } from '../../server/src/lsp/documentStore.js';
import { emptyLineCache } from '../../server/src/lsp/jsonlService.js';
import { validateLine } from '../../server/src/tasks/index.js';

const uri = 'file:///ws/configs/a.yaml';

test('starts an opened document with its version and nothing derived yet', () => {
  const store = new DocumentStore();
  const doc = store.open(uri, 3);
  assert.equal(store.get(uri), doc);
  assert.equal(doc.openedVersion, 3);
  assert.equal(doc.kind, undefined);
  assert.equal(doc.check, undefined);
  assert.equal(doc.disk, undefined);
  assert.equal(doc.lines, emptyLineCache);
  assert.deepEqual(doc.schedule, { timer: undefined, lastRunAt: 0 });
});

test('keeps each document its own state', () => {
  const store = new DocumentStore();
  const a = store.open(uri, 1);
  const b = store.open('file:///ws/datasets/t.jsonl', 1);
  a.kind = 'experiment';
  a.check = { version: 1, check: checkConfigText('env:\n  max_steps: 3\n') };
  b.kind = 'dataset';
  b.lines = new Map([['{}', validateLine('{}')]]);
  assert.equal(store.get(uri)?.kind, 'experiment');
  assert.equal(store.get('file:///ws/datasets/t.jsonl')?.check, undefined);
  assert.equal(store.get(uri)?.lines.size, 0);
  assert.deepEqual(
    store.all().map((d) => d.uri),
    [uri, 'file:///ws/datasets/t.jsonl'],
  );
});

test('drops everything about a document when it closes and hands back its last state', () => {
  const store = new DocumentStore();
  const doc = store.open(uri, 1);
  doc.kind = 'experiment';
  doc.disk = { key: 'k', findings: [] };
  assert.equal(store.close(uri), doc);
  assert.equal(store.get(uri), undefined);
  assert.deepEqual(store.all(), []);
  assert.equal(store.close(uri), undefined, 'a second close finds nothing');
  const reopened = store.open(uri, 7);
  assert.equal(reopened.kind, undefined, 'a reopened document starts afresh');
  assert.equal(reopened.disk, undefined);
});

test('forgets kinds and disk findings when the settings change, and keeps the checks', () => {
  const store = new DocumentStore();
  const doc = store.open(uri, 2);
  const check = checkConfigText('env:\n  max_steps: 3\n');
  doc.kind = 'experiment';
  doc.check = { version: 2, check };
  doc.disk = { key: 'k', findings: [] };
  store.settingsChanged();
  assert.equal(doc.kind, undefined);
  assert.equal(doc.disk, undefined);
  assert.equal(doc.check?.check, check);
  assert.equal(doc.openedVersion, 2);
});
