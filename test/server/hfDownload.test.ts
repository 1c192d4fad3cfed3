/**
 * Listing and downloading Hugging Face parquet files against a TEST PEER (a loopback server shaped
 * like the hub, `test/support/hfTestPeer.ts`; not the real hub). The parquet bytes are real
 * files written from the SWE-bench Lite rows and R2E-Gym-shaped rows, and every download is read
 * back with hyparquet.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { downloadParquetFiles, type DownloadProgress } from '../../server/src/datasets/hfDownload.js';
import { HubError, listParquetFiles, pickSplit, type ParquetFileRef } from '../../server/src/datasets/hfHub.js';
import { startHfTestPeer, type HfPeerFault, type HfPeerFile, type HfTestPeer, type HfTestPeerOptions } from '../support/hfTestPeer.js';
import { r2eColumns, r2eShapedRows, swebenchColumns, swebenchLiteRows, writeFixtureParquet } from '../support/parquetFixtures.js';

// The tests decide when a token is sent; the developer's own must not leak into them.
delete process.env['HF_TOKEN'];
delete process.env['HF_ENDPOINT'];

const swebench = 'SWE-bench/SWE-bench_Lite';
const r2e = 'R2E-Gym/R2E-Gym-Lite';
let root: string;
let files: HfPeerFile[];
const rowCounts = new Map<string, number>();
const peers: HfTestPeer[] = [];

async function fixture(
  dataset: string,
  config: string,
  split: string,
  filename: string,
  rows: Record<string, unknown>[],
  columns: typeof swebenchColumns,
): Promise<HfPeerFile> {
  const path = join(root, 'fixtures', `${dataset.replace('/', '__')}-${split}-${filename}`);
  writeFixtureParquet(path, rows, columns, { rowGroupSize: 50 });
  rowCounts.set(`${config}/${split}/${filename}`, rows.length);
  return { dataset, config, split, filename, bytes: new Uint8Array(await readFile(path)) };
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'gp-hf-'));
  await mkdir(join(root, 'fixtures'));
  const lite = swebenchLiteRows();
  files = [
    await fixture(swebench, 'default', 'test', '0000.parquet', lite.slice(0, 150), swebenchColumns),
    await fixture(swebench, 'default', 'test', '0001.parquet', lite.slice(150), swebenchColumns),
    await fixture(swebench, 'default', 'dev', '0000.parquet', lite.slice(0, 23), swebenchColumns),
    await fixture(r2e, 'default', 'train', '0000.parquet', r2eShapedRows(200), r2eColumns),
  ];
});

after(async () => {
  await Promise.all(peers.map((peer) => peer.close()));
  await rm(root, { recursive: true, force: true });
});

async function peer(options: Partial<HfTestPeerOptions> = {}): Promise<HfTestPeer> {
  const started = await startHfTestPeer({ files, ...options });
  peers.push(started);
  return started;
}

let outCount = 0;
async function outDir(): Promise<string> {
  const dir = join(root, `out-${++outCount}`);
  await mkdir(dir);
  return dir;
}

function hub(p: HfTestPeer, token = ''): { endpoint: string; datasetsServer: string; token: string } {
  return { endpoint: p.url, datasetsServer: p.url, token };
}

async function rejection(promise: Promise<unknown>): Promise<HubError> {
  return promise.then(
    () => assert.fail('expected the call to fail'),
    (error: unknown) => {
      assert.ok(error instanceof HubError, `expected a HubError, got ${String(error)}`);
      return error;
    },
  );
}

function source(ref: ParquetFileRef): Uint8Array {
  const file = files.find((f) => f.dataset === ref.dataset && f.config === ref.config && f.split === ref.split && f.filename === ref.filename);
  assert.ok(file, `no fixture for ${ref.config}/${ref.split}/${ref.filename}`);
  return file.bytes;
}

async function assertIntact(path: string, ref: ParquetFileRef): Promise<void> {
  assert.deepEqual(new Uint8Array(await readFile(path)), source(ref), `${path} differs from the source bytes`);
  const rows = await parquetReadObjects({ file: await asyncBufferFromFile(path) });
  assert.equal(rows.length, rowCounts.get(`${ref.config}/${ref.split}/${ref.filename}`));
}

async function listed(p: HfTestPeer, dataset: string, split?: string): Promise<ParquetFileRef[]> {
  const listing = await listParquetFiles(dataset, hub(p));
  return listing.files.filter((f) => split === undefined || f.split === split);
}

const fileHits = (p: HfTestPeer) => p.hits.filter((h) => h.method === 'GET' && (h.route === 'resolve' || h.route === 'cdn'));

// ---------------------------------------------------------------------------------------------
// Listing
// ---------------------------------------------------------------------------------------------

test('lists parquet files, sizes and splits through the dataset-viewer endpoint', async () => {
  const p = await peer();
  const listing = await listParquetFiles(swebench, hub(p));
  assert.deepEqual(
    listing.files.map((f) => [f.config, f.split, f.filename, f.size]),
    files.filter((f) => f.dataset === swebench).map((f) => [f.config, f.split, f.filename, f.bytes.byteLength]),
  );
  assert.match(listing.files[0]?.url ?? '', /\/datasets\/SWE-bench\/SWE-bench_Lite\/resolve\/refs%2Fconvert%2Fparquet\/default\/test\/0000\.parquet$/);
  assert.deepEqual([...listing.splits], [['default', ['test', 'dev']]]);
  assert.equal(listing.partial, false);
  assert.deepEqual(
    p.hits.map((h) => h.route),
    ['viewer'],
  );
  assert.equal(p.hits[0]?.path, '/parquet?dataset=SWE-bench%2FSWE-bench_Lite');
});

test('reports a partial conversion when the viewer says so', async () => {
  const p = await peer({ partial: true });
  assert.equal((await listParquetFiles(r2e, hub(p))).partial, true);
});

for (const status of [404, 500]) {
  test(`falls back to the Hub API when the viewer answers ${status}, with sizes from HEAD and the viewer's file names`, async () => {
    const p = await peer({ faults: [{ kind: 'status', route: 'viewer', status }] });
    const listing = await listParquetFiles(swebench, hub(p));
    assert.deepEqual(
      listing.files.map((f) => [f.split, f.filename, f.size]),
      files.filter((f) => f.dataset === swebench).map((f) => [f.split, f.filename, f.bytes.byteLength]),
    );
    assert.match(listing.files[1]?.url ?? '', /\/api\/datasets\/SWE-bench\/SWE-bench_Lite\/parquet\/default\/test\/1\.parquet$/);
    assert.deepEqual([...listing.splits], [['default', ['test', 'dev']]]);
    assert.ok(p.hits.some((h) => h.route === 'hub-api'));
    assert.equal(p.hits.filter((h) => h.method === 'HEAD' && h.route === 'cdn').length, 3);
    // The fallback's urls download like the viewer's.
    const [downloaded] = await downloadParquetFiles(listing.files.slice(2), await outDir());
    assert.ok(downloaded);
    await assertIntact(downloaded.path, downloaded.ref);
  });
}

test('an unknown dataset is not-found, naming the dataset and suggesting to check the id', async () => {
  const p = await peer();
  const error = await rejection(listParquetFiles('nobody/no-such-dataset', hub(p)));
  assert.equal(error.code, 'not-found');
  assert.match(error.message, /"nobody\/no-such-dataset"/);
  assert.match(error.message, /[Cc]heck the dataset id/);
});

test('an unknown config is not-found, naming the config and the configs there are', async () => {
  const p = await peer();
  const error = await rejection(listParquetFiles(swebench, { ...hub(p), config: 'nope' }));
  assert.equal(error.code, 'not-found');
  assert.match(error.message, /config "nope"/);
  assert.match(error.message, /configs: default/);
});

test('a malformed dataset id is refused before any request', async () => {
  const p = await peer();
  const error = await rejection(listParquetFiles('../etc/passwd', hub(p)));
  assert.equal(error.code, 'not-found');
  assert.match(error.message, /owner\/name/);
  assert.equal(p.hits.length, 0);
});

// ---------------------------------------------------------------------------------------------
// Split fallbacks (docs/original-system.md#g5-split-fallbacks)
// ---------------------------------------------------------------------------------------------

test('pickSplit follows the original split fallbacks', () => {
  assert.deepEqual(pickSplit('validation', ['train', 'validation', 'test']), { split: 'validation', fellBack: false });
  assert.deepEqual(pickSplit('validation', ['train', 'val', 'dev']), { split: 'dev', fellBack: true });
  assert.deepEqual(pickSplit('val', ['train', 'validation']), { split: 'validation', fellBack: true });
  assert.deepEqual(pickSplit('dev', ['train', 'val']), { split: 'val', fellBack: true });
  assert.deepEqual(pickSplit('validation', ['train', 'test']), { split: 'test', fellBack: true });
  assert.deepEqual(pickSplit('test', ['train', 'validation']), { split: 'validation', fellBack: true });
  assert.deepEqual(pickSplit('test', ['test', 'validation']), { split: 'test', fellBack: false });
  assert.equal(pickSplit('test', ['train', 'dev']), undefined);
  assert.deepEqual(pickSplit('train', ['train']), { split: 'train', fellBack: false });
  assert.equal(pickSplit('train', ['validation', 'test']), undefined);
});

// ---------------------------------------------------------------------------------------------
// Downloads
// ---------------------------------------------------------------------------------------------

test('downloads several files to <config>/<split>/<filename>, reporting progress at most every ~100 ms', async () => {
  const p = await peer({ throttle: { chunkBytes: 32 * 1024, delayMs: 15 } });
  const refs = await listed(p, swebench);
  const dir = await outDir();
  const progress: Array<DownloadProgress & { at: number }> = [];
  const results = await downloadParquetFiles(refs, dir, { onProgress: (p) => progress.push({ ...p, at: Date.now() }) });
  assert.deepEqual(
    results.map((r) => [r.path, r.bytes, r.resumedFrom, r.alreadyComplete]),
    refs.map((ref) => [join(dir, ref.config, ref.split, ref.filename), ref.size, 0, false]),
  );
  for (const result of results) {
    await assertIntact(result.path, result.ref);
    assert.equal(existsSync(`${result.path}.part`), false);
  }
  for (const [index, ref] of refs.entries()) {
    const calls = progress.filter((c) => c.file === ref);
    const during = calls.slice(0, -1);
    const end = calls[calls.length - 1];
    assert.deepEqual(end && [end.received, end.total, end.filesDone, end.filesTotal], [ref.size, ref.size, index + 1, refs.length]);
    if (ref.size > 200 * 1024) assert.ok(during.length > 0, `no progress while ${ref.filename} arrived`);
    for (const [k, call] of during.entries()) {
      assert.equal(call.filesDone, index);
      assert.ok(call.received > 0 && call.received < ref.size);
      const previous = during[k - 1];
      if (previous !== undefined) {
        assert.ok(call.at - previous.at >= 95, `progress calls ${call.at - previous.at} ms apart`);
        assert.ok(call.received > previous.received);
      }
    }
  }
});

test('an interrupted transfer keeps its .part and the next call resumes it with a Range request', async () => {
  const p = await peer();
  const [ref] = await listed(p, r2e);
  assert.ok(ref);
  const dir = await outDir();
  const dest = join(dir, 'default', 'train', '0000.parquet');
  p.setFault({ kind: 'cut', file: 'default/train/0000.parquet', afterBytes: 40_000 });

  const error = await rejection(downloadParquetFiles([ref], dir, { retries: 0 }));
  assert.equal(error.code, 'network');
  assert.match(error.message, /broke after 40000 of \d+ bytes/);
  assert.ok(!error.message.includes('sig=') && !error.url.includes('sig='), 'the signature of a CDN link must not appear in messages');
  assert.equal((await stat(`${dest}.part`)).size, 40_000);
  assert.equal(existsSync(dest), false);

  const [result] = await downloadParquetFiles([ref], dir, { retries: 0 });
  assert.equal(result?.resumedFrom, 40_000);
  assert.equal(fileHits(p).at(-1)?.range, 'bytes=40000-');
  assert.equal(fileHits(p).at(-1)?.route, 'cdn');
  await assertIntact(dest, ref);
  assert.equal(existsSync(`${dest}.part`), false);
});

test('a connection cut is retried within the same call, resuming from the .part', async () => {
  const p = await peer({ faults: [{ kind: 'cut', file: 'default/test/0000.parquet', afterBytes: 100_000 }] });
  const [ref] = await listed(p, swebench, 'test');
  assert.ok(ref);
  const [result] = await downloadParquetFiles([ref], await outDir(), { backoffMs: 1 });
  assert.equal(result?.resumedFrom, 100_000);
  assert.deepEqual(
    fileHits(p)
      .filter((h) => h.route === 'cdn')
      .map((h) => h.range),
    [undefined, 'bytes=100000-'],
  );
  await assertIntact(result.path, ref);
});

test('a stalled transfer is cut after stallTimeoutMs and resumed', async () => {
  const p = await peer({ faults: [{ kind: 'stall', file: 'default/dev/0000.parquet', afterBytes: 10_000 }] });
  const [ref] = await listed(p, swebench, 'dev');
  assert.ok(ref);
  const [result] = await downloadParquetFiles([ref], await outDir(), { backoffMs: 1, stallTimeoutMs: 300 });
  assert.equal(result?.resumedFrom, 10_000);
  await assertIntact(result.path, ref);
});

test('a 500 is retried and a 404 is not', async () => {
  const p = await peer({ faults: [{ kind: 'status', route: 'cdn', status: 500 }] });
  const [ref] = await listed(p, swebench, 'dev');
  assert.ok(ref);
  const [result] = await downloadParquetFiles([ref], await outDir(), { backoffMs: 1 });
  assert.ok(result);
  await assertIntact(result.path, ref);
  assert.equal(fileHits(p).filter((h) => h.route === 'cdn').length, 2);

  p.setFault({ kind: 'status', route: 'cdn', status: 404, times: 5 });
  const before = fileHits(p).length;
  const error = await rejection(downloadParquetFiles([ref], await outDir(), { backoffMs: 1 }));
  assert.equal(error.code, 'not-found');
  assert.match(error.message, /default\/dev\/0000\.parquet/);
  assert.equal(fileHits(p).length - before, 2, 'one resolve and one CDN request: no retry');
});

test('a server that ignores Range (200 instead of 206) restarts the file from zero', async () => {
  const p = await peer({ faults: [{ kind: 'ignore-range', file: 'default/dev/0000.parquet' }] });
  const [ref] = await listed(p, swebench, 'dev');
  assert.ok(ref);
  const dir = await outDir();
  const dest = join(dir, 'default', 'dev', '0000.parquet');
  await mkdir(join(dir, 'default', 'dev'), { recursive: true });
  // A .part whose bytes are wrong: appending to it would corrupt the file, so it must be replaced.
  await writeFile(`${dest}.part`, new Uint8Array(5_000).fill(7));
  const [result] = await downloadParquetFiles([ref], dir);
  assert.equal(result?.resumedFrom, 0);
  assert.equal(fileHits(p).at(-1)?.range, 'bytes=5000-');
  await assertIntact(dest, ref);
});

test('a 416 answer to a Range request restarts the file from zero', async () => {
  const p = await peer({ faults: [{ kind: 'status', route: 'cdn', status: 416 }] });
  const [ref] = await listed(p, swebench, 'dev');
  assert.ok(ref);
  const dir = await outDir();
  const dest = join(dir, 'default', 'dev', '0000.parquet');
  await mkdir(join(dir, 'default', 'dev'), { recursive: true });
  await writeFile(`${dest}.part`, source(ref).subarray(0, 5_000));
  const [result] = await downloadParquetFiles([ref], dir);
  assert.equal(result?.resumedFrom, 0);
  assert.deepEqual(
    fileHits(p)
      .filter((h) => h.route === 'cdn')
      .map((h) => h.range),
    ['bytes=5000-', undefined],
  );
  await assertIntact(dest, ref);
});

test('a .part larger than the listed size is discarded and the file fetched whole', async () => {
  const p = await peer();
  const [ref] = await listed(p, swebench, 'dev');
  assert.ok(ref);
  const dir = await outDir();
  const dest = join(dir, 'default', 'dev', '0000.parquet');
  await mkdir(join(dir, 'default', 'dev'), { recursive: true });
  await writeFile(`${dest}.part`, new Uint8Array(ref.size + 10));
  const [result] = await downloadParquetFiles([ref], dir);
  assert.equal(result?.resumedFrom, 0);
  assert.equal(fileHits(p).at(-1)?.range, undefined);
  await assertIntact(dest, ref);
});

for (const delta of [+100, -100]) {
  test(`a file whose size differs from the listing (${delta > 0 ? 'listed larger' : 'listed smaller'}) fails clearly and leaves nothing behind`, async () => {
    const actual = files[2]?.bytes.byteLength ?? 0;
    const fault: HfPeerFault = { kind: 'wrong-size', file: 'default/dev/0000.parquet', listedSize: actual + delta };
    const p = await peer({ faults: [fault] });
    const [ref] = await listed(p, swebench, 'dev');
    assert.equal(ref?.size, actual + delta);
    const dir = await outDir();
    const dest = join(dir, 'default', 'dev', '0000.parquet');
    const error = await rejection(downloadParquetFiles([ref], dir, { backoffMs: 1 }));
    assert.equal(error.code, 'size-mismatch');
    assert.match(error.message, /"default\/dev\/0000\.parquet"/);
    assert.match(error.message, new RegExp(`${actual} bytes but the listing said ${actual + delta}`));
    assert.equal(existsSync(dest), false);
    assert.equal(existsSync(`${dest}.part`), false);
  });
}

test('a file already complete is not fetched again', async () => {
  const p = await peer();
  const refs = await listed(p, swebench);
  const dir = await outDir();
  await downloadParquetFiles(refs, dir);
  const before = p.hits.length;
  const progress: DownloadProgress[] = [];
  const again = await downloadParquetFiles(refs, dir, { onProgress: (p) => progress.push(p) });
  assert.deepEqual(
    again.map((r) => [r.alreadyComplete, r.bytes]),
    refs.map((ref) => [true, ref.size]),
  );
  assert.equal(p.hits.length, before);
  assert.deepEqual(
    progress.map((c) => c.filesDone),
    [1, 2, 3],
  );
});

test('a file of the wrong size under the final name is replaced', async () => {
  const p = await peer();
  const [ref] = await listed(p, swebench, 'dev');
  assert.ok(ref);
  const dir = await outDir();
  const dest = join(dir, 'default', 'dev', '0000.parquet');
  await mkdir(join(dir, 'default', 'dev'), { recursive: true });
  await writeFile(dest, 'truncated');
  const [result] = await downloadParquetFiles([ref], dir);
  assert.equal(result?.alreadyComplete, false);
  await assertIntact(dest, ref);
});

test('refuses a listed name that would write outside the output folder', async () => {
  const error = await rejection(
    downloadParquetFiles([{ dataset: swebench, config: 'default', split: '..', filename: 'x.parquet', url: 'http://127.0.0.1:9/x', size: 1 }], await outDir()),
  );
  assert.equal(error.code, 'bad-response');
});

test('abort stops a transfer at once and keeps the .part for the next call', async () => {
  const p = await peer({ faults: [{ kind: 'stall', file: 'default/test/0000.parquet', afterBytes: 64 * 1024 }] });
  const [ref] = await listed(p, swebench, 'test');
  assert.ok(ref);
  const dir = await outDir();
  const dest = join(dir, 'default', 'test', '0000.parquet');
  const controller = new AbortController();
  const started = Date.now();
  setTimeout(() => controller.abort(), 300);
  const error = await rejection(downloadParquetFiles([ref], dir, { signal: controller.signal }));
  assert.equal(error.code, 'aborted');
  assert.ok(Date.now() - started < 2_000, 'the abort was not prompt');
  assert.equal((await stat(`${dest}.part`)).size, 64 * 1024);
  assert.equal(existsSync(dest), false);

  const [result] = await downloadParquetFiles([ref], dir);
  assert.equal(result?.resumedFrom, 64 * 1024);
  await assertIntact(dest, ref);
});

test('an already aborted signal fetches nothing', async () => {
  const p = await peer();
  const refs = await listed(p, swebench, 'dev');
  const before = p.hits.length;
  const error = await rejection(downloadParquetFiles(refs, await outDir(), { signal: AbortSignal.abort() }));
  assert.equal(error.code, 'aborted');
  assert.equal(p.hits.length, before);
});

// ---------------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------------

test('a gated dataset without a token is unauthorized, and the message says to set HF_TOKEN', async () => {
  const p = await peer({ requireToken: 'hf_good' });
  const error = await rejection(listParquetFiles(swebench, hub(p)));
  assert.equal(error.code, 'unauthorized');
  assert.match(error.message, /HF_TOKEN/);
  assert.match(error.message, /gated or private/);
  assert.match(error.message, /"SWE-bench\/SWE-bench_Lite"/);
  assert.ok(error.message.includes(p.url), 'the message names the URL');
});

test('a download without a token from a gated dataset is unauthorized too', async () => {
  const open = await peer();
  const refs = await listed(open, swebench, 'dev');
  const p = await peer({ requireToken: 'hf_good' });
  const moved = refs.map((ref) => ({ ...ref, url: ref.url.replace(open.url, p.url) }));
  const error = await rejection(downloadParquetFiles(moved, await outDir()));
  assert.equal(error.code, 'unauthorized');
  assert.match(error.message, /HF_TOKEN/);
});

test('the token is sent on every hub request, and HF_TOKEN is the default', async () => {
  const p = await peer({ requireToken: 'hf_good' });
  process.env['HF_TOKEN'] = 'hf_good';
  try {
    const listing = await listParquetFiles(swebench, { endpoint: p.url, datasetsServer: p.url });
    await downloadParquetFiles(listing.files, await outDir());
  } finally {
    delete process.env['HF_TOKEN'];
  }
  const hubHits = p.hits.filter((h) => h.route !== 'cdn');
  assert.ok(hubHits.length >= 4);
  for (const hit of hubHits) assert.equal(hit.authorization, 'Bearer hf_good', `${hit.path} had no token`);
});

test('a wrong token is forbidden, and the message says the token lacks access', async () => {
  const p = await peer({ requireToken: 'hf_good' });
  const error = await rejection(listParquetFiles(swebench, hub(p, 'hf_wrong')));
  assert.equal(error.code, 'forbidden');
  assert.match(error.message, /token was accepted but lacks access/);
  assert.ok(!error.message.includes('hf_wrong'), 'the token must not appear in messages');
});

test('a redirect to another host does not forward the Authorization header', async () => {
  const p = await peer({ requireToken: 'hf_good', faults: [{ kind: 'status', route: 'viewer', status: 503 }] });
  // The Hub API fallback's HEAD requests and the downloads both cross from 127.0.0.1 to localhost.
  const listing = await listParquetFiles(swebench, hub(p, 'hf_good'));
  await downloadParquetFiles(listing.files.slice(0, 1), await outDir(), { token: 'hf_good' });
  const cdn = p.hits.filter((h) => h.route === 'cdn');
  assert.deepEqual(
    cdn.map((h) => h.method),
    ['HEAD', 'HEAD', 'HEAD', 'GET'],
  );
  for (const hit of cdn) {
    assert.match(hit.host, /^localhost:/);
    assert.equal(hit.authorization, undefined);
  }
  const resolve = p.hits.filter((h) => h.route === 'resolve' || h.route === 'hub-api-file');
  assert.ok(resolve.length >= 4);
  for (const hit of resolve) assert.equal(hit.authorization, 'Bearer hf_good', 'same-host redirects keep the token');
});
