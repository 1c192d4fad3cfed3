/** `status.json`: written whole and atomically each time it changes, so a reader never sees half of it. */
import { readFile } from 'node:fs/promises';
import { runStatusSchema, type RunStatus } from '../protocol/runs.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { checkRecord } from './jsonLines.js';

export async function writeStatus(path: string, status: RunStatus): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(checkRecord(runStatusSchema, status, path), null, 2)}\n`);
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
