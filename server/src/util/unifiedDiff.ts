/**
 * Applying one file's hunks to the text it was made against. The trajectory viewer rebuilds the
 * whole file before and after a patch from the recorded pre-image this way, long after the sandbox
 * that made the patch is gone; the hunks come from the one diff reader, protocol/unifiedDiff.ts.
 * Applying is exact: every context and removed line must match, or it fails and says where.
 */

/** What applying needs of a hunk; protocol/unifiedDiff.ts's hunks are these (util/ imports no other folder). */
interface HunkToApply {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly lines: ReadonlyArray<{ readonly mark: ' ' | '-' | '+'; readonly text: string; readonly noNewline: boolean }>;
}

export type ApplyResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

/** Applies one file's hunks to `before` (the empty string for an added file). */
export function applyHunks(before: string, hunks: readonly HunkToApply[]): ApplyResult {
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
      if (actual !== line.text)
        return { ok: false, reason: `line ${at + 1} is ${JSON.stringify(actual ?? '(end of file)')}, but the patch expects ${JSON.stringify(line.text)}` };
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
    const lastLine = hunks
      .at(-1)
      ?.lines.filter((l) => l.mark !== '-')
      .at(-1);
    lastHasNewline = lastLine === undefined ? endsWithNewline : !lastLine.noNewline;
  }
  if (out.length === 0) return { ok: true, text: '' };
  return { ok: true, text: out.join('\n') + (lastHasNewline ? '\n' : '') };
}
