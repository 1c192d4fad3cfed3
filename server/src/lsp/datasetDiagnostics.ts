/**
 * Diagnostics of dataset JSONL files: open documents through the editor, with each line's result
 * kept with the document, and files too large for the editor to synchronise from disk, with a
 * summary notification for each.
 */
import type { Diagnostic } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { datasetSummaryNotification, type DatasetSummary } from '../protocol/index.js';
import type { ServerContext } from './context.js';
import { classify } from './documentKind.js';
import { JsonlService } from './jsonlService.js';
import { scanLargeDatasets } from './largeDatasets.js';

export class DatasetDiagnostics {
  readonly jsonl: JsonlService;

  constructor(private readonly server: ServerContext) {
    this.jsonl = new JsonlService(server.services.datasets);
  }

  /** Validates an open document's current text, reusing the line results of its last validation. */
  validate(doc: TextDocument): Diagnostic[] {
    const state = this.server.store.get(doc.uri);
    const result = this.jsonl.validate(doc.uri, doc.getText(), state?.lines);
    if (state) state.lines = result.lines;
    return result.diagnostics;
  }

  async publish(doc: TextDocument): Promise<void> {
    await this.server.connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics: this.validate(doc) });
  }

  /** Validates the document now, from the editor when it is open and from disk otherwise, and publishes. */
  async checkNow(uri: string): Promise<Diagnostic[]> {
    const doc = this.server.documents.get(uri);
    const diagnostics = doc ? this.validate(doc) : (await this.jsonl.validateFile(URI.parse(uri).fsPath)).diagnostics;
    await this.server.connection.sendDiagnostics({ uri, diagnostics });
    return diagnostics;
  }

  /** Validates the dataset files of the workspace (or `paths`, when a watcher named them) too large for the editor. */
  async validateLargeFiles(paths?: readonly string[]): Promise<void> {
    const first = this.server.workspace.paths[0];
    const settings = await this.server.settings.get(first ? URI.file(first).toString() : '');
    const open = new Set(this.server.documents.all().map((d) => URI.parse(d.uri).fsPath));
    await scanLargeDatasets({
      roots: this.server.workspace.paths,
      paths,
      minBytes: settings.largeDatasetBytes,
      // Only files the dataset globs name: run folders hold JSONL too (events, metrics, trajectories).
      skip: (p) => open.has(p) || classify(p, settings) !== 'dataset',
      validate: (path) => this.validateFromDisk(path),
      log: (m) => this.server.connection.console.log(m),
    });
  }

  private async validateFromDisk(path: string): Promise<void> {
    const started = Date.now();
    const result = await this.jsonl.validateFile(path);
    const uri = URI.file(path).toString();
    await this.server.connection.sendDiagnostics({ uri, diagnostics: result.diagnostics });
    const summary: DatasetSummary = { uri, fromDisk: true, ...result.summary, durationMs: Date.now() - started };
    await this.server.connection.sendNotification(datasetSummaryNotification, summary);
  }
}
