/**
 * Unified diffs (as git writes them) file by file, and applying one file's hunks to the text it
 * was made against. The trajectory viewer rebuilds the whole file before and after a patch from
 * the recorded pre-image this way, long after the sandbox that made the patch is gone. Applying is
 * exact: every context and removed line must match, or it fails and says where.
 */

import { diffHeaderPath, unquoteGitPath } from './gitPath.js';

export type FileChangeStatus = 'modified' | 'added' | 'deleted' | 'renamed';

export interface DiffLine {
  readonly mark: ' ' | '-' | '+';
  readonly text: string;
  /** The line is followed by `\ No newline at end of file`. */
  readonly noNewline: boolean;
}

export interface Hunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  /** What git printed after the second `@@`: the nearest definition line above the hunk (git's funcname context), or ''. */
  readonly context: string;
  readonly lines: DiffLine[];
}

export interface FileDiff {
  /** Null for an added file. */
  readonly oldPath: string | null;
  /** Null for a deleted file. */
  readonly newPath: string | null;
  readonly status: FileChangeStatus;
  readonly hunks: Hunk[];
  /** A binary change (`GIT binary patch` or `Binary files … differ`): the text cannot be rebuilt. */
  readonly binary: boolean;
}

interface Building {
  oldPath: string | null;
  newPath: string | null;
  status: FileChangeStatus;
  hunks: Hunk[];
  binary: boolean;
}

/** A header's path without its `a/` or `b/` prefix; null for `/dev/null`. */
function headerPath(rest: string): string | null {
  const path = diffHeaderPath(rest);
  if (path === '/dev/null') return null;
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}

/** The files of a unified diff, in order. */
export function parseUnifiedDiff(diff: string): FileDiff[] {
  const files: Building[] = [];
  let current: Building | undefined;
  let hunk: { header: Omit<Hunk, 'lines'>; lines: DiffLine[]; oldLeft: number; newLeft: number } | undefined;
  const start = (): Building => {
    current = { oldPath: null, newPath: null, status: 'modified', hunks: [], binary: false };
    files.push(current);
    return current;
  };
  for (const line of diff.split('\n')) {
    if (hunk !== undefined && (hunk.oldLeft > 0 || hunk.newLeft > 0 || line.startsWith('\\'))) {
      if (line.startsWith('\\')) {
        const last = hunk.lines.pop();
        if (last !== undefined) hunk.lines.push({ ...last, noNewline: true });
        continue;
      }
      const mark = line === '' ? ' ' : line[0];
      if (mark === ' ' || mark === '-' || mark === '+') {
        hunk.lines.push({ mark, text: line.slice(1), noNewline: false });
        if (mark !== '+') hunk.oldLeft--;
        if (mark !== '-') hunk.newLeft--;
        continue;
      }
    }
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/.exec(line);
    if (header !== null) {
      const file = current ?? start();
      const h = { oldStart: Number(header[1]), oldLines: header[2] === undefined ? 1 : Number(header[2]), newStart: Number(header[3]), newLines: header[4] === undefined ? 1 : Number(header[4]), context: header[5] ?? '' };
      hunk = { header: h, lines: [], oldLeft: h.oldLines, newLeft: h.newLines };
      file.hunks.push({ ...h, lines: hunk.lines });
      continue;
    }
    if (line.startsWith('diff --git ')) {
      hunk = undefined;
      const file = start();
      const m = /^diff --git ("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(line);
      if (m !== null) {
        file.oldPath = headerPath(m[1] ?? '');
        file.newPath = headerPath(m[2] ?? '');
      }
      continue;
    }
    if (line.startsWith('--- ')) {
      hunk = undefined;
      // A plain unified diff (no `diff --git` line) starts its file here.
      const file = current === undefined || current.hunks.length > 0 ? start() : current;
      file.oldPath = headerPath(line.slice(4));
      if (file.oldPath === null) file.status = 'added';
      continue;
    }
    if (line.startsWith('+++ ') && current !== undefined) {
      current.newPath = headerPath(line.slice(4));
      if (current.newPath === null) current.status = 'deleted';
      continue;
    }
    if (current === undefined) continue;
    if (line.startsWith('new file mode')) {
      current.status = 'added';
      current.oldPath = null;
    } else if (line.startsWith('deleted file mode')) {
      current.status = 'deleted';
      current.newPath = null;
    } else if (line.startsWith('rename from ')) {
      current.status = 'renamed';
      current.oldPath = unquoteGitPath(line.slice('rename from '.length));
    } else if (line.startsWith('rename to ')) {
      current.status = 'renamed';
      current.newPath = unquoteGitPath(line.slice('rename to '.length));
    } else if (line.startsWith('GIT binary patch') || /^Binary files .* differ$/.test(line)) current.binary = true;
  }
  return files.map((f) => ({ ...f }));
}

export type ApplyResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

/** Applies one file's hunks to `before` (the empty string for an added file). */
export function applyHunks(before: string, hunks: readonly Hunk[]): ApplyResult {
  const endsWithNewline = before.endsWith('\n');
  const source = before === '' ? [] : (endsWithNewline ? before.slice(0, -1) : before).split('\n');
  const out: string[] = [];
  let at = 0;
  let lastHasNewline = endsWithNewline || before === '';
  for (const hunk of hunks) {
    // A hunk that removes nothing and adds at the top says `-0,0`.
    const from = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    if (from < at) return { ok: false, reason: `hunk at line ${hunk.oldStart} overlaps the hunk before it` };
    if (from > source.length) return { ok: false, reason: `hunk at line ${hunk.oldStart} starts after the end of the file (${source.length} lines)` };
    out.push(...source.slice(at, from));
    at = from;
    for (const line of hunk.lines) {
      if (line.mark === '+') {
        out.push(line.text);
        if (line.noNewline) lastHasNewline = false;
        continue;
      }
      const actual = source[at];
      if (actual !== line.text) return { ok: false, reason: `line ${at + 1} is ${JSON.stringify(actual ?? '(end of file)')}, but the patch expects ${JSON.stringify(line.text)}` };
      at++;
      if (line.mark === ' ') {
        out.push(actual);
        if (line.noNewline) lastHasNewline = false;
      }
    }
  }
  if (at < source.length) {
    out.push(...source.slice(at));
    lastHasNewline = endsWithNewline;
  } else if (hunks.length > 0) {
    // The last hunk reached the end of the file: its markers decide the final newline.
    const lastLine = hunks.at(-1)?.lines.filter((l) => l.mark !== '-').at(-1);
    lastHasNewline = lastLine === undefined ? endsWithNewline : !lastLine.noNewline;
  }
  if (out.length === 0) return { ok: true, text: '' };
  return { ok: true, text: out.join('\n') + (lastHasNewline ? '\n' : '') };
}
