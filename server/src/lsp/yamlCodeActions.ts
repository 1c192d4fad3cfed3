/** Quick fixes for experiment YAML findings: each finding's fixes become workspace edits. */
import { CodeActionKind, type CodeAction, type Diagnostic } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { editsToTextEdit, type TextEdit } from '../config/index.js';
import { fixSchema, type Fix } from '../protocol/index.js';
import { z } from 'zod';
import { diagnosticSource } from './yamlDiagnostics.js';

const dataSchema = z.object({ fixes: z.array(fixSchema) });

/**
 * The fixes the editor offers for a finding on `text`, each with its edit: a fix that cannot be
 * applied cleanly to the current text is not offered. The light bulb and the experiment overview's
 * buttons both ask this, so they offer the same fixes.
 */
export function offeredFixes(text: string, fixes: readonly Fix[]): { fix: Fix; edit: TextEdit }[] {
  return fixes.flatMap((fix) => {
    const edit = editsToTextEdit(text, fix.edits);
    return edit === undefined ? [] : [{ fix, edit }];
  });
}

export function yamlCodeActions(doc: TextDocument, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const text = doc.getText();
  const actions: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== diagnosticSource) continue;
    // Diagnostic data comes back from the client: parse it rather than trust it.
    const data = dataSchema.safeParse(d.data);
    if (!data.success) continue;
    for (const { fix, edit } of offeredFixes(text, data.data.fixes)) {
      actions.push({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        isPreferred: fix.preferred === true,
        edit: {
          changes: {
            [doc.uri]: [{ range: { start: doc.positionAt(edit.start), end: doc.positionAt(edit.end) }, newText: edit.newText }],
          },
        },
      });
    }
  }
  return actions;
}
