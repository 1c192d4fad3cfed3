/**
 * Quick fixes for dataset lines. A fix is a list of value edits (rename a key, set a value,
 * replace the whole entry); on one row it is applied to the line's parsed value and the line is
 * rewritten as compact JSON, which keeps one task per line. A summary of a finding repeated on
 * many rows (`jsonlSummaries.ts`) fixes every row it stands for in one edit, each row changed in
 * place (`jsonlRowFix.ts`). Lines that do not parse get no fixes.
 */
import { CodeActionKind, type CodeAction, type Diagnostic, type Range } from 'vscode-languageserver';
import type { Fix } from '../protocol/index.js';
import { rowsDataSchema } from './jsonlFixAll.js';
import { fixedLine, rowEdits } from './jsonlRowFix.js';
import { diagnosticSource } from './yamlDiagnostics.js';

function action(d: Diagnostic, fix: Fix, edits: CodeAction['edit']): CodeAction {
  return { title: fix.title, kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: fix.preferred === true, ...(edits ? { edit: edits } : {}) };
}

function rowFixes(uri: string, lines: readonly string[], d: Diagnostic, fixes: readonly Fix[]): CodeAction[] {
  const n = d.range.start.line;
  const line = lines[n];
  if (line === undefined) return [];
  return fixes.flatMap((fix) => {
    const newText = fixedLine(line, fix);
    if (newText === undefined || newText === line) return [];
    return [action(d, fix, { changes: { [uri]: [{ range: { start: { line: n, character: 0 }, end: { line: n, character: line.length } }, newText }] } })];
  });
}

function summaryFixes(uri: string, lines: readonly string[], d: Diagnostic, fixes: readonly Fix[], rows: readonly number[]): CodeAction[] {
  return fixes.flatMap((fix) => {
    const edits = rowEdits(lines, new Map(rows.map((row) => [row, [fix]])));
    return edits.length === 0 ? [] : [action(d, fix, { changes: { [uri]: edits } })];
  });
}

export function jsonlCodeActions(uri: string, lines: readonly string[], range: Range, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== diagnosticSource) continue;
    const n = d.range.start.line;
    if (n < range.start.line || n > range.end.line) continue;
    // Diagnostic data comes back from the client: parse it rather than trust it.
    const data = rowsDataSchema.safeParse(d.data);
    if (!data.success) continue;
    const { fixes, rows } = data.data;
    actions.push(...(rows === undefined ? rowFixes(uri, lines, d, fixes) : summaryFixes(uri, lines, d, fixes, rows)));
  }
  return actions;
}
