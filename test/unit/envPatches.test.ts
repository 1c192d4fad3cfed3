import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { applyLineEdits, editsToDiff } from '../../server/src/env/editsToDiff.js';
import { guardDiff, guardEdits } from '../../server/src/env/guard.js';
import type { Edit } from '../../server/src/protocol/actions.js';

const settings = { maxEdits: 3, maxLinesPerEdit: 5, maxCandidates: 10, requireFocusWindows: true };
const windows = [{ path: 'app/calc.py', start: 4, end: 8 }];
const edit = (over: Partial<Edit> = {}): Edit => ({ path: 'app/calc.py', start: 5, end: 5, new_text: 'x\n', ...over });

const guardCases: Array<{ name: string; edits: Edit[]; code: string | undefined }> = [
  { name: 'an edit inside the focus window passes', edits: [edit()], code: undefined },
  { name: 'an absolute path is refused', edits: [edit({ path: '/etc/passwd' })], code: 'path-outside-repo' },
  { name: 'a path climbing out of the repository is refused', edits: [edit({ path: '../x.py' })], code: 'path-outside-repo' },
  { name: 'a path into .git is refused', edits: [edit({ path: '.git/config' })], code: 'path-outside-repo' },
  { name: 'a range that ends before it starts is refused', edits: [edit({ start: 6, end: 5 })], code: 'range-invalid' },
  { name: 'an edit replacing too many lines is refused', edits: [edit({ start: 1, end: 20 })], code: 'edit-too-large' },
  { name: 'an edit outside every focus window is refused', edits: [edit({ start: 10, end: 10 })], code: 'outside-focus' },
  { name: 'an edit in another file is outside the windows', edits: [edit({ path: 'app/other.py' })], code: 'outside-focus' },
  {
    name: 'too many edits are refused',
    edits: [edit(), edit({ start: 6, end: 6 }), edit({ start: 7, end: 7 }), edit({ start: 8, end: 8 })],
    code: 'too-many-edits',
  },
];

for (const c of guardCases) {
  test(`guard: ${c.name}`, () => assert.equal(guardEdits(c.edits, windows, settings)?.code, c.code));
}

test('guard: without focus windows any in-repository range passes', () => {
  assert.equal(guardEdits([edit({ start: 40, end: 41 })], [], settings), undefined);
});

test('guard: a diff touching a path outside the repository is refused before git sees it', () => {
  const diff = 'diff --git a/../evil b/../evil\n--- a/../evil\n+++ b/../evil\n@@ -1 +1 @@\n-a\n+b\n';
  assert.equal(guardDiff(diff, [], settings)?.code, 'path-outside-repo');
});

test('guard: a diff hunk outside the focus windows is refused', () => {
  const diff = 'diff --git a/app/calc.py b/app/calc.py\n--- a/app/calc.py\n+++ b/app/calc.py\n@@ -30,3 +30,3 @@\n a\n-b\n+c\n d\n';
  assert.equal(guardDiff(diff, windows, settings)?.code, 'outside-focus');
});

const source = 'def add(a, b):\n\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n';

test('edits apply bottom-up so earlier line numbers stay valid', () => {
  const result = applyLineEdits('m.py', source, [
    { path: 'm.py', start: 3, end: 3, new_text: '    total = a + b\n    return total\n' },
    { path: 'm.py', start: 7, end: 7, new_text: '    return b * a' },
  ]);
  assert.ok(result.ok);
  assert.equal(result.text, 'def add(a, b):\n\n    total = a + b\n    return total\n\n\ndef mul(a, b):\n    return b * a\n');
});

test('overlapping edits and ranges past the end are refused with the edit named', () => {
  const overlap = applyLineEdits('m.py', source, [edit({ path: 'm.py', start: 2, end: 3 }), edit({ path: 'm.py', start: 3, end: 4 })]);
  assert.equal(overlap.ok ? undefined : overlap.error.code, 'overlapping-edits');
  const past = applyLineEdits('m.py', source, [edit({ path: 'm.py', start: 20, end: 21 })]);
  assert.equal(past.ok ? undefined : past.error.code, 'range-invalid');
});

test('the diff from edits applies with git apply, blank context lines included (defect L.4 of the original)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-edits-'));
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' }).toString();
    git('init', '-q');
    writeFileSync(join(dir, 'm.py'), source);
    const noFinalNewline = 'x = 1\ny = 2';
    writeFileSync(join(dir, 'n.py'), noFinalNewline);
    const files: Record<string, string> = { 'm.py': source, 'n.py': noFinalNewline };
    const result = await editsToDiff(
      [
        { path: 'm.py', start: 3, end: 3, new_text: '    return a + b\n' },
        { path: 'n.py', start: 2, end: 2, new_text: 'y = 3' },
      ],
      async (p) => files[p],
    );
    assert.ok(result.ok, JSON.stringify(result));
    writeFileSync(join(dir, 'fix.diff'), result.diff);
    git('apply', '--check', 'fix.diff');
    git('apply', 'fix.diff');
    assert.equal(readFileSync(join(dir, 'm.py'), 'utf8'), source.replace('a - b', 'a + b'));
    assert.equal(readFileSync(join(dir, 'n.py'), 'utf8'), 'x = 1\ny = 3\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('edits to a missing file or that change nothing are errors, not empty diffs', async () => {
  const missing = await editsToDiff([edit({ path: 'nope.py' })], async () => undefined);
  assert.equal(missing.ok ? undefined : missing.error.code, 'path-missing');
  const same = await editsToDiff([{ path: 'm.py', start: 1, end: 1, new_text: 'def add(a, b):\n' }], async () => source);
  assert.equal(same.ok ? undefined : same.error.code, 'empty-patch');
});
