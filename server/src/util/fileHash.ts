/** The SHA-256 of a file's bytes, read as a stream so a large file (a model, a parquet) is never held whole. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
