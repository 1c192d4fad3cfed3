/**
 * `launch.json`: the command, arguments and folder a run was launched with. `gp rollout` and
 * `gp eval` write it when the run starts (atomically, so a reader never sees half of it); the Runs
 * view reads it to resume a run or launch it again, whichever side started it.
 */
import { readFile } from 'node:fs/promises';
import { runLaunchRecordSchema, type RunLaunchRecord } from '../protocol/runs.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { errorMessage } from '../util/errors.js';
import { checkRecord } from './jsonLines.js';

export async function writeLaunchRecord(path: string, record: RunLaunchRecord): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(checkRecord(runLaunchRecordSchema, record, path), null, 2)}\n`);
}

export type LaunchRecordRead =
  { readonly ok: true; readonly record: RunLaunchRecord } | { readonly ok: false; readonly reason: string; readonly missing: boolean };

export async function readLaunchRecord(path: string): Promise<LaunchRecordRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return { ok: false, missing, reason: missing ? 'no launch.json (the run was started by an older gp)' : `cannot read launch.json (${errorMessage(error)})` };
  }
  try {
    const parsed = runLaunchRecordSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { ok: true, record: parsed.data };
    const issue = parsed.error.issues[0];
    return { ok: false, missing: false, reason: `launch.json: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
  } catch (error) {
    return { ok: false, missing: false, reason: `launch.json is not JSON (${errorMessage(error)})` };
  }
}

/** The arguments without the flags that pick the run folder (`--run-name`, `--run-dir`, `--resume`). */
export function withoutRunFolderFlags(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--resume' || a.startsWith('--run-name=') || a.startsWith('--run-dir=')) continue;
    if (a === '--run-name' || a === '--run-dir') {
      i++;
      continue;
    }
    kept.push(a);
  }
  return kept;
}

/** The arguments without the config file (`--config`, `--config-file`), for a launch from another config. */
export function withoutConfigFlags(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a.startsWith('--config=') || a.startsWith('--config-file=')) continue;
    if (a === '--config' || a === '--config-file') {
      i++;
      continue;
    }
    kept.push(a);
  }
  return kept;
}
