/**
 * Where a gold hunk sits in a release's version of its file. The release is not the instance's
 * base commit, so the hunk's own line numbers are only a hint. The pre-image is looked for exactly
 * first; then the post-image exactly, because the first release of a series usually comes after
 * the base commit and already holds the fix (on SWE-bench Lite most hunks are found this way); then
 * the pre-image tolerantly, as the longest run of its consecutive lines that the file holds in a row
 * with whitespace trimmed (at least three lines, or the whole pre-image when it is shorter, and not
 * only blank lines). Several matches go to the one nearest the hint.
 */
import type { ChangeTarget, GoldHunk } from './localisationDiff.js';

export interface HunkLocation {
  /** 0-based line of the file that the image's first line stands for (the run's offset when tolerant). */
  readonly offset: number;
  readonly how: 'exact' | 'tolerant';
  /** Pre-image lines matched: all of them when exact, the run's length when tolerant. */
  readonly matched: number;
}

const minimumRun = 3;

/** The file's lines without line terminators, as the pre-image's are. */
export function fileLines(text: string): string[] {
  return text.split(/\r?\n/);
}

function nearest(offsets: readonly number[], hint: number): number | undefined {
  let best: number | undefined;
  for (const o of offsets) if (best === undefined || Math.abs(o - hint) < Math.abs(best - hint)) best = o;
  return best;
}

function exactOffsets(lines: readonly string[], preImage: readonly string[]): number[] {
  const offsets: number[] = [];
  const [first] = preImage;
  for (let j = 0; j + preImage.length <= lines.length; j++) {
    if (lines[j] !== first) continue;
    let i = 1;
    while (i < preImage.length && lines[j + i] === preImage[i]) i++;
    if (i === preImage.length) offsets.push(j);
  }
  return offsets;
}

/** The longest runs of pre-image lines found consecutively in the file (trimmed), as offsets. */
function longestRuns(lines: readonly string[], preImage: readonly string[]): { length: number; offsets: number[] } {
  const trimmed = preImage.map((l) => l.trim());
  const positions = new Map<string, number[]>();
  lines.forEach((line, j) => {
    const key = line.trim();
    const list = positions.get(key);
    if (list === undefined) positions.set(key, [j]);
    else list.push(j);
  });
  let best = { length: 0, offsets: [] as number[] };
  trimmed.forEach((start, i) => {
    for (const j of positions.get(start) ?? []) {
      // Only runs that start here; one that could extend backwards is counted from its true start.
      if (i > 0 && j > 0 && lines[j - 1]?.trim() === trimmed[i - 1]) continue;
      let length = 0;
      let blankOnly = true;
      while (i + length < trimmed.length && lines[j + length]?.trim() === trimmed[i + length]) {
        if (trimmed[i + length] !== '') blankOnly = false;
        length++;
      }
      if (blankOnly) continue;
      if (length > best.length) best = { length, offsets: [j - i] };
      else if (length === best.length) best.offsets.push(j - i);
    }
  });
  return best;
}

/**
 * The pre-image's place in the file's lines, or undefined when it cannot be placed; `oldStart` is
 * the hunk's 1-based start line in the file the patch was made against.
 */
export function locateHunk(lines: readonly string[], preImage: readonly string[], oldStart: number): HunkLocation | undefined {
  const hint = Math.max(0, oldStart - 1);
  if (preImage.length === 0) return hint <= lines.length ? { offset: hint, how: 'exact', matched: 0 } : undefined;
  const exact = nearest(exactOffsets(lines, preImage), hint);
  if (exact !== undefined) return { offset: exact, how: 'exact', matched: preImage.length };
  const runs = longestRuns(lines, preImage);
  const offset = nearest(runs.offsets, hint);
  if (offset === undefined || runs.length < Math.min(minimumRun, preImage.length)) return undefined;
  return { offset, how: 'tolerant', matched: runs.length };
}

/** The 1-based file line that an image's line stands for, kept inside the file. */
export function fileLineOf(location: HunkLocation, preImageIndex: number, lineCount: number): number {
  return Math.min(Math.max(1, location.offset + preImageIndex + 1), Math.max(1, lineCount));
}

/** How a hunk was placed: which image matched and how, or not at all. */
export type Placement = 'pre-image exact' | 'post-image exact' | 'pre-image tolerant';

export interface PlacedHunk {
  readonly how: Placement;
  readonly location: HunkLocation;
  /** The places the fix changes, as indices into the image that matched. */
  readonly targets: readonly ChangeTarget[];
}

/** The hunk placed in the file's lines by the first way that finds it, or undefined. */
export function placeHunk(lines: readonly string[], hunk: GoldHunk): PlacedHunk | undefined {
  const pre = locateHunk(lines, hunk.pre.lines, hunk.pre.start);
  if (pre?.how === 'exact') return { how: 'pre-image exact', location: pre, targets: hunk.pre.targets };
  const post = locateHunk(lines, hunk.post.lines, hunk.post.start);
  if (post?.how === 'exact') return { how: 'post-image exact', location: post, targets: hunk.post.targets };
  return pre === undefined ? undefined : { how: 'pre-image tolerant', location: pre, targets: hunk.pre.targets };
}
