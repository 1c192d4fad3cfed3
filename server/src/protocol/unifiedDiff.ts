/**
 * The one reader of unified diffs as git writes them: files with their headers (git's extended
 * headers and its C-quoted paths included) and hunks. The patch guard (sandbox/patchPaths.ts,
 * env/guard.ts), the applier that rebuilds whole files (util/unifiedDiff.ts), the SWE-bench
 * evaluation script (datasets/swebenchSpecs.ts) and the trajectory viewer's patch pane
 * (webview/src/episode/patchModel.ts) all read diffs here, so a path means the same file to the
 * guard that lets a patch through and to the code that applies it. It lives in `protocol/`
 * because the webview reads patches too, and so it uses no Node API. The reader is tolerant (a
 * guard must see every header even in a broken diff); `diffProblem` is the strict check, through
 * the `diff` package's own parser, for a page that must not draw a broken diff wrong.
 */
import { parsePatch } from 'diff';

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
  /** The mode the file gets (`new file mode`, `new mode`), or null. */
  readonly mode: string | null;
  /** The path a copy was made from (`copy from`), or null when the file is not a copy. */
  readonly copiedFrom: string | null;
  /**
   * Every path the file's headers name (`diff --git`, `---`, `+++`, `rename`/`copy from`/`to`), in
   * the order they name them, `/dev/null` left out: the guard refuses the file when any of them
   * leaves the repository, whichever one git goes by.
   */
  readonly named: string[];
}

type Building = { -readonly [K in keyof FileDiff]: FileDiff[K] } & { sawPlus: boolean };

const escapes: Readonly<Record<string, number>> = { n: 10, t: 9, '"': 34, '\\': 92, a: 7, b: 8, f: 12, r: 13, v: 11 };

/** Undoes git's C-style quoting of paths with unusual characters (`"a/sp\303\244ce.py"`, core.quotePath). */
export function unquoteGitPath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  const body = raw.slice(1, -1);
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] ?? '';
    if (ch !== '\\') {
      bytes.push(...encoder.encode(ch));
      continue;
    }
    const next = body[i + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(escapes[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** The path part of a `---`/`+++` line, unquoted: up to a tab (git ends a path with spaces with one, GNU diff puts a time stamp after it). */
export function diffHeaderPath(rest: string): string {
  // A quoted path ends at its closing quote, not at an escaped one inside it (`"a/say \"hi\".py"`).
  const raw = rest.startsWith('"') ? (/^"(?:[^"\\]|\\.)*"/.exec(rest)?.[0] ?? rest) : (rest.split('\t')[0] ?? rest);
  return unquoteGitPath(raw.trimEnd());
}

/** A prefixed header path (`a/x`, `b/x`) without its prefix; null for `/dev/null`. */
function prefixedPath(path: string): string | null {
  if (path === '/dev/null') return null;
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}

const gitLine = /^diff --git ("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/;
const hunkLine = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/** Reads one line outside a hunk into the file it belongs to. */
function readHeader(line: string, file: Building): void {
  const name = (path: string | null) => {
    if (path !== null) file.named.push(path);
    return path;
  };
  const mode = /^(new file mode|new mode|deleted file mode) ([0-7]{6})$/.exec(line);
  if (mode?.[1] === 'new file mode') {
    file.status = 'added';
    file.oldPath = null;
  } else if (mode?.[1] === 'deleted file mode') {
    file.status = 'deleted';
    file.newPath = null;
  }
  if (mode !== null && mode[1] !== 'deleted file mode') file.mode = mode[2] ?? null;
  const moved = /^(rename|copy) (from|to) (.+)$/.exec(line);
  if (moved?.[3] !== undefined) {
    const path = name(unquoteGitPath(moved[3]));
    if (moved[1] === 'rename') file.status = 'renamed';
    if (moved[2] === 'to') file.newPath = path;
    else if (moved[1] === 'rename') file.oldPath = path;
    else file.copiedFrom = path;
  } else if (line.startsWith('--- ')) {
    file.oldPath = name(prefixedPath(diffHeaderPath(line.slice(4))));
    if (file.oldPath === null) file.status = 'added';
  } else if (line.startsWith('+++ ')) {
    file.newPath = name(prefixedPath(diffHeaderPath(line.slice(4))));
    if (file.newPath === null) file.status = 'deleted';
    file.sawPlus = true;
  } else if (line.startsWith('GIT binary patch') || /^Binary files .* differ$/.test(line)) file.binary = true;
}

/**
 * The files of a unified diff, in order. Lines inside a hunk are content even when they read like
 * headers (a removed line "-- note" reads "--- note"): the hunk header's counts say how many lines
 * belong to it. A plain unified diff with no `diff --git` line starts each file at its `---` line.
 */
export function parseUnifiedDiff(diff: string): FileDiff[] {
  const files: Building[] = [];
  let current: Building | undefined;
  let hunk: { lines: DiffLine[]; oldLeft: number; newLeft: number } | undefined;
  const start = (): Building => {
    current = { oldPath: null, newPath: null, status: 'modified', hunks: [], binary: false, mode: null, copiedFrom: null, named: [], sawPlus: false };
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
    hunk = undefined;
    const header = hunkLine.exec(line);
    if (header !== null) {
      const h = {
        oldStart: Number(header[1]),
        oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newLines: header[4] === undefined ? 1 : Number(header[4]),
        context: header[5] ?? '',
      };
      hunk = { lines: [], oldLeft: h.oldLines, newLeft: h.newLines };
      (current ?? start()).hunks.push({ ...h, lines: hunk.lines });
      continue;
    }
    if (line.startsWith('diff --git ')) {
      const file = start();
      const m = gitLine.exec(line);
      if (m !== null) {
        file.oldPath = prefixedPath(unquoteGitPath(m[1] ?? ''));
        file.newPath = prefixedPath(unquoteGitPath(m[2] ?? ''));
        file.named.push(...[file.oldPath, file.newPath].filter((p) => p !== null));
      }
      continue;
    }
    if (line.startsWith('--- ') && (current === undefined || current.sawPlus || current.hunks.length > 0)) start();
    else if (current === undefined && /^(\+\+\+ |rename |copy )/.test(line)) start();
    if (current !== undefined) readHeader(line, current);
  }
  return files.map(({ sawPlus: _, ...file }) => file);
}

/**
 * Why a text is not a unified diff the `diff` package can read hunk by hunk (a hunk shorter than its
 * header says, a stray line between hunks), or undefined when it is one.
 */
export function diffProblem(text: string): string | undefined {
  try {
    parsePatch(text);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
