/**
 * The localisation recall of a run's episodes for its metrics page (protocol/codeGraphView.ts):
 * asked of the server when the page is ready and again, at most every half minute, while new
 * metrics arrive, since scoring reads every trajectory of the run.
 */
import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { LocalisationPageMessage } from '../../server/src/protocol/codeGraphView.js';
import { errorMessage } from './errors.js';
import { runLocalisation, sendRequest } from './serverMessages.js';

const minimumGapMs = 30_000;

export class MetricsLocalisation {
  private last = 0;
  private reading = false;

  constructor(
    private readonly client: LanguageClient,
    private readonly dir: string,
    private readonly webview: vscode.Webview,
    private readonly warn: (message: string) => void,
  ) {}

  /** Reads and posts the recall; unless `now`, only when the last read is old enough. */
  refresh(now: boolean): void {
    if (this.reading || (!now && Date.now() - this.last < minimumGapMs)) return;
    this.reading = true;
    this.last = Date.now();
    void sendRequest(this.client, runLocalisation, { dir: this.dir })
      .then((result) => this.webview.postMessage({ type: 'localisation', result } satisfies LocalisationPageMessage))
      .catch((error: unknown) => this.warn(`Localisation of ${this.dir}: ${errorMessage(error)}`))
      .finally(() => {
        this.reading = false;
      });
  }
}
