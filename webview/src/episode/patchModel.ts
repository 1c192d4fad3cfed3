/**
 * A patch as the viewer draws it: files, each with its hunks, each line marked as added, removed,
 * context or a note (`\ No newline at end of file`), with its old and new line numbers. A unified
 * diff is read by the server's one diff reader (protocol/unifiedDiff.ts, which the guard and the
 * applier use, so the viewer names the files they do) after its strict check;
 * a candidate of line-range edits (CGM's format) becomes one file per edited path with the new text
 * as added lines, since the edit records no old text (the viewer draws the diff the repair's result
 * recorded for the candidate instead, whenever there is one). Pure, with no DOM, so it is tested in Node.
 */
import { diffProblem, parseUnifiedDiff as readUnifiedDiff, type FileDiff } from '../../../server/src/protocol/unifiedDiff.js';

export type PatchLineKind = 'add' | 'del' | 'context' | 'note';

export interface PatchLine {
  readonly kind: PatchLineKind;
  readonly text: string;
  /** The line's number before the patch; null for an added line or a note. */
  readonly oldLine: number | null;
  /** The line's number after the patch; null for a removed line or a note. */
  readonly newLine: number | null;
}

export interface PatchHunk {
  /** `@@ -3,4 +3,5 @@` as git writes it, or `lines 3–5 replaced` for an edit. */
  readonly header: string;
  readonly lines: readonly PatchLine[];
}

export type PatchFileStatus = 'modified' | 'added' | 'deleted' | 'renamed';

export interface PatchFile {
  /** The path after the patch (before it, for a deleted file), without git's `a/` and `b/`. */
  readonly path: string;
  /** The path before the patch, when the file was renamed. */
  readonly from: string | null;
  readonly status: PatchFileStatus;
  readonly hunks: readonly PatchHunk[];
  readonly added: number;
  readonly removed: number;
  /** The line the file opens at: its first hunk's first changed line after the patch. */
  readonly firstLine: number;
}

export type PatchModel = { readonly ok: true; readonly files: readonly PatchFile[] } | { readonly ok: false; readonly problem: string; readonly text: string };

/** One line-range edit of a candidate (protocol/actions.ts `editSchema`). */
export interface LineEdit {
  readonly path: string;
  readonly start: number;
  readonly end: number;
  readonly new_text: string;
}

/** Parses a unified diff; text that is not one comes back as a problem with the text to show as it is. */
export function parseUnifiedDiff(text: string): PatchModel {
  if (text.trim() === '') return { ok: true, files: [] };
  const problem = diffProblem(text);
  if (problem !== undefined) return { ok: false, problem, text };
  const files = readUnifiedDiff(text)
    .filter((f) => f.hunks.length > 0 || f.oldPath !== null || f.newPath !== null)
    .map(fileOf);
  if (files.length === 0) return { ok: false, problem: 'no file header (--- and +++) or hunk (@@) found', text };
  return { ok: true, files };
}

function fileOf(file: FileDiff): PatchFile {
  const before = file.oldPath;
  const after = file.newPath;
  const status: PatchFileStatus = file.status !== 'modified' ? file.status : before !== null && after !== null && before !== after ? 'renamed' : 'modified';
  const hunks = file.hunks.map((h): PatchHunk => {
    let oldLine = h.oldStart;
    let newLine = h.newStart;
    const lines = h.lines.flatMap((line): PatchLine[] => {
      const drawn: PatchLine =
        line.mark === '+'
          ? { kind: 'add', text: line.text, oldLine: null, newLine: newLine++ }
          : line.mark === '-'
            ? { kind: 'del', text: line.text, oldLine: oldLine++, newLine: null }
            : { kind: 'context', text: line.text, oldLine: oldLine++, newLine: newLine++ };
      return line.noNewline ? [drawn, { kind: 'note', text: '\\ No newline at end of file', oldLine: null, newLine: null }] : [drawn];
    });
    // The header is drawn as the `diff` package drew it, which numbers an empty side from the line after git's.
    return {
      header: `@@ -${h.oldLines === 0 ? h.oldStart + 1 : h.oldStart},${h.oldLines} +${h.newLines === 0 ? h.newStart + 1 : h.newStart},${h.newLines} @@`,
      lines,
    };
  });
  const all = hunks.flatMap((h) => h.lines);
  const firstChange = all.find((l) => l.kind === 'add' || l.kind === 'del');
  return {
    path: status === 'deleted' ? (before ?? '') : (after ?? before ?? ''),
    from: status === 'renamed' ? before : null,
    status,
    hunks,
    added: all.filter((l) => l.kind === 'add').length,
    removed: all.filter((l) => l.kind === 'del').length,
    firstLine: Math.max(
      1,
      firstChange?.newLine ?? firstChange?.oldLine ?? (file.hunks[0] === undefined ? 1 : file.hunks[0].newStart + (file.hunks[0].newLines === 0 ? 1 : 0)),
    ),
  };
}

/**
 * Line-range edits as files and hunks: each edit replaces lines `start..end` with its new text,
 * shown as added lines numbered from `start`. The old lines are not in the edit, so they are named
 * by range in the hunk's header rather than invented.
 */
export function editsModel(edits: readonly LineEdit[]): PatchModel {
  const byPath = new Map<string, LineEdit[]>();
  for (const edit of edits) byPath.set(edit.path, [...(byPath.get(edit.path) ?? []), edit]);
  const files = [...byPath].map(([path, mine]): PatchFile => {
    const sorted = [...mine].sort((a, b) => a.start - b.start);
    const hunks = sorted.map((e): PatchHunk => {
      const text = e.new_text.endsWith('\n') ? e.new_text.slice(0, -1) : e.new_text;
      const lines = e.new_text === '' ? [] : text.split('\n').map((t, i): PatchLine => ({ kind: 'add', text: t, oldLine: null, newLine: e.start + i }));
      const range = e.start === e.end ? `line ${e.start}` : `lines ${e.start}–${e.end}`;
      return {
        header:
          e.new_text === ''
            ? `${range} deleted`
            : `${range} replaced by ${lines.length === 1 ? '1 line' : `${lines.length} lines`} (the old text is not in the edit)`,
        lines,
      };
    });
    return {
      path,
      from: null,
      status: 'modified',
      hunks,
      added: hunks.reduce((n, h) => n + h.lines.length, 0),
      removed: sorted.reduce((n, e) => n + (e.end - e.start + 1), 0),
      firstLine: sorted[0]?.start ?? 1,
    };
  });
  return { ok: true, files };
}

/** `app/calc.py +3 −1`: what a file's patch does, in the words the head of its block shows. */
export function fileSummary(file: PatchFile): string {
  const counts = `+${file.added} −${file.removed}`;
  switch (file.status) {
    case 'added':
      return `new file · ${counts}`;
    case 'deleted':
      return `deleted · ${counts}`;
    case 'renamed':
      return `renamed from ${file.from ?? '?'} · ${counts}`;
    case 'modified':
      return counts;
  }
}
