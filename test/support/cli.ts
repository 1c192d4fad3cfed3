/** Running `gp` in-process, as the CLI and integration tests do, and git with a throwaway identity. */
import { execFileSync } from 'node:child_process';
import { runCli } from '../../server/src/cli/main.js';

export interface GpResult {
  code: number;
  out: string;
  err: string;
}

/** `gp ARGS` in `cwd`, with stdout and stderr as text. */
export async function runGp(cwd: string, args: readonly string[]): Promise<GpResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args], { out: (l) => out.push(l), err: (l) => err.push(l) }, cwd);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** `git ARGS` in `cwd` with a test identity; its trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd, encoding: 'utf8' }).trim();
}
