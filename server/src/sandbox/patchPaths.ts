/**
 * The paths a unified diff touches, and the guard that refuses a patch before git sees it when a
 * path could leave the repository: absolute paths, `..` segments, and anything inside `.git`
 * (writing hooks there would run code on the next git command). git itself refuses most of
 * these, but its message does not tell a model what it did wrong; ours does.
 */

import { parseUnifiedDiff, type FileDiff } from '../protocol/unifiedDiff.js';

export interface PatchPaths {
  /** Repository-relative paths the patch names, first-seen order. */
  paths: string[];
  /** Why the patch is refused, or undefined when every path is safe. */
  refused: string | undefined;
}

/** Why one path is unsafe, or undefined. */
export function unsafePathReason(path: string): string | undefined {
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path))
    return `${path} is an absolute path; patches may only name files inside the repository, relative to its root`;
  const segments = path.split(/[\\/]/);
  if (segments.includes('..')) return `${path} leaves the repository through '..'; name files relative to the repository root`;
  if (segments[0] === '.git') return `${path} is inside .git; patches may not change git's own files`;
  return undefined;
}

/** Every path the diff's headers name, read as the applier reads them (protocol/unifiedDiff.ts), the first unsafe one refused. */
export function patchPaths(diff: string): PatchPaths {
  const named = parseUnifiedDiff(diff).flatMap((file) => file.named);
  const paths = [...new Set(named)];
  const refused = named.map(unsafePathReason).find((reason) => reason !== undefined);
  return { paths, refused };
}

/**
 * What one file section of a patch does: `add`, `delete`, `modify` (content or mode), `rename` or
 * `copy` (with `from`). `mode` is the new mode when the section sets one (`new file mode`, `new mode`);
 * `link` is true when the new side is a symbolic link (mode 120000). The grader-surface rule
 * (testing/graderSurface.ts) reads these, because a rename or a mode change of a test file changes
 * the grade as surely as an edit does.
 */
export interface PatchChange {
  kind: 'add' | 'delete' | 'modify' | 'rename' | 'copy';
  /** The path after the change (the deleted path for `delete`). */
  path: string;
  /** The path before a rename or copy. */
  from?: string;
  mode?: string;
  link: boolean;
}

function fileChange(file: FileDiff): PatchChange | undefined {
  const path = file.newPath ?? file.oldPath;
  if (path === null) return undefined;
  const kind: PatchChange['kind'] =
    file.copiedFrom !== null
      ? 'copy'
      : file.status === 'renamed'
        ? 'rename'
        : file.status === 'added'
          ? 'add'
          : file.status === 'deleted'
            ? 'delete'
            : 'modify';
  const from = kind === 'copy' ? file.copiedFrom : kind === 'rename' ? file.oldPath : null;
  return { kind, path, ...(from === null ? {} : { from }), ...(file.mode === null ? {} : { mode: file.mode }), link: file.mode === '120000' };
}

/**
 * Every file a patch changes and how, in order: git's extended headers (`rename from/to`,
 * `old mode/new mode`, `new file mode 120000`, `deleted file mode`) and quoted paths are read as git
 * reads them; a plain unified diff with no `diff --git` line is read from its `---`/`+++` headers.
 */
export function patchChanges(diff: string): PatchChange[] {
  return parseUnifiedDiff(diff).flatMap((file) => fileChange(file) ?? []);
}
