/**
 * Where a unified diff changes its files, on the side it was made against: each removed line, and
 * for code only added, the point after the line it follows with the added code's indentation (which
 * tells a method appended after another from lines added to that method's body). A gold patch and
 * an episode's repository diff are both made against the base commit, so these lines are the base
 * commit's, the lines of the graph the episode explored. The hunk's header context (git's nearest
 * definition line above it) is kept as the weakest evidence of where a hunk is.
 */
import { parseUnifiedDiff } from '../protocol/unifiedDiff.js';

export interface ChangedPlace {
  /** 1-based line of the file before the change. */
  readonly line: number;
  /** Set for a point where code is only inserted (after `line`): that code's indentation. */
  readonly insertIndent?: number;
}

export interface FileChanges {
  /** The path before the change. */
  readonly path: string;
  readonly places: readonly ChangedPlace[];
  /** Each hunk's old-side lines (context and removed), to check a text is the one the diff was made against. */
  readonly hunks: ReadonlyArray<{ readonly oldStart: number; readonly oldImage: readonly string[]; readonly context: string }>;
}

export interface DiffPlaces {
  readonly files: readonly FileChanges[];
  /** Files the diff creates (no side before it). */
  readonly created: readonly string[];
}

function indentOf(text: string): number {
  return text.length - text.trimStart().length;
}

export function diffPlaces(diff: string): DiffPlaces {
  const files: FileChanges[] = [];
  const created: string[] = [];
  for (const file of parseUnifiedDiff(diff)) {
    if (file.oldPath === null) {
      if (file.newPath !== null) created.push(file.newPath);
      continue;
    }
    const places: ChangedPlace[] = [];
    const hunks: FileChanges['hunks'][number][] = [];
    for (const hunk of file.hunks) {
      const oldImage: string[] = [];
      let oldLine = hunk.oldStart;
      let pendingInsert: string | undefined;
      let removedInBlock = false;
      const flush = (): void => {
        // Lines only added: the point after the last old line before them.
        if (pendingInsert !== undefined && !removedInBlock) places.push({ line: Math.max(1, oldLine - 1), insertIndent: indentOf(pendingInsert) });
        pendingInsert = undefined;
        removedInBlock = false;
      };
      for (const line of hunk.lines) {
        if (line.mark === ' ') {
          flush();
          oldImage.push(line.text);
          oldLine++;
        } else if (line.mark === '-') {
          places.push({ line: oldLine });
          removedInBlock = true;
          oldImage.push(line.text);
          oldLine++;
        } else if (pendingInsert === undefined || pendingInsert.trim() === '') pendingInsert = line.text;
      }
      flush();
      hunks.push({ oldStart: hunk.oldStart, oldImage, context: hunk.context });
    }
    files.push({ path: file.oldPath, places, hunks });
  }
  return { files, created };
}

/** Whether `text` is the file `changes` was made against: every hunk's old lines where the diff says. */
export function diffMatches(text: string, changes: FileChanges): boolean {
  const lines = text.split(/\r?\n/);
  return changes.hunks.every((h) => {
    const from = h.oldImage.length === 0 ? h.oldStart : h.oldStart - 1;
    return h.oldImage.every((l, i) => lines[from + i] === l);
  });
}
