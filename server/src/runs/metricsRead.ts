/**
 * Reads the part of a run's `metrics.jsonl` after a byte offset, complete lines only: the metrics
 * page asks again every few seconds with where it stopped, so a long run is never read twice and a
 * line the trainer is still writing waits for its newline.
 */
import { open } from 'node:fs/promises';
import { metricsLineSchema, type MetricsLine } from '../protocol/metrics.js';

export interface MetricsChunk {
  readonly lines: MetricsLine[];
  readonly nextByte: number;
  readonly reset: boolean;
  readonly problems: string[];
}

/** Past this many bytes at once the page gets the rest on its next request. */
const maxChunkBytes = 8 * 1024 * 1024;

export async function readMetricsFrom(path: string, fromByte: number): Promise<MetricsChunk> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], nextByte: 0, reset: fromByte > 0, problems: [] };
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const reset = size < fromByte;
    const start = reset ? 0 : fromByte;
    const length = Math.min(size - start, maxChunkBytes);
    if (length <= 0) return { lines: [], nextByte: start, reset, problems: [] };
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, start);
    const end = buffer.lastIndexOf(0x0a);
    if (end < 0) return { lines: [], nextByte: start, reset, problems: [] };
    const lines: MetricsLine[] = [];
    const problems: string[] = [];
    let offset = start;
    for (const text of buffer.subarray(0, end).toString('utf8').split('\n')) {
      if (text.trim() !== '') {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          value = undefined;
        }
        const parsed = metricsLineSchema.safeParse(value);
        if (parsed.success) lines.push(parsed.data);
        else problems.push(`${path} at byte ${offset}: not a metrics line; left out`);
      }
      offset += Buffer.byteLength(text) + 1;
    }
    return { lines, nextByte: start + end + 1, reset, problems };
  } finally {
    await handle.close();
  }
}
