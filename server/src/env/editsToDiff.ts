/**
 * Line-range edits (CGM's format: `{path, start, end, new_text}`, 1-based inclusive) to a unified
 * diff (ARCHITECTURE.md §4.3). Edits to one file are applied bottom-up so the line numbers of the others stay
 * valid; the diff is computed with jsdiff, not assembled by hand, so blank context lines and
 * missing final newlines come out the way `git apply` expects (the original's hand-made diffs did not: defect L.4, docs/original-system.md#l-defects).
 */
import { structuredPatch } from 'diff';
import type { Edit } from '../protocol/actions.js';
import type { StepError } from '../protocol/observation.js';

export type EditsResult = { ok: true; diff: string; files: string[] } | { ok: false; error: StepError };

/** Reads a file of the repository; undefined when it does not exist. */
export type ReadText = (path: string) => Promise<string | undefined>;

function splitLines(text: string): string[] {
  // Each element keeps its own newline, so a file without a final newline stays that way.
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function fail(code: string, message: string): EditsResult {
  return { ok: false, error: { code, message } };
}

/** Applies one file's edits to its text; an error names the edit and what was wrong. */
export function applyLineEdits(path: string, text: string, edits: readonly Edit[]): { ok: true; text: string } | { ok: false; error: StepError } {
  const lines = splitLines(text);
  const ordered = [...edits].sort((a, b) => b.start - a.start);
  for (let i = 0; i < ordered.length; i++) {
    const edit = ordered[i] as Edit;
    const next = ordered[i + 1];
    if (edit.end < edit.start)
      return { ok: false, error: { code: 'range-invalid', message: `${path}: edit ${edit.start}-${edit.end} ends before it starts.` } };
    if (edit.start > lines.length + 1 || edit.end > Math.max(lines.length, edit.start)) {
      return { ok: false, error: { code: 'range-invalid', message: `${path}: edit ${edit.start}-${edit.end} is outside the file's ${lines.length} lines.` } };
    }
    if (next !== undefined && next.end >= edit.start) {
      return { ok: false, error: { code: 'overlapping-edits', message: `${path}: edits ${next.start}-${next.end} and ${edit.start}-${edit.end} overlap.` } };
    }
    const replacement = edit.new_text === '' || edit.new_text.endsWith('\n') ? edit.new_text : `${edit.new_text}\n`;
    const replaced = Math.min(edit.end, lines.length) - edit.start + 1;
    lines.splice(edit.start - 1, Math.max(0, replaced), ...splitLines(replacement));
  }
  return { ok: true, text: lines.join('') };
}

/** A git-style unified diff of one file's change, or '' when nothing changed. */
export function fileDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  const patch = structuredPatch(`a/${path}`, `b/${path}`, before, after, '', '', { context: 3 });
  const out = [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`];
  for (const hunk of patch.hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return `${out.join('\n')}\n`;
}

/** Converts edits (possibly to several files) into one unified diff. */
export async function editsToDiff(edits: readonly Edit[], readText: ReadText): Promise<EditsResult> {
  const byPath = new Map<string, Edit[]>();
  for (const edit of edits) byPath.set(edit.path, [...(byPath.get(edit.path) ?? []), edit]);
  const parts: string[] = [];
  for (const [path, fileEdits] of byPath) {
    const before = await readText(path);
    if (before === undefined) return fail('path-missing', `${path} does not exist in the repository.`);
    const applied = applyLineEdits(path, before, fileEdits);
    if (!applied.ok) return applied;
    parts.push(fileDiff(path, before, applied.text));
  }
  const diff = parts.join('');
  if (diff === '') return fail('empty-patch', 'the edits change nothing.');
  return { ok: true, diff, files: [...byPath.keys()] };
}
