/**
 * Every reader of unified diffs reads a path as git wrote it the same way (protocol/unifiedDiff.ts):
 * the guard that lets a patch through, the applier that rebuilds its files, the SWE-bench evaluation
 * script's checkouts, the viewer's patch pane, and git itself. The diff below is what `git diff`
 * printed for a path with spaces (git ends its header with a tab), a non-ASCII path (quoted, in octal
 * escapes), a path with a tab and quotes, an added and a deleted file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { diffAddedPaths, diffModifiedPaths, diffPaths } from '../../server/src/datasets/swebenchSpecs.js';
import { guardDiff } from '../../server/src/env/guard.js';
import { parseUnifiedDiff } from '../../server/src/protocol/unifiedDiff.js';
import { patchChanges, patchPaths } from '../../server/src/sandbox/patchPaths.js';
import { applyHunks } from '../../server/src/util/unifiedDiff.js';
import { parseUnifiedDiff as viewerModel } from '../../webview/src/episode/patchModel.js';

const gitDiff = [
  'diff --git "a/app/n\\303\\253w file.py" "b/app/n\\303\\253w file.py"',
  'new file mode 100644',
  'index 0000000..3e75765',
  '--- /dev/null',
  '+++ "b/app/n\\303\\253w file.py"\t',
  '@@ -0,0 +1 @@',
  '+new',
  'diff --git "a/app/sp\\303\\244ce.py" "b/app/sp\\303\\244ce.py"',
  'index b77b4eb..7061c57 100644',
  '--- "a/app/sp\\303\\244ce.py"',
  '+++ "b/app/sp\\303\\244ce.py"',
  '@@ -1,2 +1,2 @@',
  ' x',
  '-y',
  '+Y',
  'diff --git "a/app/tab\\tand \\"quotes\\".py" "b/app/tab\\tand \\"quotes\\".py"',
  'index bca70f3..73c52c3 100644',
  '--- "a/app/tab\\tand \\"quotes\\".py"\t',
  '+++ "b/app/tab\\tand \\"quotes\\".py"\t',
  '@@ -1 +1 @@',
  '-q',
  '+Q',
  'diff --git a/app/with space.py b/app/with space.py',
  'index de98044..7be73ce 100644',
  '--- a/app/with space.py\t',
  '+++ b/app/with space.py\t',
  '@@ -1,3 +1,3 @@',
  ' a',
  '-b',
  '+B',
  ' c',
  'diff --git a/old.py b/old.py',
  'deleted file mode 100644',
  'index 286c5f5..0000000',
  '--- a/old.py',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-gone',
  '',
].join('\n');

const added = 'app/nëw file.py';
const quoted = 'app/tab\tand "quotes".py';
const everyPath = [added, 'app/späce.py', quoted, 'app/with space.py', 'old.py'];

test('the applier reads git-quoted, spaced and /dev/null headers as the files git meant', () => {
  const files = parseUnifiedDiff(gitDiff);
  assert.deepEqual(
    files.map((f) => [f.oldPath, f.newPath, f.status]),
    [
      [null, added, 'added'],
      ['app/späce.py', 'app/späce.py', 'modified'],
      [quoted, quoted, 'modified'],
      ['app/with space.py', 'app/with space.py', 'modified'],
      ['old.py', null, 'deleted'],
    ],
  );
  const befores = ['', 'x\ny\n', 'q\n', 'a\nb\nc\n', 'gone\n'];
  assert.deepEqual(
    files.map((f, i) => applyHunks(befores[i] ?? '', f.hunks)),
    ['new\n', 'x\nY\n', 'Q\n', 'a\nB\nc\n', ''].map((text) => ({ ok: true, text })),
  );
});

test('the guard, the SWE-bench script, the viewer and git name the same files as the applier', () => {
  assert.deepEqual(patchPaths(gitDiff), { paths: everyPath, refused: undefined });
  assert.deepEqual(
    patchChanges(gitDiff).map((c) => `${c.kind} ${c.path}`),
    [`add ${added}`, 'modify app/späce.py', `modify ${quoted}`, 'modify app/with space.py', 'delete old.py'],
  );
  assert.deepEqual(diffPaths(gitDiff), everyPath);
  assert.deepEqual(diffModifiedPaths(gitDiff), everyPath.slice(1));
  assert.deepEqual(diffAddedPaths(gitDiff), [added]);
  const viewer = viewerModel(gitDiff);
  assert.ok(viewer.ok, 'the viewer draws the diff');
  assert.deepEqual(
    viewer.files.map((f) => [f.path, f.status]),
    [
      [added, 'added'],
      ['app/späce.py', 'modified'],
      [quoted, 'modified'],
      ['app/with space.py', 'modified'],
      ['old.py', 'deleted'],
    ],
  );
  const numstat = execFileSync('git', ['apply', '--numstat', '-z', '-'], { input: gitDiff, encoding: 'utf8' });
  assert.deepEqual(
    numstat
      .split('\0')
      .filter((s) => s !== '')
      .map((s) => s.split('\t').slice(2).join('\t')),
    everyPath,
  );
});

test('the guard keeps each hunk on the path the applier reads, so focus windows on those files let it through', () => {
  const settings = { maxEdits: 3, maxLinesPerEdit: 5, maxCandidates: 10, requireFocusWindows: true, protectedPaths: 'allow' as const };
  const windows = everyPath.map((path) => ({ path, start: 1, end: 3 }));
  assert.equal(guardDiff(gitDiff, windows, settings), undefined);
  const elsewhere = everyPath.map((path) => ({ path: `other/${path}`, start: 1, end: 3 }));
  assert.equal(guardDiff(gitDiff, elsewhere, settings)?.code, 'outside-focus');
});

test('the guard still refuses a quoted path that leaves the repository or is absolute', () => {
  const settings = { maxEdits: 3, maxLinesPerEdit: 5, maxCandidates: 10, requireFocusWindows: false };
  const climbing = 'diff --git "a/\\056\\056/x.py" "b/\\056\\056/x.py"\n--- "a/\\056\\056/x.py"\n+++ "b/\\056\\056/x.py"\n@@ -1 +1 @@\n-a\n+b\n';
  assert.match(guardDiff(climbing, [], settings)?.message ?? '', /^\.\.\/x\.py leaves the repository/);
  const absolute = '--- "/etc/p\\303\\244sswd"\n+++ "/etc/p\\303\\244sswd"\t\n@@ -1 +1 @@\n-a\n+b\n';
  assert.match(guardDiff(absolute, [], settings)?.message ?? '', /^\/etc\/pässwd is an absolute path/);
  const renamedOut = 'diff --git "a/ok.py" "b/ok.py"\nsimilarity index 100%\nrename from ok.py\nrename to "\\056./ok.py"\n';
  assert.equal(guardDiff(renamedOut, [], settings)?.code, 'path-outside-repo');
});
