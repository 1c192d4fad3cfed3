import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CodeAction } from 'vscode-languageserver/node';
import { startHarness, type Harness } from '../support/lspHarness.js';

const good = (id: string) => JSON.stringify({ task_id: id, sandbox: { docker_image: 'graph-planner/repoenv-sample:latest', workdir: '/testbed' } });

let h: Harness;
before(async () => {
  h = await startHarness({ validationDelayMs: 0 });
});
after(() => h.close());

test('reports a broken line on that line only, with the column', async () => {
  const u = 'file:///ws/datasets/a.jsonl';
  const ds = await h.open(u, [good('t1'), '{"task_id": "t2", "sandbox": {"docker_image": "img", }', good('t3')].join('\n'));
  assert.equal(ds.length, 1);
  assert.equal(ds[0]?.code, 'jsonl/syntax');
  assert.equal(ds[0]?.range.start.line, 1);
  assert.ok((ds[0]?.range.start.character ?? 0) > 40, 'the column points into the line, near the stray comma');
});

test('reports duplicate task ids and a task without an image', async () => {
  const u = 'file:///ws/datasets/b.jsonl';
  const ds = await h.open(u, [good('same'), good('same'), JSON.stringify({ task_id: 'x', sandbox: { workdir: '/testbed' } })].join('\n'));
  const codes = ds.map((d) => `${d.range.start.line}:${String(d.code)}`);
  assert.ok(codes.includes('1:task/duplicate-id'), codes.join(' '));
  assert.ok(codes.includes('2:task/missing-image'), codes.join(' '));
});

test('offers a quick fix that rewrites a legacy flat row in the nested shape', async () => {
  const u = 'file:///ws/datasets/legacy.jsonl';
  const text = readFileSync('datasets/sample/legacy_flat.jsonl', 'utf8');
  const ds = await h.open(u, text);
  const legacy = ds.find((d) => d.code === 'task/legacy-shape');
  assert.ok(legacy, JSON.stringify(ds.map((d) => d.code)));
  const actions = (await h.client.sendRequest('textDocument/codeAction', {
    textDocument: { uri: u },
    range: legacy.range,
    context: { diagnostics: [legacy] },
  })) as CodeAction[];
  const rewrite = actions.find((a) => a.edit?.changes?.[u]);
  assert.ok(rewrite, JSON.stringify(actions.map((a) => a.title)));
  const newText = rewrite.edit?.changes?.[u]?.[0]?.newText ?? '';
  const row = JSON.parse(newText) as { sandbox: { docker_image: string; test_command: string } };
  assert.equal(row.sandbox.docker_image, 'graph-planner/repoenv-sample:latest');
  assert.equal(row.sandbox.test_command, 'pytest -k failing');
  const after = await h.change(u, 2, newText);
  assert.ok(!after.some((d) => d.code === 'task/legacy-shape'), JSON.stringify(after.map((d) => d.code)));
  // The seed's id holds a `/`, which a task id may not (issue 21): its own fix renames it.
  const id = after.find((d) => d.code === 'task/schema');
  assert.ok(id, JSON.stringify(after.map((d) => d.code)));
  const idActions = (await h.client.sendRequest('textDocument/codeAction', {
    textDocument: { uri: u },
    range: id.range,
    context: { diagnostics: [id] },
  })) as CodeAction[];
  const rename = idActions.find((a) => a.title === 'Change the id to `R2E-Gym__R2E-Gym-Lite:train:00042`');
  assert.ok(rename, JSON.stringify(idActions.map((a) => a.title)));
  const edit = rename.edit?.changes?.[u]?.[0];
  assert.ok(edit !== undefined && edit.range.start.line === 0 && edit.range.end.line === 0);
  const line = newText.split('\n')[0] ?? '';
  const renamed = `${line.slice(0, edit.range.start.character)}${edit.newText}${line.slice(edit.range.end.character)}`;
  assert.match(renamed, /"task_id":\s*"R2E-Gym__R2E-Gym-Lite:train:00042"/);
  const fixed = await h.change(u, 3, renamed);
  assert.ok(!fixed.some((d) => d.severity === 1), JSON.stringify(fixed.map((d) => d.code)));
});

test('validates a dataset too large for the editor from disk and sends a summary', async () => {
  const root = mkdtempSync(join(tmpdir(), 'gp-ws-'));
  mkdirSync(join(root, 'datasets'));
  const lines = Array.from({ length: 2000 }, (_, i) => good(`t${i}`));
  lines[1500] = '{"task_id": broken';
  writeFileSync(join(root, 'datasets', 'big.jsonl'), `${lines.join('\n')}\n`);
  const big = await startHarness({ largeDatasetBytes: 10_000 }, root);
  try {
    const uri = `file://${join(root, 'datasets', 'big.jsonl')}`;
    const ds = await big.diagnosticsFor(uri, undefined, 10_000);
    assert.deepEqual(
      ds.map((d) => `${d.range.start.line}:${String(d.code)}`),
      ['1500:jsonl/syntax'],
    );
    const summary = (await big.notification('graphPlanner/datasetSummary')) as { lines: number; errors: number; fromDisk: boolean; uri: string };
    assert.equal(summary.uri, uri);
    assert.equal(summary.lines, 2000);
    assert.equal(summary.errors, 1);
    assert.equal(summary.fromDisk, true);
  } finally {
    await big.close();
  }
});

test('a 50,000-line dataset and a binary file come back with findings, not a crash', async () => {
  const many = Array.from({ length: 50_000 }, (_, i) => good(`n${i}`)).join('\n');
  assert.deepEqual(await h.open('file:///ws/datasets/many.jsonl', many), []);
  const binary = Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 131) % 256)).toString('utf8');
  assert.ok((await h.open('file:///ws/datasets/binary.jsonl', binary)).length > 0);
  assert.equal((await h.open('file:///ws/datasets/ok.jsonl', good('alive'))).length, 0, 'the server still answers');
});
