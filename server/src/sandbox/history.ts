/**
 * A repository with no future: a bare copy of a task's `local_repo` that holds only the commits a
 * sandbox may start from (the base, and the commits the task names) with their ancestors, and the
 * tags among those ancestors; no other branch, no remote, no reflog, and no object that only a
 * later commit reaches. Working copies and the task images `gp env build --docker` makes are
 * cloned from it, so code run in a sandbox cannot find the commit that fixed the bug
 * (`git log --all`, `git cat-file <later sha>`), as agents have done on SWE-bench
 * (docs/sandboxes.md#no-future-in-a-working-copy).
 *
 * Tags that point at ancestors stay: they say nothing about the future, and setuptools_scm reads
 * the version of an editable install from them, as it did in the harness's images.
 *
 * Made once per machine for each repository and set of commits, under
 * ~/.cache/graph-planner/histories (GP_HISTORIES), and never changed afterwards, so clones of it
 * hard-link its objects. A lock keeps two makers apart; the copy is moved into place only when
 * complete.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { withFileLock } from '../util/fileLock.js';
import { SandboxError } from './sandbox.js';

/** Where histories are kept: $GP_HISTORIES, else ~/.cache/graph-planner/histories. */
export function historiesRoot(): string {
  return process.env['GP_HISTORIES'] ?? join(homedir(), '.cache', 'graph-planner', 'histories');
}

function git(args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      'git',
      [...args],
      { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
      (error, stdout, stderr) => {
        done({ code: error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1, stdout, stderr });
      },
    );
  });
}

async function gitOk(args: readonly string[], cwd: string, what: string): Promise<string> {
  const r = await git(args, cwd);
  if (r.code !== 0) throw new SandboxError(`${what} failed (git ${args.join(' ')}): ${r.stderr.trim().split('\n').slice(-3).join(' ')}`, 'io');
  return r.stdout;
}

/**
 * The full ids of those of `commits` that `source` has, in their order (the first is the one a
 * clone checks out); the others are left for the caller to report.
 */
async function fullIds(source: string, commits: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const commit of commits) {
    const r = await git(['rev-parse', '--verify', '--quiet', `${commit}^{commit}`], source);
    if (r.code === 0) ids.push(r.stdout.trim());
  }
  return [...new Set(ids)];
}

/**
 * The bare history of `source` up to `commits` (each with its ancestors), made when missing; its
 * HEAD is the first of them that `source` has. With none, it is the history up to the source's
 * HEAD.
 */
export async function historyUpTo(source: string, commits: readonly string[]): Promise<string> {
  const real = await realpath(source);
  let ids = await fullIds(real, commits);
  if (ids.length === 0) ids = await fullIds(real, ['HEAD']);
  if (ids.length === 0)
    throw new SandboxError(`${source} has no commit to start from (an empty repository, or none of ${commits.join(', ')} is in it).`, 'base-missing');
  const key = createHash('sha256')
    .update(JSON.stringify({ v: 1, source: real, ids }))
    .digest('hex')
    .slice(0, 24);
  const root = historiesRoot();
  const dir = join(root, `${key}.git`);
  const done = join(dir, 'gp-history-complete');
  if (existsSync(done)) return dir;
  await mkdir(root, { recursive: true });
  return withFileLock(
    dir,
    async () => {
      if (existsSync(done)) return dir;
      const staging = `${dir}.partial-${process.pid}`;
      await rm(staging, { recursive: true, force: true });
      try {
        await gitOk(['init', '--bare', '--quiet', staging], root, 'Making a history copy');
        // Commits by id: the source side must allow wanting a commit that no ref names.
        const refspecs = ids.map((id, i) => `${id}:refs/heads/${i === 0 ? 'base' : `named-${i}`}`);
        const tags = new Set<string>();
        for (const id of ids)
          for (const tag of (await gitOk(['tag', '--merged', id], real, 'Listing the tags of the base')).split('\n'))
            if (tag.trim() !== '') tags.add(tag.trim());
        const tagSpecs = [...tags].map((tag) => `refs/tags/${tag}:refs/tags/${tag}`);
        // In chunks, so a repository with thousands of tags stays within the argument limit.
        const all = [...refspecs, ...tagSpecs];
        for (let i = 0; i < all.length; i += 500) {
          await gitOk(
            ['-c', 'uploadpack.allowAnySHA1InWant=true', 'fetch', '--quiet', '--no-tags', '--update-shallow', '--', real, ...all.slice(i, i + 500)],
            staging,
            `Copying the history of ${source} up to its base`,
          );
        }
        await gitOk(['symbolic-ref', 'HEAD', 'refs/heads/base'], staging, 'Pointing the history copy at its base');
        await rm(join(staging, 'FETCH_HEAD'), { force: true });
        await rm(join(staging, 'logs'), { recursive: true, force: true });
        await writeFile(join(staging, 'gp-history-complete'), `${JSON.stringify({ source: real, commits: ids, tags: tags.size })}\n`);
        await rename(staging, dir);
        return dir;
      } catch (error) {
        await rm(staging, { recursive: true, force: true });
        throw error;
      }
      // Copying a large history (Django's) takes a minute on two cores; a second sandbox of the same
      // task waits for it rather than making it again.
    },
    { timeoutMs: 30 * 60_000 },
  );
}

/**
 * Leaves a clone of a history copy with nothing that points past its base: the remote (and its
 * tracking refs) removed, and no reflog, now or later (it would name the clone's source and every
 * commit the sandbox's own resets pass through).
 */
export async function forgetOrigin(workingCopy: string): Promise<void> {
  await gitOk(['remote', 'remove', 'origin'], workingCopy, "Removing the working copy's remote");
  // With logAllRefUpdates off, git appends only to reflogs that exist, so the clone's are removed.
  await gitOk(['config', 'core.logAllRefUpdates', 'false'], workingCopy, "Turning off the working copy's reflog");
  await rm(join(workingCopy, '.git', 'logs'), { recursive: true, force: true });
}
