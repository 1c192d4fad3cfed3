/**
 * The experiment config's `source.fixAll` action, which VS Code's "Fix All" command and
 * `editor.codeActionsOnSave` ask for: every finding's preferred fix in one edit, the same fixes
 * `gp config check --fix` writes (`config/preferredFixes.ts`). The findings are the document's
 * own (the fast check and the disk rules' current findings), since the client sends only the
 * diagnostics in the requested range.
 */
import { CodeActionKind, type CodeAction } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { applyPreferredFixes, smallestEdit, type LocatedFinding } from '../config/index.js';
import { toDiagnostics } from './yamlDiagnostics.js';

/** The action, or undefined when no finding has a preferred fix that changes the text. */
export function yamlFixAll(doc: TextDocument, findings: readonly LocatedFinding[]): CodeAction | undefined {
  const text = doc.getText();
  const result = applyPreferredFixes(text, findings);
  const edit = smallestEdit(text, result.text);
  if (edit === undefined) return undefined;
  const count = result.fixed.length === 1 ? '1 fix' : `${result.fixed.length} fixes`;
  return {
    title: `Fix all config problems that have a preferred fix (${count})`,
    kind: CodeActionKind.SourceFixAll,
    diagnostics: toDiagnostics(doc, result.fixed),
    edit: { changes: { [doc.uri]: [{ range: { start: doc.positionAt(edit.start), end: doc.positionAt(edit.end) }, newText: edit.newText }] } },
  };
}
