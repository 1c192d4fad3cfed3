/**
 * `env.semantic_search` without the model (launch/semanticSearch.ts): the hints fall back to anchors
 * and BM25, the reason is logged once for the whole process, and `off` asks for nothing. This file
 * points the model folder at an empty one before anything loads it (each test file is a process).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

process.env['GP_EMBEDDING_MODEL_DIR'] = mkdtempSync(join(tmpdir(), 'gp-no-model-'));

test('without the model the provider answers undefined, says why once, and rank names the retrievers that ran', async () => {
  const { semanticProvider } = await import('../../server/src/launch/semanticSearch.js');
  const { buildCodeGraphFromFiles } = await import('../../server/src/graph/index.js');
  const lines: string[] = [];
  const provider = semanticProvider('auto', (line) => lines.push(line));
  assert.ok(provider !== undefined);
  const graph = await buildCodeGraphFromFiles([{ path: 'a.py', text: 'def add(a, b):\n    return a - b\n' }]);
  assert.equal(await provider(graph), undefined);
  assert.equal(await provider(await buildCodeGraphFromFiles([{ path: 'b.py', text: 'x = 1\n' }])), undefined);
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(
    lines[0] ?? '',
    /^semantic search is off: .*gp-no-model-.* \(hints come from anchors and BM25; scripts\/setup-embedding-model\.sh installs the model\)$/,
  );
  const ranking = await graph.rank({ title: 'add() subtracts', body: '' });
  assert.deepEqual(ranking.retrievers, ['anchors', 'bm25', 'text']);
  assert.equal(semanticProvider('off'), undefined);
});

test('queued builds run one after another, in order, and a failed one does not stop the next', async () => {
  const { afterQueued } = await import('../../server/src/launch/semanticSearch.js');
  const events: string[] = [];
  const slow =
    (name: string, ms: number, fail = false) =>
    async () => {
      events.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      events.push(`end ${name}`);
      if (fail) throw new Error(name);
      return name;
    };
  const a = afterQueued(slow('a', 30, true));
  const b = afterQueued(slow('b', 5));
  const c = afterQueued(slow('c', 1));
  await assert.rejects(a, /a/);
  assert.equal(await b, 'b');
  assert.equal(await c, 'c');
  assert.deepEqual(events, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
});
