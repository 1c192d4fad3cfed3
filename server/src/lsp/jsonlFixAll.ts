/**
 * Fixes applied to many dataset rows at once: the quick fix of a summary diagnostic
 * (`jsonlSummaries.ts`) and the document's `source.fixAll` action, which VS Code's "Fix All"
 * command and `editor.codeActionsOnSave` ask for. Rows change through `jsonlRowFix.ts`.
 */
import { CodeActionKind, type CodeAction, type Diagnostic } from 'vscode-languageserver';
import { z } from 'zod';
import { fixSchema, type Fix } from '../protocol/index.js';
import { rowEdits } from './jsonlRowFix.js';
import { diagnosticSource } from './yamlDiagnostics.js';

/** A diagnostic's data as it comes back from the client: its fixes, and every row when it is a summary. */
export const rowsDataSchema = z.object({ fixes: z.array(fixSchema), rows: z.array(z.number().int().min(0)).optional() });

/** The fix "Fix all" applies for a diagnostic: its preferred one, or its only one; none when the choice is the person's. */
function chosenFix(fixes: readonly Fix[]): Fix | undefined {
  return fixes.find((f) => f.preferred === true) ?? (fixes.length === 1 ? fixes[0] : undefined);
}

/**
 * The document's `source.fixAll` action: every diagnostic's chosen fix on every row it stands for,
 * in one edit; undefined when nothing would change.
 */
export function jsonlFixAll(uri: string, lines: readonly string[], diagnostics: readonly Diagnostic[]): CodeAction | undefined {
  const fixesByRow = new Map<number, Fix[]>();
  const fixed: Diagnostic[] = [];
  for (const d of diagnostics) {
    if (d.source !== diagnosticSource) continue;
    const data = rowsDataSchema.safeParse(d.data);
    const fix = data.success ? chosenFix(data.data.fixes) : undefined;
    if (!data.success || fix === undefined) continue;
    fixed.push(d);
    for (const row of data.data.rows ?? [d.range.start.line]) {
      const list = fixesByRow.get(row);
      if (list === undefined) fixesByRow.set(row, [fix]);
      else list.push(fix);
    }
  }
  const edits = rowEdits(lines, fixesByRow);
  if (edits.length === 0) return undefined;
  const rows = edits.length === 1 ? '1 row' : `${edits.length} rows`;
  return {
    title: `Fix all dataset problems that have a fix (${rows})`,
    kind: CodeActionKind.SourceFixAll,
    diagnostics: fixed,
    edit: { changes: { [uri]: edits } },
  };
}
