/**
 * Quick fixes for dataset lines. A fix is a list of value edits (rename a key, set a value,
 * replace the whole entry); it is applied to the line's parsed value and the line is rewritten
 * as compact JSON, which keeps one task per line. Lines that do not parse get no fixes.
 */
import { CodeActionKind, type CodeAction, type Diagnostic, type Range } from 'vscode-languageserver';
import { z } from 'zod';
import { fixSchema, type Fix } from '../protocol/index.js';
import { applyJsonEdits } from '../tasks/index.js';
import { diagnosticSource } from './yamlDiagnostics.js';

const dataSchema = z.object({ fixes: z.array(fixSchema) });

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

export function jsonlCodeActions(uri: string, lines: readonly string[], range: Range, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== diagnosticSource) continue;
    const n = d.range.start.line;
    if (n < range.start.line || n > range.end.line) continue;
    // Diagnostic data comes back from the client: parse it rather than trust it.
    const data = dataSchema.safeParse(d.data);
    const line = lines[n];
    if (!data.success || line === undefined) continue;
    for (const fix of data.data.fixes) {
      const newText = fixedLine(line, fix);
      if (newText === undefined || newText === line) continue;
      actions.push({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        isPreferred: fix.preferred === true,
        edit: { changes: { [uri]: [{ range: { start: { line: n, character: 0 }, end: { line: n, character: line.length } }, newText }] } },
      });
    }
  }
  return actions;
}
