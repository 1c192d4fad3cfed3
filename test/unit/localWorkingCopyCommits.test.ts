/**
 * The local backend's working copy holds the task's base commit whenever its local_repo does, not
 * only when a branch or tag reaches it. From a shallow source `git clone` fetches what the
 * source's refs reach and nothing else, so a commit fetched by id (`git fetch --depth 1 origin
 * <sha>`, as one does for SWE-bench base commits; a repository of several shallow commits of which
 * one is checked out) used to be missing from the copy: the task was refused with "its base commit
 * … is not in" the very repository that had it. (From a full local clone git copies the object
 * store, so that case worked already; it is checked too.) Real git repositories.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { openSandbox, SandboxError, sandboxSpecForTask } from '../../server/src/sandbox/index.js';
import { taskEntrySchema, type TaskEntry } from '../../server/src/tasks/index.js';
import { git } from '../support/cli.js';

const root = mkdtempSync(join(tmpdir(), 'gp-copy-commits-'));
after(() => rmSync(root, { recursive: true, force: true }));

// Upstream: main has the fix; branch `old` (not main's ancestor) has the bug.
const upstream = join(root, 'upstream');
mkdirSync(upstream);
git(upstream, 'init', '-q', '-b', 'main');
writeFileSync(join(upstream, 'calc.py'), 'def add(a, b):\n    return a + b\n');
git(upstream, 'add', '.');
git(upstream, 'commit', '-qm', 'start');
git(upstream, 'checkout', '-q', '-b', 'old');
writeFileSync(join(upstream, 'calc.py'), 'def add(a, b):\n    return a - b\n');
git(upstream, 'commit', '-qam', 'bug');
const buggy = git(upstream, 'rev-parse', 'HEAD');
git(upstream, 'checkout', '-q', 'main');
writeFileSync(join(upstream, 'calc.py'), 'def add(a, b):\n    return a + b  # fixed\n');
git(upstream, 'commit', '-qam', 'fix');
const fixed = git(upstream, 'rev-parse', 'HEAD');

// A shallow clone of main, then the buggy commit fetched by id: in the object store, in
// .git/shallow, reached by no ref.
const shallow = join(root, 'shallow');
git(root, 'clone', '-q', '--depth', '1', '--single-branch', `file://${upstream}`, shallow);
git(shallow, '-c', 'protocol.file.allow=always', 'fetch', '-q', '--depth', '1', 'origin', buggy);

// A full clone of main with the buggy commit fetched by id (no ref to it either).
const full = join(root, 'full');
git(root, 'clone', '-q', '--single-branch', upstream, full);
git(full, 'fetch', '-q', 'origin', buggy);

function task(localRepo: string, base: string): TaskEntry {
  return taskEntrySchema.parse({
    task_id: 'unreferenced-base',
    issue: { title: 'add subtracts', body: '' },
    FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
    sandbox: { workdir: '/testbed', local_repo: localRepo, backend: 'local', base_commit: base, test_command: 'python -m pytest -rA' },
  });
}

test('the sources hold the base commit with no ref to it', () => {
  for (const repo of [shallow, full]) {
    assert.equal(git(repo, 'rev-parse', 'HEAD'), fixed);
    assert.equal(git(repo, 'cat-file', '-t', buggy), 'commit');
    assert.equal(git(repo, 'for-each-ref', '--contains', buggy), '', `${repo}: no ref reaches the base commit`);
  }
  assert.ok(readFileSync(join(shallow, '.git', 'shallow'), 'utf8').includes(buggy));
});

for (const [name, repo] of [
  ['a shallow clone', shallow],
  ['a full clone', full],
] as const) {
  test(`a base commit that ${name} holds with no ref is in the working copy, checked out`, async () => {
    const sandbox = await openSandbox(sandboxSpecForTask(task(repo, buggy), { ...defaultSandboxOptions(), baseDir: root }));
    try {
      assert.equal(sandbox.baseCommit, buggy);
      assert.equal(git(sandbox.workdir, 'rev-parse', 'HEAD'), buggy);
      assert.equal(readFileSync(join(sandbox.workdir, 'calc.py'), 'utf8'), 'def add(a, b):\n    return a - b\n');
      assert.equal(git(sandbox.workdir, 'status', '--porcelain'), '');
      // The copy's history is whole as far as it goes: git log walks it without a missing parent.
      execFileSync('git', ['log', '--oneline', buggy], { cwd: sandbox.workdir, stdio: 'pipe' });
    } finally {
      await sandbox.close();
    }
    assert.equal(git(repo, 'rev-parse', 'HEAD'), fixed, 'the source is not changed');
  });
}

test('a base commit the source does not have is still refused, naming it', async () => {
  const absent = 'f'.repeat(40);
  await assert.rejects(
    openSandbox(sandboxSpecForTask(task(shallow, absent), { ...defaultSandboxOptions(), baseDir: root })),
    (error: unknown) => error instanceof SandboxError && error.code === 'base-missing' && error.message.includes(absent),
  );
});
