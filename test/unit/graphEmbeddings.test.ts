/**
 * The sentence-embedding retriever's parts: the WordPiece tokenizer (against a small vocabulary
 * written here, and against ids from Hugging Face `tokenizers`), the ONNX embedder (against
 * vectors from onnxruntime in Python), and the on-disk vector store.
 *
 * The tests that need the model fail, naming the command that installs it, where it is missing:
 * the test runner installs it first (scripts/setup-embedding-model.sh), so a missing model is a
 * broken setup, not a reason to test less.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bertUncasedOptions, normalise, parseTokenizerJson, preTokenize, WordPieceTokenizer } from '../../server/src/graph/wordPiece.js';
import { embeddingModel, loadEmbedder, modelSearchPath, type TextEmbedder } from '../../server/src/graph/embedder.js';
import { embedCached, embeddingKey, EmbeddingStore } from '../../server/src/graph/embeddingStore.js';

const fixtures = join(__dirname, '..', 'fixtures', 'embeddings');

/** A vocabulary small enough to know every answer by hand. */
function tinyTokenizer(): WordPieceTokenizer {
  const tokens = [
    '[PAD]',
    '[UNK]',
    '[CLS]',
    '[SEP]',
    '[MASK]',
    'un',
    '##aff',
    '##able',
    'a',
    '##ff',
    'cafe',
    'parse',
    '_',
    'date',
    '(',
    ')',
    '中',
    '文',
    'ab',
    '##c',
    'x',
  ];
  return new WordPieceTokenizer(new Map(tokens.map((token, id) => [token, id])), bertUncasedOptions);
}

function dot(a: Float32Array, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

describe('WordPiece tokenizer', () => {
  test('splits a word into the longest pieces the vocabulary has, continuations marked ##', () => {
    const tokenizer = tinyTokenizer();
    assert.deepEqual(tokenizer.tokenize('unaffable'), ['un', '##aff', '##able']);
    assert.deepEqual(tokenizer.tokenize('abc'), ['ab', '##c']);
    assert.deepEqual(tokenizer.encode('unaffable'), [2, 5, 6, 7, 3]);
  });

  test('lower-cases, strips accents, isolates punctuation and spaces out CJK ideographs', () => {
    assert.equal(normalise('Café ÀB', bertUncasedOptions), 'cafe ab');
    assert.equal(normalise('a\u0000b\u200bc\td\u00a0e\u2003f', bertUncasedOptions), 'abc d e f');
    assert.equal(normalise('中文x', bertUncasedOptions), ' 中  文 x');
    // One character at a time: a final capital sigma becomes σ, not ς.
    assert.equal(normalise('ΟΔΟΣ', bertUncasedOptions), 'οδοσ');
    assert.deepEqual(preTokenize('parse_date(x)  a.b'), ['parse', '_', 'date', '(', 'x', ')', 'a', '.', 'b']);
    assert.deepEqual(tinyTokenizer().tokenize('Café parse_date(中文)'), ['cafe', 'parse', '_', 'date', '(', '中', '文', ')']);
  });

  test('turns a word with no full cover, or longer than 100 characters, into one [UNK]', () => {
    const tokenizer = tinyTokenizer();
    assert.deepEqual(tokenizer.tokenize('abq x'), ['[UNK]', 'x']);
    assert.deepEqual(tokenizer.tokenize(`ab${'c'.repeat(98)}`), ['ab', ...Array<string>(98).fill('##c')]);
    assert.deepEqual(tokenizer.tokenize(`ab${'c'.repeat(99)} x`), ['[UNK]', 'x']);
  });

  test('keeps special tokens written in the text, matched case-sensitively before normalisation', () => {
    const tokenizer = tinyTokenizer();
    assert.deepEqual(tokenizer.encode('x[SEP]x [mask]'), [2, 20, 3, 20, 1, 1, 1, 3]);
    assert.deepEqual(tokenizer.encode('[MASK]'), [2, 4, 3]);
  });

  test('cuts a long text to maxLength ids and keeps [CLS] and [SEP]', () => {
    const tokenizer = tinyTokenizer();
    const ids = tokenizer.encode('x '.repeat(500), 8);
    assert.deepEqual(ids, [2, 20, 20, 20, 20, 20, 20, 3]);
    assert.deepEqual(tokenizer.encode(''), [2, 3]);
    assert.throws(() => tokenizer.encode('x', 1), /at least 2/);
  });

  test('pads a batch with [PAD], masks the padding out and gives every token type 0', () => {
    const batch = tinyTokenizer().batch([
      [2, 20, 3],
      [2, 3],
    ]);
    assert.equal(batch.width, 3);
    assert.deepEqual([...batch.inputIds], [2n, 20n, 3n, 2n, 3n, 0n]);
    assert.deepEqual([...batch.attentionMask], [1n, 1n, 1n, 1n, 1n, 0n]);
    assert.deepEqual([...batch.tokenTypeIds], [0n, 0n, 0n, 0n, 0n, 0n]);
  });

  test('refuses a tokenizer.json of another kind, saying what is unsupported', () => {
    const bpe = { normalizer: null, pre_tokenizer: { type: 'ByteLevel' }, model: { type: 'BPE', vocab: {}, merges: [] } };
    const parsed = parseTokenizerJson(JSON.stringify(bpe));
    assert.ok('error' in parsed && /not a BERT WordPiece tokenizer/.test(parsed.error), JSON.stringify(parsed));
    const broken = parseTokenizerJson('{');
    assert.ok('error' in broken && /not JSON/.test(broken.error));
  });
});

/**
 * Ids from Hugging Face `tokenizers` 0.23.3 (Python) for the model's tokenizer.json, with
 * `no_padding()` and `enable_truncation(max_length=128)`, by `make_reference.py` in
 * test/fixtures/embeddings/README.md. Beyond these, 6,394 texts (lines of the Python standard
 * library and random mixes of 17 Unicode blocks) matched except where a text held one of the 671
 * code points whose Unicode data differs between V8 and the tables built into `tokenizers`
 * (characters assigned or recategorised by later Unicode versions).
 */
const referenceIds: Array<[string, number[]]> = [
  [
    'def snake_case_name(arg_one, arg_two):',
    [101, 13366, 7488, 1035, 2553, 1035, 2171, 1006, 12098, 2290, 1035, 2028, 1010, 12098, 2290, 1035, 2048, 1007, 1024, 102],
  ],
  [
    'class CamelCaseParser(BaseHTTPRequestHandler): XMLHttpRequest',
    [101, 2465, 19130, 18382, 19362, 8043, 1006, 2918, 11039, 25856, 2890, 15500, 11774, 3917, 1007, 1024, 20950, 11039, 25856, 2890, 15500, 102],
  ],
  [
    '__init__ __repr__ self._private_attr',
    [101, 1035, 1035, 1999, 4183, 1035, 1035, 1035, 1035, 16360, 2099, 1035, 1035, 2969, 1012, 1035, 2797, 1035, 2012, 16344, 102],
  ],
  ['Café naïve résumé coöperate Ångström', [101, 7668, 15743, 13746, 17654, 17076, 15687, 102]],
  ['İstanbul ΟΔΟΣ straße ﬁle', [101, 9960, 1169, 29722, 29730, 29733, 2358, 27807, 1984, 2571, 102]],
  [
    'Hello, world! (parse) [x] {y} <z> a.b.c a->b a::b $HOME ^~`|',
    [
      101, 7592, 1010, 2088, 999, 1006, 11968, 3366, 1007, 1031, 1060, 1033, 1063, 1061, 1065, 1026, 1062, 1028, 1037, 1012, 1038, 1012, 1039, 1037, 1011, 1028,
      1038, 1037, 1024, 1024, 1038, 1002, 2188, 1034, 1066, 1036, 1064, 102,
    ],
  ],
  [
    'x = y + 1; z -= 2 ** 3 // 4 % 5 != 6',
    [101, 1060, 1027, 1061, 1009, 1015, 1025, 1062, 1011, 1027, 1016, 1008, 1008, 1017, 1013, 1013, 1018, 1003, 1019, 999, 1027, 1020, 102],
  ],
  [
    '中文字符and日本語のテキスト 한국어',
    [101, 1746, 1861, 100, 100, 1998, 1864, 1876, 1950, 1671, 30239, 30227, 30233, 30240, 1469, 30006, 30021, 29991, 30014, 30020, 29999, 30008, 102],
  ],
  ['emoji \u{1f642} and symbols ™ © ∑', [101, 7861, 29147, 2072, 100, 1998, 9255, 1580, 1075, 100, 102]],
  [
    'tab\tseparated\nnew line\r\nzero\u{200b}width\u{a0}nbsp\u{fffd}replacement\u{0}nul',
    [101, 21628, 5459, 2047, 2240, 5717, 9148, 11927, 2232, 1050, 5910, 28139, 24759, 10732, 3672, 11231, 2140, 102],
  ],
  [
    'https://example.com/path?query=1&b=2#frag',
    [101, 16770, 1024, 1013, 1013, 2742, 1012, 4012, 1013, 4130, 1029, 23032, 1027, 1015, 1004, 1038, 1027, 1016, 1001, 25312, 2290, 102],
  ],
  [
    "self.assertEqual(parse_date('2024-01-31'), datetime(2024, 1, 31))",
    [
      101, 2969, 1012, 20865, 2063, 26426, 1006, 11968, 3366, 1035, 3058, 1006, 1005, 16798, 2549, 1011, 5890, 1011, 2861, 1005, 1007, 1010, 3058, 7292, 1006,
      16798, 2549, 1010, 1015, 1010, 2861, 1007, 1007, 102,
    ],
  ],
  [
    'supercalifragilisticexpialidocious antidisestablishmentarianism',
    [101, 3565, 9289, 10128, 29181, 24411, 4588, 10288, 19312, 21273, 10085, 6313, 3424, 10521, 4355, 7875, 13602, 3672, 12199, 2964, 102],
  ],
  [
    'a'.repeat(101) + ' short ' + 'b'.repeat(100),
    [
      101, 100, 2460, 22861, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322,
      10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322,
      10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 10322, 102,
    ],
  ],
  [
    'text with [CLS] literal [SEP] tokens, [MASK] and [mask]x[UNK]',
    [101, 3793, 2007, 101, 18204, 102, 19204, 2015, 1010, 103, 1998, 1031, 7308, 1033, 1060, 100, 102],
  ],
  ['', [101, 102]],
  ['3.14159 1e-10 0xFF 1_000_000', [101, 1017, 1012, 15471, 28154, 1015, 2063, 1011, 2184, 1014, 2595, 4246, 1015, 1035, 2199, 1035, 2199, 102]],
  [
    Array.from({ length: 120 }, (_, i) => `word${i}`).join(' '),
    [
      101, 2773, 2692, 2773, 2487, 2773, 2475, 2773, 2509, 2773, 2549, 2773, 2629, 2773, 2575, 2773, 2581, 2773, 2620, 2773, 2683, 2773, 10790, 2773, 14526,
      2773, 12521, 2773, 17134, 2773, 16932, 2773, 16068, 2773, 16048, 2773, 16576, 2773, 15136, 2773, 16147, 2773, 11387, 2773, 17465, 2773, 19317, 2773,
      21926, 2773, 18827, 2773, 17788, 2773, 23833, 2773, 22907, 2773, 22407, 2773, 24594, 2773, 14142, 2773, 21486, 2773, 16703, 2773, 22394, 2773, 22022,
      2773, 19481, 2773, 21619, 2773, 24434, 2773, 22025, 2773, 23499, 2773, 12740, 2773, 23632, 2773, 20958, 2773, 23777, 2773, 22932, 2773, 19961, 2773,
      21472, 2773, 22610, 2773, 18139, 2773, 26224, 2773, 12376, 2773, 22203, 2773, 25746, 2773, 22275, 2773, 27009, 2773, 24087, 2773, 26976, 2773, 28311,
      2773, 27814, 2773, 28154, 2773, 16086, 2773, 2575, 2487, 2773, 102,
    ],
  ],
];

const modelDir = modelSearchPath().find((dir) => existsSync(join(dir, embeddingModel.modelFile)));
const noModel =
  modelDir === undefined
    ? `the embedding model is not installed (looked in ${modelSearchPath().join(', ')}): run bash scripts/setup-embedding-model.sh`
    : false;

describe('WordPiece tokenizer on the model vocabulary', () => {
  test('gives the ids Hugging Face tokenizers gives for code, punctuation, accents, CJK and long text', () => {
    if (noModel !== false) assert.fail(noModel);
    const parsed = parseTokenizerJson(readFileSync(join(modelDir ?? '', embeddingModel.tokenizerFile), 'utf8'));
    assert.ok('tokenizer' in parsed, JSON.stringify(parsed));
    for (const [text, ids] of referenceIds) assert.deepEqual(parsed.tokenizer.encode(text), ids, JSON.stringify(text));
  });
});

describe('sentence embeddings', () => {
  let embedder: TextEmbedder | undefined;
  before(async () => {
    if (noModel !== false) throw new Error(noModel);
    const loaded = await loadEmbedder();
    if ('unavailable' in loaded) throw new Error(loaded.unavailable);
    embedder = loaded.embedder;
  });

  test('matches the vectors of onnxruntime in Python within 1e-4 of cosine', async () => {
    const reference = JSON.parse(readFileSync(join(fixtures, 'reference.json'), 'utf8')) as { embeddings: Array<{ text: string; vector: number[] }> };
    const vectors = await embedder?.embed(reference.embeddings.map((e) => e.text));
    assert.equal(vectors?.length, reference.embeddings.length);
    reference.embeddings.forEach((expected, i) => {
      const vector = vectors?.[i];
      assert.ok(vector !== undefined && vector.length === 384);
      const cosine = dot(vector, expected.vector);
      assert.ok(Math.abs(1 - cosine) < 1e-4, `${expected.text}: cosine ${cosine}`);
      assert.ok(Math.abs(Math.sqrt(dot(vector, vector)) - 1) < 1e-5);
    });
  });

  test('gives a text the same vector alone and in a padded batch of longer texts', async () => {
    const texts = ['short text', `a much longer text ${'with many words '.repeat(20)}`, 'def render_html(template, context):'];
    const together = (await embedder?.embed(texts)) ?? [];
    for (const [i, text] of texts.entries()) {
      const [alone] = (await embedder?.embed([text])) ?? [];
      const inBatch = together[i];
      assert.ok(alone !== undefined && inBatch !== undefined);
      assert.ok(dot(alone, inBatch) > 1 - 1e-5, text);
    }
  });

  test('puts a query about parsing dates nearer parse_date than render_html', async () => {
    const [query, parseDate, renderHtml] =
      (await embedder?.embed([
        'parse a date string',
        'def parse_date(text):\n    """Parse an ISO 8601 date such as 2024-01-31 into a date object."""',
        'def render_html(template, context):\n    """Render a Jinja2 template to an HTML page."""',
      ])) ?? [];
    assert.ok(query !== undefined && parseDate !== undefined && renderHtml !== undefined);
    const near = dot(query, parseDate);
    const far = dot(query, renderHtml);
    assert.ok(near > far + 0.2, `parse_date ${near}, render_html ${far}`);
  });

  test('keeps the input order across batches sorted by length, and embeds no texts as none', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `${'word '.repeat(i % 13)}item ${i}`);
    const all = (await embedder?.embed(texts)) ?? [];
    const some = (await embedder?.embed([texts[5] ?? '', texts[64] ?? ''])) ?? [];
    assert.equal(all.length, 70);
    assert.ok(dot(all[5] ?? new Float32Array(), some[0] ?? []) > 1 - 1e-5);
    assert.ok(dot(all[64] ?? new Float32Array(), some[1] ?? []) > 1 - 1e-5);
    assert.deepEqual(await embedder?.embed([]), []);
  });
});

describe('loading the embedder', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'gp-embedder-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('leaves the native runtime unloaded until an embedder is loaded', () => {
    const script = "require('./server/src/graph/embedder.ts'); process.stdout.write(String(Object.keys(require.cache).some((p) => p.includes('onnxruntime'))))";
    const loaded = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: join(__dirname, '..', '..'), encoding: 'utf8' });
    assert.equal(loaded, 'false');
  });

  test('reports a missing model folder as unavailable, naming where it looked', async () => {
    const missing = join(dir, 'no-such-folder');
    const loaded = await loadEmbedder({ modelDir: missing });
    assert.ok('unavailable' in loaded);
    assert.match(loaded.unavailable, /not installed/);
    assert.ok(loaded.unavailable.includes(missing), loaded.unavailable);
  });

  test('reports onnxruntime-node missing when the runtime cannot be required', async () => {
    writeFileSync(join(dir, 'model.onnx'), 'not a model');
    const importRuntime = () => Promise.reject(Object.assign(new Error("Cannot find module 'onnxruntime-node'"), { code: 'MODULE_NOT_FOUND' }));
    const loaded = await loadEmbedder({ modelDir: dir, importRuntime });
    assert.deepEqual(loaded, { unavailable: 'onnxruntime-node is not installed (npm install onnxruntime-node)' });
  });

  test('reports a missing tokenizer.json and a model file other than the pinned one', async () => {
    writeFileSync(join(dir, 'model.onnx'), 'not a model');
    const noTokenizer = await loadEmbedder({ modelDir: dir });
    assert.ok('unavailable' in noTokenizer && /tokenizer\.json missing/.test(noTokenizer.unavailable), JSON.stringify(noTokenizer));
    writeFileSync(join(dir, 'tokenizer.json'), '{}');
    const otherModel = await loadEmbedder({ modelDir: dir });
    assert.ok('unavailable' in otherModel && /is not the pinned all-MiniLM-L6-v2-onnx-int8/.test(otherModel.unavailable), JSON.stringify(otherModel));
  });

  test('refuses settings the model cannot take', async () => {
    assert.deepEqual(await loadEmbedder({ modelDir: dir, maxTokens: 600 }), { unavailable: 'maxTokens must be an integer from 2 to 512, got 600' });
    assert.deepEqual(await loadEmbedder({ modelDir: dir, batchSize: 0 }), { unavailable: 'batchSize must be a positive integer, got 0' });
  });
});

/** Vectors made from the text's characters, and a count of the texts it was asked for. */
class CountingEmbedder implements TextEmbedder {
  readonly modelId = 'test-model';
  readonly dimensions = 4;
  readonly asked: string[] = [];
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.asked.push(...texts);
    return Promise.resolve(texts.map((text) => Float32Array.from([text.length, text.charCodeAt(0) || 0, 1, 0.5])));
  }
}

describe('embedding store', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'gp-embeddings-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('reads back, in a new store, the vectors an earlier one wrote', async () => {
    const folder = join(dir, 'round-trip');
    const first = await EmbeddingStore.open('test-model', 4, folder);
    const key = embeddingKey('test-model', 'def f(): pass');
    await first.add([{ key, vector: Float32Array.from([1, -2, 0.25, 3e-8]) }]);
    await first.add([{ key, vector: Float32Array.from([9, 9, 9, 9]) }]);
    const second = await EmbeddingStore.open('test-model', 4, folder);
    assert.equal(second.size, 1);
    assert.deepEqual([...(second.get(key) ?? [])], [1, -2, 0.25, Math.fround(3e-8)]);
    assert.equal(statSync(second.path).size, 16 + 32 + 16);
  });

  test('ignores a torn last record and cuts it off before the next append', async () => {
    const folder = join(dir, 'torn');
    const store = await EmbeddingStore.open('test-model', 4, folder);
    const keys = ['a', 'b', 'c'].map((text) => embeddingKey('test-model', text));
    await store.add(keys.slice(0, 2).map((key, i) => ({ key, vector: Float32Array.from([i, i, i, i]) })));
    // A process killed mid-append: half of a third record.
    appendFileSync(store.path, Buffer.alloc(20, 7));
    const reopened = await EmbeddingStore.open('test-model', 4, folder);
    assert.equal(reopened.size, 2);
    await reopened.add([{ key: keys[2] ?? '', vector: Float32Array.from([2, 2, 2, 2]) }]);
    assert.equal(statSync(store.path).size, 16 + 3 * 48);
    const again = await EmbeddingStore.open('test-model', 4, folder);
    assert.deepEqual([...(again.get(keys[2] ?? '') ?? [])], [2, 2, 2, 2]);
    assert.deepEqual([...(again.get(keys[1] ?? '') ?? [])], [1, 1, 1, 1]);
  });

  test('starts afresh over a torn header or a file of other dimensions', async () => {
    const folder = join(dir, 'afresh');
    const store = await EmbeddingStore.open('test-model', 4, folder);
    const key = embeddingKey('test-model', 'x');
    await store.add([{ key, vector: Float32Array.from([1, 2, 3, 4]) }]);
    truncateSync(store.path, 10);
    const torn = await EmbeddingStore.open('test-model', 4, folder);
    assert.equal(torn.size, 0);
    await torn.add([{ key, vector: Float32Array.from([4, 3, 2, 1]) }]);
    assert.equal((await EmbeddingStore.open('test-model', 4, folder)).size, 1);
    writeFileSync(store.path, Buffer.concat([Buffer.from('GPEMBED1'), Buffer.from([8, 0, 0, 0, 0, 0, 0, 0]), Buffer.alloc(64)]));
    assert.equal((await EmbeddingStore.open('test-model', 4, folder)).size, 0);
  });

  test('refuses a vector of the wrong length and a key that is not a digest', async () => {
    const store = await EmbeddingStore.open('test-model', 4, join(dir, 'refuse'));
    assert.throws(() => store.add([{ key: embeddingKey('test-model', 'x'), vector: new Float32Array(3) }]), /3 dimensions/);
    assert.throws(() => store.add([{ key: 'node-1', vector: new Float32Array(4) }]), /hex sha256/);
  });

  test('embedCached embeds only the texts the store lacks, each distinct text once', async () => {
    const folder = join(dir, 'cached');
    const embedder = new CountingEmbedder();
    const store = await EmbeddingStore.open(embedder.modelId, embedder.dimensions, folder);
    const first = await embedCached(store, embedder, [{ text: 'alpha' }, { text: 'beta' }, { text: 'alpha' }]);
    assert.deepEqual(embedder.asked, ['alpha', 'beta']);
    assert.deepEqual([...(first[2] ?? [])], [5, 97, 1, 0.5]);
    const later = await EmbeddingStore.open(embedder.modelId, embedder.dimensions, folder);
    const second = await embedCached(later, embedder, [{ text: 'beta' }, { text: 'gamma' }, { text: 'alpha' }]);
    assert.deepEqual(embedder.asked, ['alpha', 'beta', 'gamma']);
    assert.deepEqual(
      second.map((v) => v[0]),
      [4, 5, 5],
    );
  });

  test('embedCached keys an item by its key when it has one, not by its text', async () => {
    const embedder = new CountingEmbedder();
    const store = await EmbeddingStore.open(embedder.modelId, embedder.dimensions, join(dir, 'keyed'));
    await embedCached(store, embedder, [{ key: 'node:sha1', text: 'first version' }]);
    const [vector] = await embedCached(store, embedder, [{ key: 'node:sha1', text: 'any text' }]);
    assert.deepEqual(embedder.asked, ['first version']);
    assert.equal(vector?.[0], 'first version'.length);
  });

  test('embedCached refuses a store of another model', async () => {
    const store = await EmbeddingStore.open('other-model', 4, join(dir, 'other'));
    await assert.rejects(embedCached(store, new CountingEmbedder(), [{ text: 'x' }]), /holds other-model/);
  });
});
