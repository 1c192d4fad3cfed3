/** `status.json`: written whole and atomically each time it changes, so a reader never sees half of it. */
import { open, readFile } from 'node:fs/promises';
import { runStatusSchema, type RunStatus } from '../protocol/runs.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { ioFailure } from '../util/ioFailure.js';
import { checkRecord } from './jsonLines.js';

export async function writeStatus(path: string, status: RunStatus): Promise<void> {
  const text = `${JSON.stringify(checkRecord(runStatusSchema, status, path), null, 2)}\n`;
  try {
    await writeFileAtomic(path, text);
  } catch (error) {
    if (ioFailure(error)?.kind !== 'disk-full') throw error;
    await overwriteInPlace(path, text, error);
  }
}

/**
 * On a full disk the atomic write's temporary file cannot be made, yet a run that stops there must
 * not stay `running` for ever. The file is rewritten in place instead: a status is a few hundred
 * bytes, so the new text fits in the blocks the old one already holds and needs none from the
 * disk. Without an old file there is nothing to reuse, and the disk's error stands.
 */
async function overwriteInPlace(path: string, text: string, diskError: unknown): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r+');
  } catch {
    throw diskError;
  }
  try {
    const bytes = Buffer.from(text, 'utf8');
    await handle.write(bytes, 0, bytes.length, 0);
    await handle.truncate(bytes.length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export type StatusRead = { readonly ok: true; readonly status: RunStatus } | { readonly ok: false; readonly reason: string };

/** Reads and checks `status.json`; a missing or invalid file is a reason, not an exception. */
export async function readStatus(path: string): Promise<StatusRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? 'no status.json' : `cannot read status.json (${code ?? String(error)})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `status.json is not JSON (${(error as Error).message})` };
  }
  const parsed = runStatusSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `status.json: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, status: parsed.data };
}
