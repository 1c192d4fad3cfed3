/**
 * Guard rules a repair candidate must pass before it touches the repository (docs/original-system.md#d5-guard-rules, kept where
 * they protect and relaxed where they only got in the way): paths stay inside the repository,
 * ranges are sane, edits stay inside the windows of the plan's focus nodes, and sizes are bounded.
 */
import type { Edit } from '../protocol/actions.js';
import type { StepError } from '../protocol/observation.js';
import { patchPaths, unsafePathReason } from '../sandbox/index.js';
import type { GuardSettings } from './types.js';

/** A region edits may touch: lines `start..end` of `path`. */
export interface Window {
  path: string;
  start: number;
  end: number;
}

function inside(edit: { path: string; start: number; end: number }, windows: readonly Window[]): boolean {
  return windows.some((w) => w.path === edit.path && w.start <= edit.start && edit.end <= w.end);
}

/** Files whose name alone says the test run reads them: a patch that changes one can change the grade. */
const graderFiles = new Set(['conftest.py', 'sitecustomize.py', 'usercustomize.py', 'pytest.ini', '.pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml', 'noxfile.py']);

/**
 * Why a path is one the grader depends on, or undefined: a `conftest.py` (which can skip tests or
 * print fake results), the test settings (pytest, tox, setup.cfg, pyproject.toml), interpreter
 * start-up hooks (`sitecustomize.py`, `.pth` files), and the task's own test files.
 */
export function protectedReason(path: string, settings: GuardSettings): string | undefined {
  const clean = path.replace(/^\.\//, '');
  const name = clean.split('/').pop() ?? clean;
  if (settings.taskTestFiles?.includes(clean)) return 'it holds the task\'s own tests';
  if (name.endsWith('.pth')) return 'Python runs .pth files at start-up, before any test';
  if (name === 'sitecustomize.py' || name === 'usercustomize.py') return 'Python runs it at start-up, before any test';
  if (graderFiles.has(name)) return name === 'conftest.py' ? 'pytest loads it into every test run it sits above' : 'the test run reads its settings from it';
  return undefined;
}

/** The guard's answer to a candidate that changes a file the grader depends on, when it refuses them. */
function protectedRefusal(path: string, settings: GuardSettings, where: string): StepError | undefined {
  // `penalise` lets the edit through; the submit's reward pays for it (plannerEnv.ts).
  if (settings.protectedPaths === 'allow' || settings.protectedPaths === 'penalise') return undefined;
  const reason = protectedReason(path, settings);
  if (reason === undefined) return undefined;
  return { code: 'protected-path', message: `${where}${path} is protected: ${reason}, so changing it could change the grade rather than the code. Fix the code under test instead (env.protected_paths: allow lets such edits through).` };
}

/** Checks line-range edits; undefined when they pass. */
export function guardEdits(edits: readonly Edit[], windows: readonly Window[], settings: GuardSettings): StepError | undefined {
  if (edits.length > settings.maxEdits) return { code: 'too-many-edits', message: `${edits.length} edits in one patch; the limit is ${settings.maxEdits}.` };
  for (const [i, edit] of edits.entries()) {
    const unsafe = unsafePathReason(edit.path);
    if (unsafe !== undefined) return { code: 'path-outside-repo', message: `edit ${i}: ${edit.path}: ${unsafe}` };
    const guarded = protectedRefusal(edit.path, settings, `edit ${i}: `);
    if (guarded !== undefined) return guarded;
    if (edit.end < edit.start) return { code: 'range-invalid', message: `edit ${i}: range ${edit.start}-${edit.end} ends before it starts.` };
    const lines = edit.end - edit.start + 1;
    if (lines > settings.maxLinesPerEdit) return { code: 'edit-too-large', message: `edit ${i} replaces ${lines} lines; the limit is ${settings.maxLinesPerEdit}.` };
    if (settings.requireFocusWindows && windows.length > 0 && !inside(edit, windows)) {
      return { code: 'outside-focus', message: `edit ${i} (${edit.path}:${edit.start}-${edit.end}) is outside every focus window; name the node in focus_ids.` };
    }
  }
  return undefined;
}

/** Hunk ranges of a unified diff in the old file, per path. */
function hunkRanges(diff: string): Array<{ path: string; start: number; end: number }> {
  const out: Array<{ path: string; start: number; end: number }> = [];
  let path = '';
  for (const line of diff.split('\n')) {
    const file = /^--- (?:a\/)?(.+)$/.exec(line);
    if (file?.[1] !== undefined) path = file[1].trim();
    const hunk = /^@@ -(\d+)(?:,(\d+))? /.exec(line);
    if (hunk?.[1] !== undefined) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      out.push({ path, start: Math.max(1, start), end: Math.max(start, start + count - 1) });
    }
  }
  return out;
}

/** Checks a ready unified diff: safe paths, and hunks inside the focus windows when required. */
export function guardDiff(diff: string, windows: readonly Window[], settings: GuardSettings): StepError | undefined {
  const paths = patchPaths(diff);
  if (paths.refused !== undefined) return { code: 'path-outside-repo', message: paths.refused };
  if (paths.paths.length === 0) return { code: 'invalid-diff', message: 'the diff names no file; send a unified diff with ---/+++ headers.' };
  for (const path of paths.paths) {
    const guarded = protectedRefusal(path, settings, 'the diff changes ');
    if (guarded !== undefined) return guarded;
  }
  if (settings.requireFocusWindows && windows.length > 0) {
    // Context lines widen a hunk by up to three lines on each side, so windows are widened alike.
    const wide = windows.map((w) => ({ ...w, start: Math.max(1, w.start - 3), end: w.end + 3 }));
    const outside = hunkRanges(diff).find((h) => !inside(h, wide));
    if (outside !== undefined) return { code: 'outside-focus', message: `a hunk at ${outside.path}:${outside.start}-${outside.end} is outside every focus window.` };
  }
  return undefined;
}
