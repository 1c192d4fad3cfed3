/**
 * No base, no grade: a task without `sandbox.base_commit` whose test command checks its tests out
 * at a commit (as SWE-bench's eval scripts do) is refused on a working copy at another commit,
 * where a copy that already holds the fix would grade an empty patch as resolved; with
 * `sandbox.unknown_base: warn` it runs and says so. Real git repositories on the local backend.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { openSandbox, SandboxError, sandboxSpecForTask } from '../../server/src/sandbox/index.js';
import { commitsNamedBy } from '../../server/src/sandbox/openSandbox.js';
import { taskEntrySchema, type TaskEntry } from '../../server/src/tasks/index.js';
import { git } from '../support/cli.js';

const root = mkdtempSync(join(tmpdir(), 'gp-unknown-base-'));
after(() => rmSync(root, { recursive: true, force: true }));

// A repository whose first commit has the bug and whose second holds the fix.
const repo = join(root, 'repo');
mkdirSync(repo);
git(repo, 'init', '-q');
writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
git(repo, 'add', '.');
git(repo, 'commit', '-qm', 'bug');
const buggy = git(repo, 'rev-parse', 'HEAD');
writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n');
git(repo, 'commit', '-qam', 'fix');
const fixed = git(repo, 'rev-parse', 'HEAD');

function task(extra: Record<string, unknown> = {}): TaskEntry {
  return taskEntrySchema.parse({
    task_id: 'no-base',
    issue: { title: 'add subtracts', body: '' },
    FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
    sandbox: {
      workdir: '/testbed',
      local_repo: repo,
      backend: 'local',
      test_command: `git checkout ${buggy} tests/test_calc.py\npython -m pytest -rA tests/test_calc.py`,
      ...extra,
    },
  });
}

test('the commits a test command checks files out at are read from it', () => {
  assert.deepEqual(commitsNamedBy(task()), [buggy]);
  assert.deepEqual(commitsNamedBy(task({ test_command: 'python -m pytest -rA' })), []);
});

test('a working copy at a commit the task does not name is refused, saying what to set', async () => {
  await assert.rejects(
    openSandbox(sandboxSpecForTask(task(), { ...defaultSandboxOptions(), baseDir: root })),
    (error: unknown) =>
      error instanceof SandboxError &&
      error.code === 'base-unknown' &&
      error.message.includes(`is on ${fixed.slice(0, 12)}`) &&
      error.message.includes(`Set sandbox.base_commit to ${buggy}`),
  );
});

test('with unknown_base: warn it opens on HEAD and warns; on the named commit, or with a base commit, it opens quietly', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error & { code?: string }) => {
    if (w.code === 'GP_BASE_UNKNOWN') warnings.push(w.message);
  };
  process.on('warning', onWarning);
  try {
    const warned = await openSandbox(sandboxSpecForTask(task(), { ...defaultSandboxOptions(), baseDir: root, unknownBase: 'warn' }));
    assert.equal(warned.baseCommit, fixed);
    await warned.close();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warnings.length, 1);
    const based = await openSandbox(sandboxSpecForTask(task({ base_commit: buggy }), { ...defaultSandboxOptions(), baseDir: root }));
    assert.equal(based.baseCommit, buggy, 'a task with its base commit starts from it');
    await based.close();
    git(repo, 'checkout', '-q', buggy);
    const onNamed = await openSandbox(sandboxSpecForTask(task(), { ...defaultSandboxOptions(), baseDir: root }));
    assert.equal(onNamed.baseCommit, buggy);
    await onNamed.close();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warnings.length, 1, 'no further warning');
  } finally {
    process.removeListener('warning', onWarning);
    git(repo, 'checkout', '-q', fixed);
  }
});
