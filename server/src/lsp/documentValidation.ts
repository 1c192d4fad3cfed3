/**
 * Validates open documents by kind when the scheduler says so, and keeps a failing rule from taking
 * the server down: the failure goes to the output channel and the status bar instead.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import type { ServerContext } from './context.js';
import type { DatasetDiagnostics } from './datasetDiagnostics.js';
import type { ExperimentDiagnostics } from './experimentDiagnostics.js';

export class DocumentValidation {
  constructor(
    private readonly server: ServerContext,
    private readonly experiments: ExperimentDiagnostics,
    private readonly datasets: DatasetDiagnostics,
  ) {}

  /** Validates the open document after `delayMs` of quiet (at once for 0); a closed one is skipped. */
  schedule(uri: string, delayMs: number): void {
    const state = this.server.store.get(uri);
    if (!state) return;
    this.server.scheduler.schedule(state.schedule, delayMs, () => {
      const doc = this.server.documents.get(uri);
      if (doc) this.server.background(this.validate(doc));
    });
  }

  private async validate(doc: TextDocument): Promise<void> {
    const kind = await this.server.kindOf(doc.uri);
    try {
      if (kind === 'experiment') await this.experiments.publish(doc);
      else if (kind === 'dataset') await this.datasets.publish(doc);
    } catch (err) {
      if (this.server.isStopped) return;
      this.server.logFailure(`Validation of ${doc.uri} failed`, err);
      this.server.status('error', `Validation failed for ${URI.parse(doc.uri).fsPath}; see the output channel.`);
    }
  }
}
