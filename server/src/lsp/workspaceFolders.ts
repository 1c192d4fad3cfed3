/**
 * The workspace folders the client named, as file-system paths. Relative paths in a config are
 * resolved against the innermost folder that holds it, as a run started from that folder would.
 */
import { dirname } from 'node:path';
import type { InitializeParams, WorkspaceFoldersChangeEvent } from 'vscode-languageserver';
import { URI } from 'vscode-uri';

export class WorkspaceFolders {
  private folders: string[] = [];

  get paths(): readonly string[] {
    return this.folders;
  }

  initialize(params: Pick<InitializeParams, 'workspaceFolders' | 'rootUri'>): void {
    this.folders = (params.workspaceFolders ?? []).map((f) => URI.parse(f.uri).fsPath);
    if (this.folders.length === 0 && params.rootUri) this.folders = [URI.parse(params.rootUri).fsPath];
  }

  change(event: WorkspaceFoldersChangeEvent): void {
    const removed = new Set(event.removed.map((f) => URI.parse(f.uri).fsPath));
    this.folders = [...this.folders.filter((f) => !removed.has(f)), ...event.added.map((f) => URI.parse(f.uri).fsPath)];
  }

  /** The innermost folder holding the document, or the document's own folder when none does. */
  baseDirOf(uri: string): string {
    const path = URI.parse(uri).fsPath;
    const holding = this.folders.filter((f) => path.startsWith(f.endsWith('/') ? f : `${f}/`)).sort((a, b) => b.length - a.length)[0];
    return holding ?? dirname(path);
  }
}
