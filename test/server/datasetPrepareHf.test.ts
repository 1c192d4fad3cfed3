/**
 * `gp dataset prepare` against a Hugging Face–shaped test peer on loopback (test/support/hfTestPeer.ts,
 * not the real hub): listing, split fallback, download into the cache, resume after a cut
 * connection, and a gated dataset without a token. The parquet files are the 300 real SWE-bench
 * Lite rows of test/fixtures/swebench/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../server/src/cli/main.js';
import { swebenchColumns, swebenchLiteRows, writeFixtureParquet } from '../support/parquetFixtures.js';
import { startHfTestPeer, type HfPeerFile } from '../support/hfTestPeer.js';

const dataset = 'test-org/SWE-bench_Lite';

function tmp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `gp-hf-${prefix}-`));
}

/** The Lite rows as two parquet shards of the `test` split, as the hub's converter would serve them. */
function shards(): HfPeerFile[] {
  const dir = tmp('shards');
  const rows = swebenchLiteRows();
  return [rows.slice(0, 150), rows.slice(150)].map((part, i) => {
    const path = join(dir, `${i}.parquet`);
    writeFixtureParquet(path, part, swebenchColumns, { rowGroupSize: 50 });
    return { dataset, config: 'default', split: 'test', filename: `${String(i).padStart(4, '0')}.parquet`, bytes: readFileSync(path) };
  });
}

async function withHubEnv<T>(url: string, token: string | undefined, work: () => Promise<T>): Promise<T> {
  const saved = { endpoint: process.env['HF_ENDPOINT'], viewer: process.env['HF_DATASETS_SERVER'], token: process.env['HF_TOKEN'] };
  process.env['HF_ENDPOINT'] = url;
  process.env['HF_DATASETS_SERVER'] = url;
  if (token === undefined) delete process.env['HF_TOKEN'];
  else process.env['HF_TOKEN'] = token;
  try {
    return await work();
  } finally {
    for (const [key, value] of [
      ['HF_ENDPOINT', saved.endpoint],
      ['HF_DATASETS_SERVER', saved.viewer],
      ['HF_TOKEN', saved.token],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

test('prepare downloads the split from the hub (falling back from validation to test), resumes a cut transfer, and converts every row', async () => {
  const files = shards();
  const peer = await startHfTestPeer({ files, faults: [{ kind: 'cut', file: 'default/test/0001.parquet', afterBytes: 200_000 }] });
  try {
    const cache = tmp('cache');
    const out = tmp('out');
    const args = ['dataset', 'prepare', 'swebench', '--dataset', dataset, '--split', 'validation', '--cache-dir', cache, '--out', out];
    const first = capture();
    const code = await withHubEnv(peer.url, undefined, () => runCli(args, first.io, process.cwd()));
    // The cut is retried and resumed inside one call, so the first run already succeeds.
    assert.equal(code, 0, first.err.join('\n'));
    assert.ok(first.err.some((l) => l.includes(`${dataset} has no split validation; using test instead`)));
    const resumed = peer.hits.filter((h) => h.route === 'cdn' && h.range !== undefined && h.path.includes('0001.parquet'));
    assert.ok(resumed.length >= 1, 'the cut file was fetched again with a Range header');
    assert.equal(first.out[0], 'Read 300 rows: 300 converted, 0 skipped.');
    const shardDir = join(cache, dataset, 'default', 'test');
    assert.deepEqual(readdirSync(shardDir).sort(), ['0000.parquet', '0001.parquet']);
    for (const f of files) assert.deepEqual(readFileSync(join(shardDir, f.filename)), Buffer.from(f.bytes));
    assert.equal(readFileSync(join(out, 'test.jsonl'), 'utf8').trim().split('\n').length, 300);
    // A second run finds both files complete and downloads nothing.
    const before = peer.hits.filter((h) => h.route === 'cdn' || h.route === 'resolve').length;
    const second = capture();
    assert.equal(await withHubEnv(peer.url, undefined, () => runCli(args, second.io, process.cwd())), 0);
    assert.equal(peer.hits.filter((h) => h.route === 'cdn' || h.route === 'resolve').length, before);
    assert.ok(second.err.some((l) => l.includes('(2 already there, 0 resumed)')));
  } finally {
    await peer.close();
  }
});

test('a gated dataset without HF_TOKEN fails with a message that says to set it, and writes nothing', async () => {
  const peer = await startHfTestPeer({ files: shards(), requireToken: 'hf_secret' });
  try {
    const out = join(tmp('gated'), 'out');
    const run = capture();
    const code = await withHubEnv(peer.url, undefined, () =>
      runCli(['dataset', 'prepare', 'swebench', '--dataset', dataset, '--cache-dir', tmp('c'), '--out', out], run.io, process.cwd()),
    );
    assert.equal(code, 1);
    assert.ok(
      run.err.some((l) => l.includes('HF_TOKEN')),
      run.err.join('\n'),
    );
    assert.equal(existsSync(out), false);
    const withToken = capture();
    assert.equal(
      await withHubEnv(peer.url, 'hf_secret', () =>
        runCli(['dataset', 'prepare', 'swebench', '--dataset', dataset, '--cache-dir', tmp('c2'), '--out', out, '--limit', '5'], withToken.io, process.cwd()),
      ),
      0,
      withToken.err.join('\n'),
    );
    assert.ok(peer.hits.filter((h) => h.route === 'viewer').every((h) => h.authorization === undefined || h.authorization === 'Bearer hf_secret'));
  } finally {
    await peer.close();
  }
});
