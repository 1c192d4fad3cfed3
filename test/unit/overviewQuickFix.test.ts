/**
 * Which of the editor's code actions an overview fix button applies: the one with its title for
 * its finding's code, never a bare command or another finding's fix of the same title.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as vscode from 'vscode';
import { chooseAction, isFinding, preferredFix, type QuickFixChoice } from '../../extension/src/overviewQuickFix.js';
import { webviewMessageSchema } from '../../server/src/protocol/webview.js';

const range = { start: { line: 4, character: 2 }, end: { line: 4, character: 17 } };
const choice: QuickFixChoice = { code: 'preflight/negative-penalty', range, title: 'Flip the sign: set env.failure_penalty to 1' };

/** Only the fields chooseAction reads; the editor's own objects have more. */
const action = (title: string, code?: string | { value: string }): vscode.CodeAction =>
  ({ title, diagnostics: code === undefined ? undefined : [{ code }], edit: {} }) as unknown as vscode.CodeAction;
const command = (title: string): vscode.Command => ({ title, command: 'graphPlanner.something' });

test('picks the code action with the button’s title whose diagnostic has the finding’s code', () => {
  const wanted = action(choice.title, choice.code);
  const sameTitleOtherFinding = action(choice.title, 'schema/type');
  assert.equal(chooseAction([command(choice.title), sameTitleOtherFinding, action('Remove the key', choice.code), wanted], choice), wanted);
});

test('reads a diagnostic code given with a link, and takes an action that names no diagnostics', () => {
  const linked = action(choice.title, { value: choice.code });
  assert.equal(chooseAction([linked], choice), linked);
  const bare = action(choice.title);
  assert.equal(chooseAction([bare], choice), bare);
});

test('finds nothing when the editor no longer offers the fix', () => {
  assert.equal(chooseAction([action('Set env.failure_penalty to 0', choice.code), command(choice.title)], choice), undefined);
  assert.equal(chooseAction([], choice), undefined);
});

test('the page’s applyFix message is validated: a well-formed one passes, a malformed one is refused', () => {
  const ok = webviewMessageSchema.safeParse({ type: 'applyFix', code: choice.code, range, title: choice.title });
  assert.ok(ok.success);
  for (const bad of [
    { type: 'applyFix', code: choice.code, range },
    { type: 'applyFix', code: choice.code, range: { start: { line: -1, character: 0 }, end: range.end }, title: 't' },
    { type: 'applyFix', code: 7, range, title: 't' },
    { type: 'applyEdit', range, newText: 'rm -rf /' },
  ])
    assert.equal(webviewMessageSchema.safeParse(bad).success, false, JSON.stringify(bad));
});

test('a blocked launch offers the preferred fix of its first error’s diagnostic, matched by line and by the launch’s `<code>: <message>`', () => {
  const message = "Unknown key 'planer_backend' in backends. Did you mean 'planner_backend'?";
  const diagnostic = (line: number, text: string) => ({ code: 'schema/unknown-key', message: text, range: { start: { line } } });
  const fix = (title: string, isPreferred: boolean, line: number, text = message) =>
    ({ title, isPreferred, diagnostics: [diagnostic(line, text)], edit: {} }) as unknown as vscode.CodeAction;
  const rename = fix("Rename 'planer_backend' to 'planner_backend'", true, 7);
  const remove = fix("Remove 'planer_backend'", false, 7);
  const otherLine = fix("Rename 'planer_backend' to 'planner_backend'", true, 9);
  const otherFinding = fix('Set sandbox.backend to docker', true, 7, 'another finding');
  assert.equal(preferredFix([command('x'), remove, otherLine, otherFinding, rename], 7, `schema/unknown-key: ${message}`), rename);
  assert.equal(preferredFix([rename], 7, message), rename, 'the message alone matches too');
  assert.equal(preferredFix([remove, otherLine, otherFinding], 7, `schema/unknown-key: ${message}`), undefined);
  assert.equal(isFinding(diagnostic(7, message) as unknown as vscode.Diagnostic, 7, `schema/type: ${message}`), false, 'another code is another finding');
  // The editor's command hands actions back without their diagnostics: the preferred one asked for at the finding's range is taken.
  const bare = { title: "Rename 'planer_backend' to 'planner_backend'", isPreferred: true, edit: {} } as unknown as vscode.CodeAction;
  assert.equal(preferredFix([remove, bare], 7, message), bare);
  assert.equal(preferredFix([{ ...bare, isPreferred: false } as vscode.CodeAction], 7, message), undefined);
});
