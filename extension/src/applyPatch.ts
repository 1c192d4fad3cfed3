/**
 * Applying a patch to a local checkout with git: `git apply --check` first, and only when the
 * whole patch applies, `git apply`. A patch that conflicts changes nothing and says why in git's
 * own words. No `vscode` here, so it is tested against real repositories.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type ApplyOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export async function applyPatchToCheckout(diff: string, checkout: string): Promise<ApplyOutcome> {
  const dir = await mkdtemp(join(tmpdir(), 'gp-patch-'));
  const file = join(dir, 'patch.diff');
  try {
    await writeFile(file, diff.endsWith('\n') ? diff : `${diff}\n`);
    try {
      await run('git', ['apply', '--check', file], { cwd: checkout });
    } catch (error) {
      return { ok: false, reason: gitMessage(error) };
    }
    try {
      await run('git', ['apply', file], { cwd: checkout });
    } catch (error) {
      return { ok: false, reason: gitMessage(error) };
    }
    return { ok: true };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function gitMessage(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr?.trim();
  if (stderr) return stderr;
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'git is not installed or not on the PATH';
  return (error as Error).message;
}
