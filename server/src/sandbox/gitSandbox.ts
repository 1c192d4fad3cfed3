/**
 * What both backends share once they can run commands and write files: the repository operations
 * (patch, diff, reset against the base commit) and the closed-state check. Each backend supplies
 * `exec`, `writeFile` and `scratchPath`; the git logic itself lives in `repoOps.ts`.
 */
import type { ExecResult, PatchResult } from '../protocol/sandbox.js';
import { applyPatch, diffSinceBase, resetToBase, type RepoHost } from './repoOps.js';
import { SandboxError, type Command, type ExecOptions } from './sandbox.js';

export abstract class GitSandbox implements RepoHost {
  protected closed = false;
  protected base = '';

  abstract exec(command: Command, options?: ExecOptions): Promise<ExecResult>;
  abstract writeFile(path: string, content: Buffer | string, mode?: number): Promise<void>;
  abstract scratchPath(name: string): string;
  /** How error messages name this sandbox (the container name, or the working copy's path). */
  protected abstract get displayName(): string;

  get baseCommit(): string {
    return this.base;
  }

  applyPatch(diff: string): Promise<PatchResult> {
    this.assertOpen();
    return applyPatch(this, diff);
  }

  diff(): Promise<string> {
    this.assertOpen();
    return diffSinceBase(this, this.base);
  }

  reset(): Promise<void> {
    this.assertOpen();
    return resetToBase(this, this.base);
  }

  protected assertOpen(): void {
    if (this.closed) throw new SandboxError(`Sandbox ${this.displayName} is closed.`, 'closed');
  }
}
