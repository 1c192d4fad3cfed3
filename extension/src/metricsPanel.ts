/**
 * A training run's metrics page (from the Runs view): reward, resolved rate, response length, KL
 * and step time drawn against step or wall time, with TensorBoard's smoothing. The panel asks the
 * server for the lines of the run's `metrics.jsonl` after those it has, every two seconds while
 * the run is live and the panel visible, and hands the page only what is new. One panel per run;
 * asking again reveals it. Messages from the page are validated; it can only ask for the run log.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { MetricsPageMessage } from '../../server/src/protocol/metricsView.js';
import type { StepSamplesPageMessage } from '../../server/src/protocol/stepSamplesView.js';
import { runMetricsViewType } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { errorMessage } from './errors.js';
import { MetricsLocalisation } from './metricsLocalisation.js';
import { createRunPagePanel } from './runPagePanel.js';
import { runLabel } from './views/runsText.js';
import { runMetrics, sendRequest } from './serverMessages.js';
import { StepSamplesRelay } from './stepSamplesRelay.js';
import { messageSchemas } from './messageSchemas.js';

const pollMs = 2000;
const panels = new Map<string, MetricsPanel>();

/** `focusSamples` brings the page's sample table into view (the Runs view's Show Step Samples). */
export function showRunMetrics(
  extensionState: ExtensionState,
  client: LanguageClient,
  run: { readonly dir: string; readonly name: string },
  options: { readonly focusSamples?: boolean } = {},
): void {
  let panel = panels.get(run.dir);
  if (panel !== undefined) panel.reveal();
  else panels.set(run.dir, (panel = new MetricsPanel(extensionState, client, run.dir, run.name)));
  if (options.focusSamples === true) panel.focusSamples();
}

class MetricsPanel {
  private readonly panel: vscode.WebviewPanel;
  private nextByte = 0;
  private ready = false;
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  private live = true;
  /** The run state the page was last told, so a change of state alone is still posted. */
  private shownState: MetricsPageMessage['state'] | undefined;
  private readonly samples: StepSamplesRelay;
  /** Bring the sample table into view once the page is ready. */
  private wantSamples = false;
  private readonly localisation: MetricsLocalisation;

  constructor(
    private readonly extensionState: ExtensionState,
    private readonly client: LanguageClient,
    private readonly dir: string,
    name: string,
  ) {
    this.panel = createRunPagePanel(extensionState, {
      viewType: runMetricsViewType,
      title: `Metrics: ${runLabel(name, Date.now())}`,
      bundle: 'metrics.js',
      loading: 'Reading the run’s metrics…',
    });
    const webview = this.panel.webview;
    this.samples = new StepSamplesRelay(extensionState, client, dir, async (message: StepSamplesPageMessage) => {
      await this.panel.webview.postMessage(message);
    });
    this.localisation = new MetricsLocalisation(client, dir, webview, (m) => extensionState.log.warn(m));
    const subscriptions = [
      webview.onDidReceiveMessage(
        (raw: unknown) =>
          void this.receive(raw).catch((error: unknown) => this.extensionState.log.error(`A message from the page failed: ${errorMessage(error)}`)),
      ),
      this.panel.onDidChangeViewState(() => this.schedule()),
    ];
    this.panel.onDidDispose(() => {
      clearTimeout(this.timer);
      subscriptions.forEach((s) => s.dispose());
      panels.delete(this.dir);
    });
  }

  reveal(): void {
    this.panel.reveal();
  }

  focusSamples(): void {
    this.wantSamples = true;
    if (this.ready) this.postFocus();
  }

  private postFocus(): void {
    this.wantSamples = false;
    void this.panel.webview.postMessage({ type: 'focusStepSamples' } satisfies StepSamplesPageMessage);
  }

  private async receive(raw: unknown): Promise<void> {
    const { metricsWebviewMessageSchema, stepSamplesWebviewMessageSchema } = await messageSchemas();
    const parsed = metricsWebviewMessageSchema.safeParse(raw);
    const sample = parsed.success ? undefined : stepSamplesWebviewMessageSchema.safeParse(raw);
    if (sample?.success === true) {
      void this.samples.handle(sample.data).catch((error: unknown) => this.extensionState.log.error(`Step samples of ${this.dir}: ${errorMessage(error)}`));
      return;
    }
    if (!parsed.success) {
      this.extensionState.log.warn(`Metrics page: ignored a message that is not one of the page's: ${JSON.stringify(raw).slice(0, 200)}`);
      return;
    }
    if (parsed.data.type === 'ready') {
      // A reloaded page (it was hidden) starts empty: it gets everything again.
      this.ready = true;
      this.nextByte = 0;
      this.shownState = undefined;
      void this.poll(true);
      if (this.wantSamples) this.postFocus();
      this.localisation.refresh(true);
    } else {
      void vscode.window.showTextDocument(vscode.Uri.joinPath(vscode.Uri.file(this.dir), 'run.log'), { preview: true });
    }
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (!this.live || !this.panel.visible) return;
    this.timer = setTimeout(() => void this.poll(false), pollMs);
  }

  private async poll(reset: boolean): Promise<void> {
    if (this.reading || !this.ready) return;
    this.reading = true;
    try {
      const result = await sendRequest(this.client, runMetrics, { dir: this.dir, fromByte: this.nextByte });
      this.nextByte = result.nextByte;
      // One more read after the run has ended picks up the lines its last moments wrote.
      this.live = result.state === 'running' || result.lines.length > 0;
      const message: MetricsPageMessage = {
        type: 'metrics',
        run: result.name,
        state: result.state,
        lines: result.lines,
        reset: reset || result.reset,
        problems: result.problems,
      };
      if (reset || result.reset || result.lines.length > 0 || result.problems.length > 0 || this.shownState !== result.state) await this.post(message);
      if (!reset && result.lines.length > 0) this.localisation.refresh(false);
      if (result.problems.length > 0) this.extensionState.log.warn(`Metrics of ${this.dir}: ${result.problems.join('; ')}`);
    } catch (error) {
      this.extensionState.log.error(`Metrics of ${this.dir}: ${errorMessage(error)}`);
    } finally {
      this.reading = false;
      this.schedule();
    }
  }

  private async post(message: MetricsPageMessage): Promise<void> {
    this.shownState = message.state;
    await this.panel.webview.postMessage(message);
  }
}
