/**
 * The paths a unified diff touches, and the guard that refuses a patch before git sees it when a
 * path could leave the repository: absolute paths, `..` segments, and anything inside `.git`
 * (writing hooks there would run code on the next git command). git itself refuses most of
 * these, but its message does not tell a model what it did wrong; ours does.
 */

import { diffHeaderPath, unquoteGitPath } from '../util/gitPath.js';

export interface PatchPaths {
  /** Repository-relative paths the patch names, first-seen order. */
  paths: string[];
  /** Why the patch is refused, or undefined when every path is safe. */
  refused: string | undefined;
}

function stripPrefix(path: string): string {
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}

/** Why one path is unsafe, or undefined. */
export function unsafePathReason(path: string): string | undefined {
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path)) return `${path} is an absolute path; patches may only name files inside the repository, relative to its root`;
  const segments = path.split(/[\\/]/);
  if (segments.includes('..')) return `${path} leaves the repository through '..'; name files relative to the repository root`;
  if (segments[0] === '.git') return `${path} is inside .git; patches may not change git's own files`;
  return undefined;
}

export function patchPaths(diff: string): PatchPaths {
  const seen = new Set<string>();
  const paths: string[] = [];
  let refused: string | undefined;
  const add = (raw: string, prefixed: boolean) => {
    if (raw === '/dev/null') return;
    const path = prefixed ? stripPrefix(raw) : raw;
    refused ??= unsafePathReason(path);
    if (!seen.has(path)) {
      seen.add(path);
      paths.push(path);
    }
  };
  // Lines inside a hunk are content, not headers: a removed line "-- note" reads "--- note".
  // The hunk header's counts say how many lines belong to the hunk.
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of diff.split('\n')) {
    if (oldLeft > 0 || newLeft > 0) {
      const mark = line[0];
      if (mark === ' ' || line === '') {
        oldLeft--;
        newLeft--;
      } else if (mark === '-') oldLeft--;
      else if (mark === '+') newLeft--;
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
    } else if (line.startsWith('--- ') || line.startsWith('+++ ')) add(diffHeaderPath(line.slice(4)), true);
    else if (/^(rename|copy) (from|to) /.test(line)) add(unquoteGitPath(line.replace(/^(rename|copy) (from|to) /, '')), false);
    else if (line.startsWith('diff --git ')) {
      const m = /^diff --git ("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(line);
      if (m) {
        add(unquoteGitPath(m[1] ?? ''), true);
        add(unquoteGitPath(m[2] ?? ''), true);
      }
    }
  }
  return { paths, refused };
}
