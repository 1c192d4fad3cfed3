/**
 * `rank(issue)` (graph/rank.ts): the retrievers' lists fused, on a small repository built in memory.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCodeGraphFromFiles } from '../../server/src/graph/index.js';

const files = [
  { path: 'pkg/__init__.py', text: '' },
  {
    path: 'pkg/dates.py',
    text: 'def parse_date(text):\n    """Parse an ISO date."""\n    year, month, day = text.split("-")\n    return int(year), int(month), int(day)\n\n\ndef format_date(parts):\n    return "-".join(str(p) for p in parts)\n',
  },
  {
    path: 'pkg/settings.py',
    text: 'LIMIT = 10\n\n\ndef check(value):\n    if value > LIMIT:\n        raise ValueError("the upload exceeds the configured quota")\n    return value\n',
  },
  { path: 'pkg/render.py', text: 'def render_html(page):\n    return "<p>" + page + "</p>"\n' },
  {
    path: 'tests/test_dates.py',
    text: 'from pkg.dates import parse_date\n\n\ndef test_parse_date():\n    assert parse_date("2020-01-02") == (2020, 1, 2)\n\n\ndef test_parse_date_day():\n    assert parse_date("2020-01-02")[2] == 2\n',
  },
];

test('anchors come first, then what the whole issue text finds; the retrievers that ran are named', async () => {
  const graph = await buildCodeGraphFromFiles(files);
  const ranking = await graph.rank({
    title: 'parse_date() fails on dates with a time part',
    body: 'Calling parse_date("2020-01-02T10:00") raises ValueError.',
  });
  assert.equal(ranking.nodes[0]?.node.id, 'func:pkg/dates.py#parse_date');
  assert.equal(ranking.files[0], 'pkg/dates.py');
  assert.deepEqual(ranking.retrievers, ['anchors', 'bm25', 'text']);
  assert.ok(ranking.nodes[0]?.from.anchors !== undefined && ranking.nodes[0].from.bm25 !== undefined);
  assert.ok(ranking.definitions.every((d) => d.node.kind !== 'file'));
});

test('tests and test data stay out unless the issue is about tests', async () => {
  const graph = await buildCodeGraphFromFiles(files);
  const plain = await graph.rank({ title: 'parse date is wrong', body: 'parse date returns the wrong day' });
  assert.ok(!plain.nodes.some((n) => n.node.path.startsWith('tests/')), plain.nodes.map((n) => n.node.id).join(', '));
  assert.equal(plain.testsKept, false);
  const aboutTests = await graph.rank({ title: 'test_parse_date is flaky in the tests', body: 'parse date test fails' });
  assert.ok(aboutTests.nodes.some((n) => n.node.path.startsWith('tests/')));
  assert.equal(aboutTests.testsKept, true);
});

test('a file is found by the words of a message only its strings hold, through the whole-text retriever', async () => {
  const graph = await buildCodeGraphFromFiles(files);
  const ranking = await graph.rank({ title: 'Confusing error', body: 'I get "the upload exceeds the configured quota" although my upload is small.' });
  assert.equal(ranking.files[0], 'pkg/settings.py');
  assert.ok(ranking.nodes.find((n) => n.node.id === 'file:pkg/settings.py')?.from.text === 1);
});

test('a semantic index is a fourth list, and its ids are kept only when they are graph nodes', async () => {
  const graph = await buildCodeGraphFromFiles(files);
  const semantic = {
    nearest: async () => [
      { id: 'func:pkg/render.py#render_html', score: 0.9 },
      { id: 'func:gone.py#x', score: 0.8 },
    ],
  };
  const ranking = await graph.rank({ title: 'pages show raw markup', body: 'the page is not wrapped' }, { semantic });
  assert.deepEqual(ranking.retrievers, ['anchors', 'bm25', 'text', 'embeddings']);
  assert.equal(ranking.nodes.find((n) => n.node.id === 'func:pkg/render.py#render_html')?.from.embeddings, 1);
  assert.ok(!ranking.nodes.some((n) => n.node.id === 'func:gone.py#x'));
});

test('nodes of test files carry the test flag, others do not', async () => {
  const graph = await buildCodeGraphFromFiles(files);
  assert.equal(graph.node('func:tests/test_dates.py#test_parse_date')?.test, true);
  assert.equal(graph.node('file:tests/test_dates.py')?.test, true);
  assert.equal(graph.node('func:pkg/dates.py#parse_date')?.test, undefined);
});

test('with the embedding model, node embeddings are a retriever: the nearest definition to a paraphrase, cached on disk', async () => {
  const { loadEmbedder, EmbeddingStore, NodeEmbeddings } = await import('../../server/src/graph/index.js');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const loaded = await loadEmbedder();
  if (!('embedder' in loaded)) assert.fail(`${loaded.unavailable}: run bash scripts/setup-embedding-model.sh`);
  const dir = mkdtempSync(join(tmpdir(), 'gp-rank-emb-'));
  try {
    const graph = await buildCodeGraphFromFiles(files);
    const store = await EmbeddingStore.open(loaded.embedder.modelId, loaded.embedder.dimensions, dir);
    const index = await NodeEmbeddings.build(graph, loaded.embedder, store);
    assert.equal(index.size, graph.nodes().filter((n) => n.test !== true).length, 'tests are not embedded');
    const near = await index.nearest('read a calendar day from a string', 3);
    assert.equal(near[0]?.id, 'func:pkg/dates.py#parse_date');
    assert.equal(store.size, index.size);
    // A second graph of the same code embeds nothing new.
    const again = await NodeEmbeddings.build(await buildCodeGraphFromFiles(files), loaded.embedder, store);
    assert.equal(store.size, again.size);
    const ranking = await graph.rank({ title: 'Wrong day', body: 'reading a calendar day from a string gives the month' }, { semantic: index });
    assert.deepEqual(ranking.retrievers, ['anchors', 'bm25', 'text', 'embeddings']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
