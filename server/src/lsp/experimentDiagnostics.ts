/**
 * Diagnostics of experiment YAML documents. Each document is checked once per version (the check is
 * kept with the document and reused by completion, hover, symbols and the custom requests); the
 * slow disk rules run after the fast diagnostics are published and never hold them back, and they
 * rerun only when the config values they read change.
 */
import type { Diagnostic } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { locateDiskFindings, offThreadBytes, type ConfigCheck, type LocatedFinding } from '../config/index.js';
import type { ServerContext } from './context.js';
import { toDiagnostics } from './yamlDiagnostics.js';
import { errorMessage } from '../util/errors.js';

/** The config values the disk rules read; their findings stay valid while these are unchanged. */
function diskKey(check: ConfigCheck): string {
  return check.config ? JSON.stringify([check.config.paths, check.config.backends, check.config.parallel]) : '';
}

export class ExperimentDiagnostics {
  constructor(private readonly server: ServerContext) {}

  /** The check of the document's current version, from the document's state when it is current. */
  checkOf(doc: TextDocument): ConfigCheck {
    const state = this.server.store.get(doc.uri);
    const cached = state?.check;
    if (cached && cached.version === doc.version) return cached.check;
    // The previous version's tree is patched when the edit only changed one scalar value.
    const check = this.server.services.config.check(doc.getText(), cached?.check.source);
    if (state) state.check = { version: doc.version, check };
    return check;
  }

  /** The check of an open document, or of the file on disk; undefined when it cannot be read. */
  checkForUri(uri: string): ConfigCheck | undefined {
    try {
      return this.checkOrThrow(uri);
    } catch {
      return undefined;
    }
  }

  /** The check of the open document or of the file on disk; throws, naming the file and why, when it cannot be read. */
  checkOrThrow(uri: string): ConfigCheck {
    const doc = this.server.documents.get(uri);
    if (doc) return this.checkOf(doc);
    const path = URI.parse(uri).fsPath;
    let text: string;
    try {
      text = this.server.services.readText(path);
    } catch (error) {
      throw new Error(`Cannot read ${path} (${errorMessage(error)}); check that the file exists and is readable.`);
    }
    return this.server.services.config.check(text);
  }

  /** The disk rules' findings while they belong to the config as it is now; never waits for them. */
  currentDiskFindings(uri: string, check: ConfigCheck): LocatedFinding[] {
    const disk = this.server.store.get(uri)?.disk;
    return disk && disk.key === diskKey(check) ? locateDiskFindings(check, disk.findings) : [];
  }

  /** Publishes the fast diagnostics of the document's version, then the disk rules' when they are on. */
  async publish(doc: TextDocument): Promise<void> {
    if (await this.publishOffThread(doc)) return;
    const check = this.checkOf(doc);
    await this.send(doc, check);
    const settings = await this.server.settings.get(doc.uri);
    if (settings.preflightDiskChecks) await this.refreshDisk(doc, check);
  }

  /** Runs every rule, the disk rules included, on the document now, publishes and returns the diagnostics. */
  async checkNow(uri: string): Promise<Diagnostic[]> {
    // An unreadable file fails the request with the reason, as a dataset's does, never "no problems".
    const check = this.checkOrThrow(uri);
    const diskFindings = check.config ? await this.server.services.config.checkDisk(check.config, this.server.workspace.baseDirOf(uri)) : [];
    const located = [...check.findings, ...locateDiskFindings(check, diskFindings)];
    const target = this.server.documents.get(uri) ?? TextDocument.create(uri, 'yaml', 0, check.source.text);
    const diagnostics = toDiagnostics(target, located);
    await this.server.connection.sendDiagnostics({ uri, diagnostics });
    return diagnostics;
  }

  /**
   * A large document that no feature has checked yet is checked on the worker thread, disk rules
   * included, and published when the check is still of the current version; false when the
   * document is checked here instead. Completion, hover and the other features still check it on
   * this thread when they are asked about it.
   */
  private async publishOffThread(doc: TextDocument): Promise<boolean> {
    const offThread = this.server.services.config.checkOffThread;
    const text = doc.getText();
    if (offThread === undefined || text.length < offThreadBytes || this.server.store.get(doc.uri)?.check?.version === doc.version) return false;
    const settings = await this.server.settings.get(doc.uri);
    const result = await offThread(doc.uri, text, { disk: settings.preflightDiskChecks, baseDir: this.server.workspace.baseDirOf(doc.uri) });
    if (result.kind === 'superseded' || this.server.documents.get(doc.uri)?.version !== doc.version) return true;
    await this.server.connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics: toDiagnostics(doc, result.findings) });
    return true;
  }

  private async send(doc: TextDocument, check: ConfigCheck): Promise<void> {
    const diagnostics = toDiagnostics(doc, [...check.findings, ...this.currentDiskFindings(doc.uri, check)]);
    await this.server.connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics });
  }

  private async refreshDisk(doc: TextDocument, check: ConfigCheck): Promise<void> {
    const key = diskKey(check);
    if (!check.config || this.server.store.get(doc.uri)?.disk?.key === key) return;
    const version = doc.version;
    const findings = await this.server.services.config.checkDisk(check.config, this.server.workspace.baseDirOf(doc.uri));
    // The document may have closed or changed while the rules ran. A closed one keeps nothing. A
    // newer version that is already checked is published again with the findings (they are dropped
    // there if the values they read changed); one not yet checked picks them up when it is.
    const state = this.server.store.get(doc.uri);
    if (!state) return;
    state.disk = { key, findings };
    const current = this.server.documents.get(doc.uri);
    if (!current) return;
    if (current.version === version) await this.send(current, check);
    else if (state.check?.version === current.version) await this.send(current, state.check.check);
  }
}
