/**
 * A dataset row changed by fixes, as text. A fix is a list of value edits; setting or removing a
 * key is made in place by jsonc-parser, so the rest of the row stays as it was written (a fix of
 * 499 rows is then a reviewable diff, not 4 MB of rewritten JSON); renaming a key or replacing the
 * row parses it and writes it back as compact JSON, which keeps one task per line, unless that
 * would change a number.
 */
import { applyEdits, modify } from 'jsonc-parser';
import type { TextEdit } from 'vscode-languageserver';
import type { ConfigEdit, Fix } from '../protocol/index.js';
import { applyJsonEdits } from '../tasks/index.js';

/** JSON string literals and number literals, in order, so numbers inside strings are skipped. */
const tokens = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * Whether parsing and re-serialising the line would change a number: integers beyond 2^53 and
 * decimals with more digits than a double holds. Such lines get no whole-line rewrite.
 */
export function losesPrecision(line: string): boolean {
  for (const m of line.matchAll(tokens)) {
    const tok = m[0];
    if (tok.startsWith('"')) continue;
    if (/^-?\d+$/.test(tok)) {
      if (!Number.isSafeInteger(Number(tok))) return true;
    } else if (tok.replace(/^-|[eE].*$|\./g, '').replace(/^0+/, '').length > 15) {
      return true;
    }
  }
  return false;
}

/** The line's text with a fix applied, or undefined when the line is not JSON or would lose precision. */
export function fixedLine(line: string, fix: Fix): string | undefined {
  if (losesPrecision(line)) return undefined;
  const bom = line.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  let value: unknown;
  try {
    value = JSON.parse(bom === '' ? line : line.slice(1));
  } catch {
    return undefined;
  }
  return bom + JSON.stringify(applyJsonEdits(value, fix.edits));
}

/** One edit applied in place by jsonc-parser; undefined when only a rewrite of the row can make it. */
function inPlace(text: string, edit: ConfigEdit): string | undefined {
  if ((edit.op !== 'set' && edit.op !== 'remove') || edit.path.length === 0) return undefined;
  const edits = modify(text, edit.path, edit.op === 'set' ? edit.value : undefined, {});
  const out = applyEdits(text, edits);
  // A value jsonc-parser formats over several lines would split the row; rewrite it instead.
  return out.includes('\n') || out.includes('\r') ? undefined : out;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The row with every fix applied in order, or undefined when the row is not JSON or a fix cannot apply. */
export function lineWithFixes(line: string, fixes: readonly Fix[]): string | undefined {
  const bom = line.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  let text = bom === '' ? line : line.slice(1);
  if (!parses(text)) return undefined;
  for (const fix of fixes) {
    for (const edit of fix.edits) {
      const next = inPlace(text, edit) ?? fixedLine(text, { title: fix.title, edits: [edit] });
      if (next === undefined || !parses(next)) return undefined;
      text = next;
    }
  }
  return bom + text;
}

/** The smallest edit that turns line `n`'s `before` into `after`: their common start and end are kept. */
export function lineEdit(n: number, before: string, after: string): TextEdit {
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (end < shorter - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++;
  return {
    range: { start: { line: n, character: start }, end: { line: n, character: before.length - end } },
    newText: after.slice(start, after.length - end),
  };
}

/** Edits that apply each row's fixes; rows that no longer parse or would not change are left alone. */
export function rowEdits(lines: readonly string[], fixesByRow: ReadonlyMap<number, readonly Fix[]>): TextEdit[] {
  const edits: TextEdit[] = [];
  for (const [n, fixes] of [...fixesByRow].sort((a, b) => a[0] - b[0])) {
    const line = lines[n];
    if (line === undefined) continue;
    const after = lineWithFixes(line, fixes);
    if (after !== undefined && after !== line) edits.push(lineEdit(n, line, after));
  }
  return edits;
}
