/**
 * Which of the editor's quick fixes a button of the experiment overview stands for. The overview
 * applies a fix as the light bulb does: it asks the editor for its quick fixes at the finding (the
 * server's code actions, computed on the document as it is now) and applies the one this chooses,
 * so it never carries an edit of its own that could be stale. Types only from `vscode`, so the
 * choice is tested without an editor.
 */
import type * as vscode from 'vscode';
import type { OverviewRange } from '../../server/src/protocol/overview.js';

export interface QuickFixChoice {
  readonly code: string;
  readonly range: OverviewRange;
  readonly title: string;
}

/** The code of a diagnostic as a string, whether VS Code holds it plain or with a link. */
function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return typeof code === 'object' ? String(code.value) : String(code ?? '');
}

/**
 * The action to apply, or undefined when the editor offers none with that title for that finding
 * (the document changed since the overview was drawn). An action that names its diagnostics must
 * name one with the finding's code, so two findings' fixes with one title are told apart.
 */
export function chooseAction(actions: readonly (vscode.CodeAction | vscode.Command)[], choice: QuickFixChoice): vscode.CodeAction | undefined {
  // A bare command has its command id as a string where a code action has a command object or none.
  const codeActions = actions.filter((a): a is vscode.CodeAction => typeof a.command !== 'string');
  return codeActions.find(
    (a) => a.title === choice.title && (a.diagnostics === undefined || a.diagnostics.length === 0 || a.diagnostics.some((d) => codeOf(d) === choice.code)),
  );
}

/**
 * Whether a diagnostic is the launch finding with this message: a launch names each finding as
 * `<code>: <message>` (launch/launchPlan.ts), the editor shows the message alone.
 */
export function isFinding(diagnostic: vscode.Diagnostic, line: number, message: string): boolean {
  return diagnostic.range.start.line === line && (message === diagnostic.message || message === `${codeOf(diagnostic)}: ${diagnostic.message}`);
}

/**
 * The fix a blocked launch's notice offers for its first error: the quick fix the editor marks as
 * preferred (the one Fix All applies) for that finding's diagnostic, or undefined when there is none.
 * The actions are asked for at the diagnostic's own range; `vscode.executeCodeActionProvider` does
 * not hand back an action's diagnostics, so one without them is taken as that range's.
 */
export function preferredFix(actions: readonly (vscode.CodeAction | vscode.Command)[], line: number, message: string): vscode.CodeAction | undefined {
  const codeActions = actions.filter((a): a is vscode.CodeAction => typeof a.command !== 'string');
  return codeActions.find(
    (a) => a.isPreferred === true && (a.diagnostics === undefined || a.diagnostics.length === 0 || a.diagnostics.some((d) => isFinding(d, line, message))),
  );
}
