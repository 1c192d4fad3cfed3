/**
 * An episode's patches in VS Code's own diff editors: one file opens in the diff editor, several
 * in the multi-file diff editor, each with the whole file before and after, rebuilt by the server
 * from the pre-images the run recorded (so it works after the sandbox is gone). The documents are
 * virtual and read-only (`graph-planner-patch:`), served from what the last request returned; the
 * title says which step and candidate it is and whether its tests passed. A file whose pre-image
 * is missing is shown as its diff, with the reason. Applying a patch to a local checkout runs
 * `git apply --check` first and refuses on conflict.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { PatchRef } from '../../server/src/protocol/episodeWebview.js';
import { applyPatchToCheckout } from './applyPatch.js';
import type { PatchFileImage } from '../../server/src/protocol/episodeView.js';
import { patchScheme } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { episodePatch, type EpisodePatchResult, sendRequest } from './serverMessages.js';

/** Documents served by the provider; a few hundred kept, oldest dropped first. */
const keptDocuments = 400;

export class PatchActions implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private opened = 0;

  constructor(private readonly extensionState: ExtensionState) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? 'This document belonged to a diff of an earlier session; open the patch again from the trajectory viewer.\n';
  }

  dispose(): void {
    this.contents.clear();
  }

  /** Opens the patch in the diff editor (one file) or the multi-file diff editor. */
  async open(trajectory: string, ref: PatchRef): Promise<void> {
    const patch = await this.fetch(trajectory, ref);
    // The viewer asked, so it is the active editor: keep it, or the diff would replace its preview tab.
    await vscode.commands.executeCommand('workbench.action.keepEditor');
    const tag = `${++this.opened}`;
    const episode = basename(trajectory, '.jsonl');
    const title = `${episode} · ${patch.title}`;
    const showable = patch.files.filter((f) => f.problem === null);
    const problems = patch.files.filter((f) => f.problem !== null);
    if (problems.length > 0) {
      const diffDoc = this.serve(vscode.Uri.from({ scheme: patchScheme, path: `/${tag}/${episode}.diff` }), patch.diff);
      const document = await vscode.workspace.openTextDocument(diffDoc);
      await vscode.languages.setTextDocumentLanguage(document, 'diff');
      await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
      const why = `${title}: ${problems.map((f) => f.problem).join(' ')} The patch is shown as a diff instead.`;
      this.extensionState.log.warn(why);
      void vscode.window.showWarningMessage(why);
      if (showable.length === 0) return;
    }
    const sides = showable.map((f) => this.sides(tag, f));
    if (sides.length === 1 && sides[0] !== undefined) {
      const [resource, before, after] = sides[0];
      await vscode.commands.executeCommand('vscode.diff', before, after, `${title} · ${vscode.workspace.asRelativePath(resource.path.replace(/^\//, ''))}`, {
        preview: true,
      });
      return;
    }
    await vscode.commands.executeCommand('vscode.changes', title, sides);
  }

  /** Applies the patch to a local checkout the person picks, after `git apply --check`. */
  async apply(trajectory: string, ref: PatchRef): Promise<void> {
    const patch = await this.fetch(trajectory, ref);
    const folder = await pickCheckout();
    if (folder === undefined) return;
    const outcome = await applyPatchToCheckout(patch.diff, folder.fsPath);
    if (!outcome.ok) {
      void vscode.window.showErrorMessage(`${patch.title} does not apply to ${folder.fsPath}; nothing was changed. git apply --check says: ${outcome.reason}`);
      return;
    }
    const files = patch.files.map((f) => f.newPath ?? f.oldPath).join(', ');
    this.extensionState.log.info(`Applied ${patch.title} of ${trajectory} to ${folder.fsPath}: ${files}`);
    void vscode.window.showInformationMessage(`Applied ${patch.title} to ${folder.fsPath} (${files}).`);
  }

  private async fetch(trajectory: string, ref: PatchRef): Promise<Extract<EpisodePatchResult, { ok: true }>> {
    const client = await this.extensionState.currentClient();
    if (client === undefined) throw new Error('the Graph Planner server is not running; run "Graph Planner: Restart Server".');
    const result = await sendRequest(client, episodePatch, { path: trajectory, step: ref.step, candidate: ref.candidate });
    if (!result.ok) throw new Error(result.message);
    return result;
  }

  /** The resource (named for the file), and its before and after documents. */
  private sides(tag: string, file: PatchFileImage): [vscode.Uri, vscode.Uri, vscode.Uri] {
    const path = file.newPath ?? file.oldPath ?? 'unnamed';
    const shown = file.status === 'renamed' ? `${file.oldPath} → ${file.newPath}` : path;
    const before = this.serve(vscode.Uri.from({ scheme: patchScheme, path: `/${tag}/before/${file.oldPath ?? path}`, query: shown }), file.before ?? '');
    const after = this.serve(vscode.Uri.from({ scheme: patchScheme, path: `/${tag}/after/${path}`, query: shown }), file.after ?? '');
    return [vscode.Uri.from({ scheme: patchScheme, path: `/${path}` }), before, after];
  }

  /** Serves `text` as the read-only document `uri` (of the patch scheme). */
  serve(uri: vscode.Uri, text: string): vscode.Uri {
    this.contents.set(uri.toString(), text);
    while (this.contents.size > keptDocuments) {
      const oldest = this.contents.keys().next().value;
      if (oldest === undefined) break;
      this.contents.delete(oldest);
    }
    return uri;
  }
}

/** A workspace folder, or one the person browses to. */
async function pickCheckout(): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const browse = 'Browse…';
  const picked = await vscode.window.showQuickPick(
    [
      ...folders.map((f) => ({ label: f.name, description: f.uri.fsPath, uri: f.uri })),
      { label: browse, description: 'another checkout of the task repository', uri: undefined },
    ],
    {
      title: 'Apply the patch to which checkout of the task repository?',
      placeHolder: 'git apply --check runs first; nothing changes if the patch does not apply',
    },
  );
  if (picked === undefined) return undefined;
  if (picked.uri !== undefined) return picked.uri;
  const chosen = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: 'Apply here' });
  return chosen?.[0];
}
