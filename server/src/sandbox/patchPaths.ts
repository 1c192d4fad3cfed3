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

/**
 * The lines of a diff outside its hunks' bodies: file headers and git's extended headers. Lines
 * inside a hunk are content even when they read like headers (a removed line "-- note" reads
 * "--- note"); the hunk header's counts say how many lines belong to the hunk.
 */
function* headerLines(diff: string): Generator<string> {
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
      continue;
    }
    yield line;
  }
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
  for (const line of headerLines(diff)) {
    if (line.startsWith('--- ') || line.startsWith('+++ ')) add(diffHeaderPath(line.slice(4)), true);
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

/** One section's facts while its headers are read. */
interface Section {
  kind: PatchChange['kind'];
  path: string;
  from?: string;
  mode?: string;
  /** Whether the section's `+++` line was read: a plain diff's next `---` starts another file. */
  sawPlus?: boolean;
}

function sectionChange(s: Section): PatchChange {
  return { kind: s.kind, path: s.path, ...(s.from === undefined ? {} : { from: s.from }), ...(s.mode === undefined ? {} : { mode: s.mode }), link: s.mode === '120000' };
}

/** The header of one line outside a hunk, applied to the section it belongs to. */
function readHeader(line: string, s: Section): void {
  const mode = /^(new file mode|new mode|deleted file mode) ([0-7]{6})$/.exec(line);
  if (mode) {
    if (mode[1] === 'new file mode') s.kind = 'add';
    if (mode[1] === 'deleted file mode') s.kind = 'delete';
    if (mode[1] !== 'deleted file mode') s.mode = mode[2];
    return;
  }
  const moved = /^(rename|copy) (from|to) (.+)$/.exec(line);
  if (moved?.[3] !== undefined) {
    s.kind = moved[1] === 'rename' ? 'rename' : 'copy';
    if (moved[2] === 'from') s.from = unquoteGitPath(moved[3]);
    else s.path = unquoteGitPath(moved[3]);
    return;
  }
  if (line.startsWith('--- ') || line.startsWith('+++ ')) {
    const raw = diffHeaderPath(line.slice(4));
    if (raw === '/dev/null') s.kind = line.startsWith('--- ') ? 'add' : 'delete';
    else if (line.startsWith('+++ ') || s.path === '') s.path = stripPrefix(raw);
  }
}

/**
 * Every file a patch changes and how, in order: git's extended headers (`rename from/to`,
 * `old mode/new mode`, `new file mode 120000`, `deleted file mode`) and quoted paths are read as git
 * reads them; a plain unified diff with no `diff --git` line is read from its `---`/`+++` headers.
 */
export function patchChanges(diff: string): PatchChange[] {
  const out: PatchChange[] = [];
  let section: Section | undefined;
  const close = () => {
    if (section !== undefined && section.path !== '') out.push(sectionChange(section));
    section = undefined;
  };
  for (const line of headerLines(diff)) {
    if (line.startsWith('diff --git ')) {
      close();
      const m = /^diff --git ("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(line);
      section = { kind: 'modify', path: m ? stripPrefix(unquoteGitPath(m[2] ?? '')) : '' };
      continue;
    }
    // A plain unified diff starts a new file at its `---` line.
    if (line.startsWith('--- ') && (section === undefined || section.sawPlus === true)) {
      close();
      section = { kind: 'modify', path: '' };
    }
    if (section === undefined) continue;
    readHeader(line, section);
    if (line.startsWith('+++ ')) section.sawPlus = true;
  }
  close();
  return out;
}
