/**
 * What a gold patch edits, read from its unified diff: the files on its source side and, per hunk,
 * the pre-image (context and removed lines, as the file read before the fix) and the post-image
 * (context and added lines), each with the places the fix changes. A file the patch creates has no
 * source side, so nothing could have localised it; it is listed apart.
 */
import { parsePatch } from 'diff';

/**
 * A place a hunk changes, as an index into one of its images: a `line` the fix touches (a removed
 * line of the pre-image, an added line of the post-image that replaces removed ones), or a point
 * `between` two lines where code is inserted or was removed (`after` is -1 at the hunk's start,
 * `before` is -1 at its end). `indent` is that code's indentation, which tells a new method
 * appended after the last line of another from code added to that method's body.
 */
export type ChangeTarget =
  { readonly kind: 'line'; readonly index: number } | { readonly kind: 'between'; readonly after: number; readonly before: number; readonly indent: number };

/** One side of a hunk: its lines as the file reads on that side, and the places the fix changes there. */
export interface HunkImage {
  /** 1-based line of the image's first line in its file. */
  readonly start: number;
  readonly lines: readonly string[];
  readonly targets: readonly ChangeTarget[];
}

export interface GoldHunk {
  /** Context and removed lines: the file before the fix. */
  readonly pre: HunkImage;
  /**
   * Context and added lines: the file after the fix, which is what a release made after the
   * instance's base commit usually holds.
   */
  readonly post: HunkImage;
}

export interface GoldFilePatch {
  /** The repository-relative path before the fix. */
  readonly path: string;
  readonly hunks: readonly GoldHunk[];
}

export interface GoldPatch {
  readonly files: readonly GoldFilePatch[];
  /** Files the patch creates. */
  readonly created: readonly string[];
}

/** `a/django/db/x.py` → `django/db/x.py`; undefined for `/dev/null`. */
export function diffPath(name: string | undefined): string | undefined {
  if (name === undefined || name === '/dev/null' || name === '') return undefined;
  return name.replace(/^[ab]\//, '');
}

function indentOf(lines: readonly string[]): number {
  const first = lines.find((l) => l.trim() !== '') ?? '';
  return first.length - first.trimStart().length;
}

/** A run of removed and added lines between context lines. */
interface Block {
  readonly removed: string[];
  readonly added: string[];
  /** Index of each side's first line of the block in its image. */
  readonly preAt: number;
  readonly postAt: number;
}

/** The point after image line `after` and before line `next` (when the image has one). */
function between(after: number, next: number, length: number, indent: number): ChangeTarget {
  return { kind: 'between', after, before: next < length ? next : -1, indent };
}

function targetsOf(blocks: readonly Block[], preLength: number, postLength: number): { pre: ChangeTarget[]; post: ChangeTarget[] } {
  const pre: ChangeTarget[] = [];
  const post: ChangeTarget[] = [];
  for (const block of blocks) {
    if (block.removed.length > 0) block.removed.forEach((_, i) => pre.push({ kind: 'line', index: block.preAt + i }));
    else pre.push(between(block.preAt - 1, block.preAt, preLength, indentOf(block.added)));
    // On the fixed side, added lines that replace removed ones are where the change is; a pure
    // insertion is placed by its neighbours as on the other side, so a new method counts for its
    // class, and a pure removal leaves a point where the removed code was.
    if (block.removed.length > 0 && block.added.length > 0) block.added.forEach((_, i) => post.push({ kind: 'line', index: block.postAt + i }));
    else {
      const code = block.added.length > 0 ? block.added : block.removed;
      post.push(between(block.postAt - 1, block.postAt + block.added.length, postLength, indentOf(code)));
    }
  }
  return { pre, post };
}

/** Splits a hunk's lines into its two images and the places the fix changes in each. */
export function hunkOf(oldStart: number, newStart: number, lines: readonly string[]): GoldHunk {
  const preLines: string[] = [];
  const postLines: string[] = [];
  const blocks: Block[] = [];
  let block: Block | undefined;
  for (const line of lines) {
    const mark = line[0];
    const text = line.slice(1);
    if (mark === '-' || mark === '+') {
      if (block === undefined) {
        block = { removed: [], added: [], preAt: preLines.length, postAt: postLines.length };
        blocks.push(block);
      }
      if (mark === '-') {
        block.removed.push(text);
        preLines.push(text);
      } else {
        block.added.push(text);
        postLines.push(text);
      }
    } else if (mark === ' ' || line === '') {
      block = undefined;
      preLines.push(text);
      postLines.push(text);
    }
    // `\ No newline at end of file` belongs to neither side.
  }
  const targets = targetsOf(blocks, preLines.length, postLines.length);
  return { pre: { start: oldStart, lines: preLines, targets: targets.pre }, post: { start: newStart, lines: postLines, targets: targets.post } };
}

export function parseGoldPatch(patch: string): GoldPatch {
  const files: GoldFilePatch[] = [];
  const created: string[] = [];
  for (const file of parsePatch(patch)) {
    const path = diffPath(file.oldFileName);
    if (path === undefined) {
      const added = diffPath(file.newFileName);
      if (added !== undefined) created.push(added);
      continue;
    }
    files.push({ path, hunks: file.hunks.map((h) => hunkOf(h.oldStart, h.newStart, h.lines)) });
  }
  return { files, created };
}
