/**
 * The lock between processes (util/fileLock.ts) and the vector store that relies on it: two stores
 * on one file appending at once keep every record whole, and a lock left by a dead process is taken over.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EmbeddingStore, embeddingKey } from '../../server/src/graph/embeddingStore.js';
import { withFileLock } from '../../server/src/util/fileLock.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-file-lock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('work under the lock never overlaps, and the lock is gone afterwards', async () => {
  const path = join(dir, 'shared');
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 8 }, () =>
      withFileLock(
        path,
        async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((resolve) => setTimeout(resolve, 3));
          inside--;
        },
        { pollMs: 1 },
      ),
    ),
  );
  assert.equal(most, 1);
  assert.equal(existsSync(`${path}.lock`), false);
});

test('a lock left by a dead process is taken over; one held by a live process times out naming it', async () => {
  const path = join(dir, 'stale');
  writeFileSync(`${path}.lock`, '999999999');
  assert.equal(await withFileLock(path, async () => 'ran'), 'ran');
  writeFileSync(`${path}.lock`, String(process.pid));
  await assert.rejects(
    withFileLock(path, async () => 'never', { timeoutMs: 50, pollMs: 5 }),
    new RegExp(`held by process ${process.pid}`),
  );
  // With no wait, the caller's own words for a busy lock (gp env build: "being built by process N").
  await assert.rejects(
    withFileLock(path, async () => 'never', { timeoutMs: 0, busy: (owner) => new Error(`busy ${owner ?? '?'}`) }),
    new RegExp(`^Error: busy ${process.pid}$`),
  );
});

test('two stores appending to one file at once keep every record whole', async () => {
  const storeDir = join(dir, 'store');
  const a = await EmbeddingStore.open('m', 4, storeDir);
  const b = await EmbeddingStore.open('m', 4, storeDir);
  const entry = (i: number) => ({ key: embeddingKey('m', `text ${i}`), vector: Float32Array.from([i, i + 1, i + 2, i + 3]) });
  await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).add([entry(i), entry(i + 1000)])));
  const reopened = await EmbeddingStore.open('m', 4, storeDir);
  assert.equal(reopened.size, 80);
  assert.deepEqual([...(reopened.get(entry(7).key) ?? [])], [7, 8, 9, 10]);
});
