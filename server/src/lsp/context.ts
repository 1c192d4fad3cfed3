/**
 * What every part of the server shares: the connection, the synchronised documents and their
 * state, settings, workspace folders and the engine services, plus the two ways the server
 * reports on itself (background failures and the status notification).
 */
import { TextDocuments, type Connection } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { serverStatusNotification, type ServerStatus } from '../protocol/index.js';
import { classify, type DocKind } from './documentKind.js';
import { DocumentStore } from './documentStore.js';
import { Scheduler } from './scheduler.js';
import type { ServerServices } from './services.js';
import { SettingsCache } from './settingsCache.js';
import { WorkspaceFolders } from './workspaceFolders.js';

export const serverVersion = '0.1.0';

export class ServerContext {
  readonly documents = new TextDocuments(TextDocument);
  readonly store = new DocumentStore();
  readonly scheduler = new Scheduler();
  readonly workspace = new WorkspaceFolders();
  readonly settings: SettingsCache;
  supportsConfiguration = false;
  private stopped = false;

  constructor(
    readonly connection: Connection,
    readonly services: ServerServices,
  ) {
    this.settings = new SettingsCache(connection, () => this.supportsConfiguration);
  }

  /** Whether the client asked the server to shut down; work still in flight then stays quiet. */
  get isStopped(): boolean {
    return this.stopped;
  }

  stop(): void {
    this.stopped = true;
    this.scheduler.stop();
  }

  /**
   * Runs work that nobody awaits. It must never surface as an unhandled rejection: the connection
   * may be gone (the editor closed) by the time it settles.
   */
  background(work: Promise<unknown>): void {
    work.catch((err: unknown) => this.logFailure('Background task failed', err));
  }

  logFailure(what: string, err: unknown): void {
    if (this.stopped) return;
    this.connection.console.error(`${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }

  status(state: ServerStatus['state'], message: string, extra: Partial<ServerStatus> = {}): void {
    const payload: ServerStatus = { state, message, version: serverVersion, ...extra };
    this.background(this.connection.sendNotification(serverStatusNotification, payload));
  }

  /** The document's kind by the glob settings of its folder, kept with an open document. */
  async kindOf(uri: string): Promise<DocKind> {
    const known = this.store.get(uri)?.kind;
    if (known) return known;
    const kind = classify(URI.parse(uri).fsPath, await this.settings.get(uri));
    const doc = this.store.get(uri);
    if (doc) doc.kind = kind;
    return kind;
  }

  /** The kind settled by the document's first validation; `other` until then. */
  knownKind(uri: string): DocKind {
    return this.store.get(uri)?.kind ?? 'other';
  }
}
