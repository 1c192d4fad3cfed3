/**
 * Git operations both backends share: find the base commit, apply a patch all-or-nothing, diff
 * against the base (new files included), and reset. They run through the sandbox's own `exec`,
 * so the docker and local backends behave the same by construction.
 */
import type { ExecResult, PatchResult, RejectedHunk, SandboxSpec } from '../protocol/sandbox.js';
import type { OpenedBackendName } from '../protocol/sandboxBackends.js';
import { describeCommand, shellQuote } from './commandScript.js';
import { patchPaths } from './patchPaths.js';
import { SandboxError, type Command, type ExecOptions } from './sandbox.js';

/** What the git operations need from a backend. */
export interface RepoHost {
  exec(command: Command, options?: ExecOptions): Promise<ExecResult>;
  writeFile(path: string, content: Buffer | string): Promise<void>;
  /** A path for temporary files that is outside the repository (so it never shows in a diff). */
  scratchPath(name: string): string;
}

// Diffs and patches can be large; they must not be cut by the per-command output limit.
const bigOutput = 256 * 1024 * 1024;

/** Git runs under the sandbox's own command limit (`sandbox.command_timeout`), like every command. */
async function git(host: RepoHost, args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
  return host.exec(['git', '-c', 'core.quotePath=false', ...args], options);
}

function failure(what: string, command: Command, result: ExecResult): SandboxError {
  const detail = (result.stderr || result.stdout).trim().split('\n').slice(-5).join('\n');
  return new SandboxError(`${what} failed (${describeCommand(command)}, exit ${result.exitCode ?? 'killed'}): ${detail}`, 'io');
}

/** The commit the working tree is on; the repository must have one. */
export async function headCommit(host: RepoHost, workdir: string): Promise<string> {
  const result = await git(host, ['rev-parse', '--verify', 'HEAD^{commit}']);
  if (result.exitCode !== 0) {
    throw new SandboxError(
      `${workdir} is not a git repository with a commit, so the sandbox cannot know its base (${result.stderr.trim()}). Commit the repository in the image, or set sandbox.base_commit.`,
      'no-source',
    );
  }
  return result.stdout.trim();
}

/**
 * The commit a sandbox grades against: the task's base commit, or the working copy's `HEAD`. A task
 * without a base commit whose test command names one (a SWE-bench eval script's `git checkout
 * <sha> <tests>`) must be on it: a copy at a later commit that already holds the fix would grade
 * an empty patch as resolved. Such a copy is refused (`sandbox.unknown_base: refuse`, the default)
 * or run with a warning.
 */
export async function gradingBase(
  host: RepoHost,
  spec: Pick<SandboxSpec, 'baseCommit' | 'namedCommits' | 'unknownBase' | 'task'>,
  workdir: string,
  repo: string,
): Promise<string> {
  if (spec.baseCommit !== undefined) return spec.baseCommit;
  const head = await headCommit(host, workdir);
  const named = spec.namedCommits;
  if (named.length === 0 || named.some((c) => head.startsWith(c))) return head;
  const names = named.map((c) => c.slice(0, 12)).join(', ');
  const message = `task ${spec.task} names no sandbox.base_commit, and ${repo} is on ${head.slice(0, 12)}, not on the commit its test command checks its tests out at (${names}): graded there, a copy that already holds the fix passes with no patch. Set sandbox.base_commit to ${named[0] ?? ''} (the commit the task starts from), or check it out in ${repo}`;
  if (spec.unknownBase === 'refuse') throw new SandboxError(`${message}; sandbox.unknown_base: warn runs it anyway.`, 'base-unknown');
  process.emitWarning(`${message}.`, { code: 'GP_BASE_UNKNOWN' });
  return head;
}

/**
 * Checks out the task's base commit (`sandbox.base_commit`) after making sure the repository has
 * it. Without this a copy at another commit would be graded as if it were the task's code, and a
 * copy without the commit would fail later in ways that look like the agent's fault (the test
 * command's `git checkout <base> -- <tests>` fails, so every repair "does not apply").
 */
export async function checkOutBase(
  host: RepoHost,
  base: string,
  where: { readonly task: string; readonly repo: string; readonly backend: OpenedBackendName },
): Promise<void> {
  const found = await git(host, ['cat-file', '-e', `${base}^{commit}`]);
  if (found.exitCode !== 0) {
    const shallow = (await git(host, ['rev-parse', '--is-shallow-repository'])).stdout.trim() === 'true';
    const fix =
      where.backend === 'local'
        ? `Fetch the history into ${where.repo} (${shallow ? 'it is a shallow clone: git fetch --unshallow' : `git fetch origin ${base}`}), or point the task's local_repo at a full clone.`
        : `Build the image ${where.repo} from a clone that has it, or run the task on the local backend with a full clone as local_repo.`;
    throw new SandboxError(
      `Task ${where.task}: its base commit ${base} (sandbox.base_commit) is not in ${where.repo}${shallow ? ', a shallow clone' : ''}, so the task cannot start from its code. ${fix}`,
      'base-missing',
    );
  }
  await resetToBase(host, base);
}

/**
 * Reads `git apply --check` errors into hunks. git names the file and, for a hunk that does not
 * match, the line where it expected it: `error: patch failed: app/calc.py:6`.
 */
export function rejectedHunks(stderr: string): RejectedHunk[] {
  const out: RejectedHunk[] = [];
  for (const line of stderr.split('\n')) {
    const failed = /^error: patch failed: (.+):(\d+)$/.exec(line);
    if (failed) {
      out.push({ path: failed[1] ?? '', line: Number(failed[2]), message: 'the hunk does not match the file at this line' });
      continue;
    }
    const other = /^error: (.+?): (.+)$/.exec(line);
    if (other && other[2] !== 'patch does not apply') out.push({ path: other[1] ?? '', message: other[2] ?? '' });
  }
  return out;
}

/** Whether some hunk has no context lines at all (as `diff -U0` writes them). */
export function hasZeroContextHunk(diff: string): boolean {
  const lines = diff.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]?.startsWith('@@ ')) continue;
    let context = false;
    for (let j = i + 1; j < lines.length && !/^(@@ |diff |--- )/.test(lines[j] ?? ''); j++) {
      if ((lines[j] ?? '').startsWith(' ')) context = true;
    }
    if (!context) return true;
  }
  return false;
}

/**
 * Patches up to this size travel inside the applying command itself, as a here-document, instead
 * of a file written first: that saves a round trip per candidate. The local backend passes a
 * script to `bash -c`, whose one argument Linux caps at 128 KiB, so the cap stays well below it.
 */
const inlinePatchBytes = 64 * 1024;

/**
 * The lines that write `text` to `file` from a quoted here-document (bash copies its lines byte for
 * byte, expanding nothing), or undefined when the text must be written as a file: it is too large,
 * or it holds a NUL byte, which the command session drops from scripts. The delimiter carries the
 * call's random part, so no line of a patch can end the document early.
 */
function inlinePatch(text: string, file: string, nonce: string): string | undefined {
  if (Buffer.byteLength(text) > inlinePatchBytes || text.includes('\0')) return undefined;
  const end = `GP_PATCH_${nonce.replace(/[^A-Za-z0-9]/g, '_')}`;
  return `cat > ${shellQuote(file)} <<'${end}' || exit 11\n${text}${end}`;
}

export async function applyPatch(host: RepoHost, diff: string): Promise<PatchResult> {
  const { paths, refused } = patchPaths(diff);
  if (refused !== undefined) {
    return { applied: false, files: paths, rejected: [], refused, message: `Patch refused: ${refused}.` };
  }
  if (paths.length === 0) {
    return { applied: false, files: [], rejected: [], message: 'The patch names no files: expected a unified diff with ---/+++ headers.' };
  }
  // `diff -U0` output is a valid unified diff, but git refuses hunks without context unless told.
  const zeroContext = hasZeroContextHunk(diff) ? ['--unidiff-zero'] : [];
  const nonce = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const file = host.scratchPath(`patch-${nonce}.diff`);
  const text = diff.endsWith('\n') ? diff : `${diff}\n`;
  // Check, apply and remove in one command: each round trip to the sandbox costs a few ms, and a
  // repair applies a patch per candidate. Exit 10 means the check failed (its stderr says why);
  // `git apply` without --reject is atomic: it changes nothing unless every hunk applies.
  const gitArgs = ['git', '-c', 'core.quotePath=false', 'apply', '--whitespace=nowarn', ...zeroContext].map(shellQuote).join(' ');
  const quoted = shellQuote(file);
  const apply = `${gitArgs} --check --verbose ${quoted} || { rm -f -- ${quoted}; exit 10; }; ${gitArgs} ${quoted}; rc=$?; rm -f -- ${quoted}; exit $rc`;
  const inline = inlinePatch(text, file, nonce);
  if (inline === undefined) await host.writeFile(file, text);
  const result = await host.exec(inline === undefined ? apply : `${inline}\n${apply}`);
  if (result.exitCode === 10) {
    const rejected = rejectedHunks(result.stderr);
    const names = rejected.map((r) => (r.line === undefined ? `${r.path} (${r.message})` : `${r.path}:${r.line}`));
    return {
      applied: false,
      files: paths,
      rejected,
      message: `The patch does not apply${names.length ? `: ${names.join(', ')}` : ''}. Nothing was changed.${rejected.length ? '' : ` git said: ${result.stderr.trim()}`}`,
    };
  }
  if (result.exitCode === 11 && inline !== undefined) {
    return {
      applied: false,
      files: paths,
      rejected: [],
      message: `The patch could not be written to ${file} in the sandbox, so nothing was changed: ${result.stderr.trim()}`,
    };
  }
  if (result.exitCode !== 0) {
    return {
      applied: false,
      files: paths,
      rejected: rejectedHunks(result.stderr),
      message: `git apply failed after its check passed: ${result.stderr.trim()}`,
    };
  }
  return { applied: true, files: paths, rejected: [], message: `Applied to ${paths.join(', ')}.` };
}

/**
 * Everything changed since the base commit, new untracked files included, without touching the
 * repository's own index: a throwaway index is filled from the working tree and compared.
 */
export async function diffSinceBase(host: RepoHost, base: string): Promise<string> {
  const index = shellQuote(host.scratchPath(`index-${Date.now()}-${Math.random().toString(36).slice(2)}`));
  const git = `git -c core.quotePath=false`;
  // One command for the three git steps and the clean-up (a round trip each would cost more than
  // the work); a failing step says which on stderr and exits with its own code.
  const steps = [`read-tree ${shellQuote(base)}`, 'add -A'].map(
    (step) => `${git} ${step} || { rc=$?; echo "graph-planner: git ${step} failed" >&2; rm -f -- ${index}; exit $rc; }`,
  );
  const script = [
    `export GIT_INDEX_FILE=${index}`,
    ...steps,
    `${git} diff --cached --binary --no-color --no-ext-diff ${shellQuote(base)}; rc=$?; rm -f -- ${index}; exit $rc`,
  ].join('\n');
  const r = await host.exec(script, { maxOutputBytes: bigOutput });
  if (r.exitCode !== 0) throw failure('Computing the diff', ['git', 'diff', base], r);
  return r.stdout;
}

/**
 * Back to the base commit. `git clean -fd` removes untracked files but keeps ignored ones, on
 * purpose: images install packages in develop mode, and their build products (`*.egg-info`,
 * compiled extensions) are ignored files the tests need.
 */
export async function resetToBase(host: RepoHost, base: string): Promise<void> {
  const git = 'git -c core.quotePath=false';
  const r = await host.exec(`${git} reset --hard -q ${shellQuote(base)} && ${git} clean -fdq`);
  if (r.exitCode !== 0) throw failure('Resetting the repository', ['git', 'reset', '--hard', base, '&&', 'git', 'clean', '-fdq'], r);
}
