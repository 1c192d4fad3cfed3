/**
 * Vectors kept on disk by content, so that a repository's node texts are embedded once and every
 * later run (another episode on the same repository, a resumed rollout) reads them back.
 *
 * One append-only file per model and dimension count under the cache folder
 * (`~/.cache/graph-planner/embeddings/` unless the caller names another): a 16-byte header
 * (`GPEMBED1`, the dimension count as a little-endian uint32, four zero bytes), then records of a
 * 32-byte key (sha256 of the model id and the text) and the vector as little-endian float32s. The
 * file is read whole into a map on open. A process killed mid-append leaves a torn last record:
 * reading ignores it, and the next append first cuts the file back to its last whole record.
 * Each `add` writes its records with one append, under a lock file shared with other processes
 * (util/fileLock.ts), so a reader sees whole batches or nothing new.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { endianness, homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { withFileLock } from '../util/fileLock.js';
import type { TextEmbedder } from './embedder.js';

const magic = Buffer.from('GPEMBED1', 'ascii');
const headerBytes = 16;
const keyBytes = 32;

export function defaultEmbeddingCacheDir(): string {
  return join(homedir(), '.cache', 'graph-planner', 'embeddings');
}

/** The cache key of a text under a model: hex sha256 of the model id, a NUL and the text. */
export function embeddingKey(modelId: string, text: string): string {
  return createHash('sha256').update(modelId).update('\0').update(text).digest('hex');
}

export class EmbeddingStore {
  private readonly vectors = new Map<string, Float32Array>();
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly modelId: string,
    readonly dimensions: number,
    readonly path: string,
  ) {}

  /** Opens (or prepares to create) the store of one model; a missing file is an empty store. */
  static async open(modelId: string, dimensions: number, dir: string = defaultEmbeddingCacheDir()): Promise<EmbeddingStore> {
    // Float32Array views use the machine's byte order; the file is little-endian, as every
    // platform Node runs on is.
    if (endianness() !== 'LE') throw new Error('the embedding store supports little-endian machines only');
    if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`dimensions must be a positive integer, got ${dimensions}`);
    const store = new EmbeddingStore(modelId, dimensions, join(dir, `${modelId.replace(/[^A-Za-z0-9._-]/g, '_')}.${dimensions}.bin`));
    store.load(await readIfPresent(store.path));
    return store;
  }

  get size(): number {
    return this.vectors.size;
  }

  private get recordBytes(): number {
    return keyBytes + this.dimensions * 4;
  }

  get(key: string): Float32Array | undefined {
    return this.vectors.get(key);
  }

  has(key: string): boolean {
    return this.vectors.has(key);
  }

  /** Keeps the vectors in memory and appends those not yet stored to the file in one write. */
  add(entries: ReadonlyArray<{ readonly key: string; readonly vector: Float32Array }>): Promise<void> {
    const fresh = new Map<string, Float32Array>();
    for (const { key, vector } of entries) {
      if (vector.length !== this.dimensions) throw new Error(`a vector of ${vector.length} dimensions cannot go into a store of ${this.dimensions}`);
      if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`store keys are hex sha256 digests, got ${key}`);
      if (!this.vectors.has(key)) fresh.set(key, vector);
    }
    for (const [key, vector] of fresh) this.vectors.set(key, vector);
    if (fresh.size === 0) return this.writes.then(() => undefined);
    const records = Buffer.alloc(fresh.size * this.recordBytes);
    let at = 0;
    for (const [key, vector] of fresh) {
      records.write(key, at, 'hex');
      Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(records, at + keyBytes);
      at += this.recordBytes;
    }
    // Appends from one process are chained, so a cut-back never meets a write in flight.
    const write = this.writes.then(() => this.append(records));
    this.writes = write.catch(() => undefined);
    return write;
  }

  private load(file: Buffer | undefined): void {
    if (file === undefined || file.length < headerBytes) return;
    if (!file.subarray(0, magic.length).equals(magic) || file.readUInt32LE(magic.length) !== this.dimensions) return;
    const whole = Math.floor((file.length - headerBytes) / this.recordBytes);
    for (let i = 0; i < whole; i++) {
      const at = headerBytes + i * this.recordBytes;
      const key = file.toString('hex', at, at + keyBytes);
      // A copy, so that each vector owns aligned memory and the file's buffer can be freed.
      const vector = new Float32Array(this.dimensions);
      new Uint8Array(vector.buffer).set(file.subarray(at + keyBytes, at + this.recordBytes));
      this.vectors.set(key, vector);
    }
  }

  private async append(records: Buffer): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    // Other processes (evaluation shards, the environment service) may share the file: the lock
    // keeps one's cut-back of a torn tail from meeting another's append in flight.
    await withFileLock(this.path, () => this.appendLocked(records));
  }

  private async appendLocked(records: Buffer): Promise<void> {
    const handle = await open(this.path, 'a+');
    try {
      const { size } = await handle.stat();
      const start = Buffer.alloc(headerBytes);
      const { bytesRead } = await handle.read(start, 0, headerBytes, 0);
      if (bytesRead < headerBytes || !start.equals(header(this.dimensions))) {
        // A new file, one whose header was torn, or one in another format: start it again.
        await handle.truncate(0);
        await handle.write(header(this.dimensions));
      } else {
        // Another process may have appended whole records since this one read the file; only a
        // torn tail (a process killed mid-write) is cut back.
        const whole = headerBytes + Math.floor((size - headerBytes) / this.recordBytes) * this.recordBytes;
        if (whole !== size) await handle.truncate(whole);
      }
      await handle.write(records);
    } finally {
      await handle.close();
    }
  }
}

function header(dimensions: number): Buffer {
  const bytes = Buffer.alloc(headerBytes);
  magic.copy(bytes);
  bytes.writeUInt32LE(dimensions, magic.length);
  return bytes;
}

async function readIfPresent(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw error;
  }
}

export interface EmbedItem {
  /**
   * A name the caller already has for this exact text (a node's content hash, say); when given it
   * is hashed instead of the text, and the caller promises a new text gets a new key.
   */
  readonly key?: string;
  readonly text: string;
}

/**
 * The items' vectors, embedding only those the store lacks (each distinct text once) and storing
 * them. The store and the embedder must be of one model.
 */
export async function embedCached(store: EmbeddingStore, embedder: TextEmbedder, items: readonly EmbedItem[]): Promise<Float32Array[]> {
  if (store.modelId !== embedder.modelId || store.dimensions !== embedder.dimensions) {
    throw new Error(`the store holds ${store.modelId} (${store.dimensions}) but the embedder is ${embedder.modelId} (${embedder.dimensions})`);
  }
  const keys = items.map((item) => embeddingKey(embedder.modelId, item.key ?? item.text));
  const missing = new Map<string, string>();
  items.forEach((item, i) => {
    const key = keys[i];
    if (key !== undefined && !store.has(key) && !missing.has(key)) missing.set(key, item.text);
  });
  if (missing.size > 0) {
    const vectors = await embedder.embed([...missing.values()]);
    const missingKeys = [...missing.keys()];
    await store.add(vectors.map((vector, i) => ({ key: missingKeys[i] ?? '', vector })));
  }
  return keys.map((key) => {
    const vector = store.get(key);
    if (vector === undefined) throw new Error(`the embedder returned no vector for ${key}`);
    return vector;
  });
}
