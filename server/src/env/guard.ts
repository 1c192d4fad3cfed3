/**
 * Guard rules a repair candidate must pass before it touches the repository (docs/original-system.md#d5-guard-rules, kept where
 * they protect and relaxed where they only got in the way): paths stay inside the repository,
 * ranges are sane, edits stay inside the windows of the plan's focus nodes, and sizes are bounded.
 */
import type { Edit } from '../protocol/actions.js';
import type { StepError } from '../protocol/observation.js';
import type { GraderFinding } from '../protocol/graderSurface.js';
import { parseUnifiedDiff } from '../protocol/unifiedDiff.js';
import { patchChanges, patchPaths, unsafePathReason, type PatchChange } from '../sandbox/index.js';
import { graderFindings, shippedFacts, type GraderFacts, type GraderTaskSurface } from '../testing/index.js';
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

const noTaskSurface: GraderTaskSurface = { testFiles: [], testPatchFiles: [], commandFiles: [] };

/** The rule's facts when the environment gave none: the shipped standard-library list, said so in the reason. */
function factsOf(settings: GuardSettings): GraderFacts {
  return settings.facts ?? shippedFacts('the environment was not asked');
}

/**
 * The grader-facing changes of a patch (testing/graderSurface.ts decides them): the task's own tests,
 * the runner's configuration, start-up hooks, package metadata and modules that shadow imported ones.
 */
export function protectedFindings(changes: readonly PatchChange[], settings: GuardSettings): GraderFinding[] {
  return graderFindings(changes, settings.surface ?? noTaskSurface, factsOf(settings));
}

/** Why one changed path is one the grader depends on, or undefined (a line edit's path: a change of a file that may be new). */
export function protectedReason(path: string, settings: GuardSettings): string | undefined {
  return protectedFindings([{ kind: 'modify', path, link: false }], settings)[0]?.reason;
}

/** The guard's answer to a candidate whose changes include grader-facing ones, when it refuses them. */
function protectedRefusal(changes: readonly PatchChange[], settings: GuardSettings, where: string): StepError | undefined {
  // `penalise` lets the edit through; the submit's reward pays for it (plannerEnv.ts).
  if (settings.protectedPaths === 'allow' || settings.protectedPaths === 'penalise') return undefined;
  const finding = protectedFindings(changes, settings)[0];
  if (finding === undefined) return undefined;
  return {
    code: 'protected-path',
    message: `${where}${finding.path} is protected (${finding.rule}): ${finding.reason}, so changing it could change the grade rather than the code. Fix the code under test instead (env.protected_paths: allow lets such edits through).`,
  };
}

/** Checks line-range edits; undefined when they pass. */
export function guardEdits(edits: readonly Edit[], windows: readonly Window[], settings: GuardSettings): StepError | undefined {
  if (edits.length > settings.maxEdits) return { code: 'too-many-edits', message: `${edits.length} edits in one patch; the limit is ${settings.maxEdits}.` };
  for (const [i, edit] of edits.entries()) {
    const unsafe = unsafePathReason(edit.path);
    if (unsafe !== undefined) return { code: 'path-outside-repo', message: `edit ${i}: ${edit.path}: ${unsafe}` };
    // A line edit may create its file, so a new module's name is judged against the repository's base listing.
    const guarded = protectedRefusal([{ kind: 'modify', path: edit.path, link: false }], settings, `edit ${i}: `);
    if (guarded !== undefined) return guarded;
    if (edit.end < edit.start) return { code: 'range-invalid', message: `edit ${i}: range ${edit.start}-${edit.end} ends before it starts.` };
    const lines = edit.end - edit.start + 1;
    if (lines > settings.maxLinesPerEdit)
      return { code: 'edit-too-large', message: `edit ${i} replaces ${lines} lines; the limit is ${settings.maxLinesPerEdit}.` };
    if (settings.requireFocusWindows && windows.length > 0 && !inside(edit, windows)) {
      return {
        code: 'outside-focus',
        message: `edit ${i} (${edit.path}:${edit.start}-${edit.end}) is outside every focus window; name the node in focus_ids.`,
      };
    }
  }
  return undefined;
}

/** Hunk ranges of a unified diff in the old file (the new one, for an added file), per path, read as the applier reads them. */
function hunkRanges(diff: string): Array<{ path: string; start: number; end: number }> {
  return parseUnifiedDiff(diff).flatMap((file) =>
    file.hunks.map((hunk) => ({
      path: file.oldPath ?? file.newPath ?? '',
      start: Math.max(1, hunk.oldStart),
      end: Math.max(hunk.oldStart, hunk.oldStart + hunk.oldLines - 1),
    })),
  );
}

/** Checks a ready unified diff: safe paths, and hunks inside the focus windows when required. */
export function guardDiff(diff: string, windows: readonly Window[], settings: GuardSettings): StepError | undefined {
  const paths = patchPaths(diff);
  if (paths.refused !== undefined) return { code: 'path-outside-repo', message: paths.refused };
  if (paths.paths.length === 0) return { code: 'invalid-diff', message: 'the diff names no file; send a unified diff with ---/+++ headers.' };
  const guarded = protectedRefusal(patchChanges(diff), settings, 'the diff changes ');
  if (guarded !== undefined) return guarded;
  if (settings.requireFocusWindows && windows.length > 0) {
    // Context lines widen a hunk by up to three lines on each side, so windows are widened alike.
    const wide = windows.map((w) => ({ ...w, start: Math.max(1, w.start - 3), end: w.end + 3 }));
    const outside = hunkRanges(diff).find((h) => !inside(h, wide));
    if (outside !== undefined)
      return { code: 'outside-focus', message: `a hunk at ${outside.path}:${outside.start}-${outside.end} is outside every focus window.` };
  }
  return undefined;
}
