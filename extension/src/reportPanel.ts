/**
 * A rollout's or an evaluation's report page (the Runs view's Open Report): the summary head, the
 * per-task table, the failure reasons grouped and the infrastructure failures apart, each episode a
 * link into the trajectory viewer. The server reads `report.json` and shapes it
 * (protocol/runReportView.ts); the page draws it. One panel per run; asking again reveals and
 * refreshes it. Messages from the page are validated, and it names episodes by their place in the
 * report it was given, so it can open only trajectories the report lists.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { ReportWebviewMessage } from '../../server/src/protocol/reportWebview.js';
import type { ReportPageMessage, RunReportResult } from '../../server/src/protocol/runReportView.js';
import { runReportViewType } from './contributions.js';
import type { ExtensionState } from './extensionState.js';
import { errorMessage } from './errors.js';
import { createRunPagePanel } from './runPagePanel.js';
import { runLabel } from './views/runsText.js';
import { runReport, sendRequest } from './serverMessages.js';
import { openTrajectoryAt } from './trajectoryEditor.js';
import { messageSchemas } from './messageSchemas.js';

const panels = new Map<string, ReportPanel>();

export function showRunReport(extensionState: ExtensionState, client: LanguageClient, run: { readonly dir: string; readonly name: string }): void {
  const open = panels.get(run.dir);
  if (open !== undefined) {
    open.reveal();
    return;
  }
  panels.set(run.dir, new ReportPanel(extensionState, client, run.dir, run.name));
}

/** Opens a run's raw `report.json`, the secondary action beside the page. */
export async function openReportJson(dir: string): Promise<void> {
  await vscode.window.showTextDocument(vscode.Uri.joinPath(vscode.Uri.file(dir), 'report.json'), { preview: true });
}

class ReportPanel {
  private readonly panel: vscode.WebviewPanel;
  /** The report the page was last given, whose episodes its messages name. */
  private shown: RunReportResult | undefined;

  constructor(
    private readonly extensionState: ExtensionState,
    private readonly client: LanguageClient,
    private readonly dir: string,
    name: string,
  ) {
    this.panel = createRunPagePanel(extensionState, {
      viewType: runReportViewType,
      title: `Report: ${runLabel(name, Date.now())}`,
      bundle: 'report.js',
      loading: 'Reading the run’s report…',
    });
    const webview = this.panel.webview;
    const subscription = webview.onDidReceiveMessage(
      (raw: unknown) =>
        void this.receive(raw).catch((error: unknown) => this.extensionState.log.error(`A message from the page failed: ${errorMessage(error)}`)),
    );
    this.panel.onDidDispose(() => {
      subscription.dispose();
      panels.delete(this.dir);
    });
  }

  reveal(): void {
    this.panel.reveal();
    void this.load();
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = (await messageSchemas()).reportWebviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.extensionState.log.warn(`Report page: ignored a message that is not one of the page's: ${JSON.stringify(raw).slice(0, 200)}`);
      return;
    }
    try {
      await this.handle(parsed.data);
    } catch (error) {
      this.extensionState.log.error(`Report of ${this.dir}: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(`Graph Planner: ${errorMessage(error)}`);
    }
  }

  private async handle(message: ReportWebviewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
      case 'refresh':
        await this.load();
        return;
      case 'openJson':
        await openReportJson(this.dir);
        return;
      case 'openEpisode': {
        const report = this.shown?.ok === true ? this.shown.report : undefined;
        const episode = report?.tasks.find((t) => t.taskId === message.taskId)?.episodes[message.index];
        if (episode !== undefined) await this.openTrajectory(episode.trajectory);
        return;
      }
      case 'openFailed': {
        const failed = this.shown?.ok === true ? this.shown.report.infrastructure[message.index] : undefined;
        if (failed !== undefined) await this.openTrajectory(failed.trajectory);
        return;
      }
    }
  }

  private async openTrajectory(path: string): Promise<void> {
    try {
      await vscode.workspace.fs.stat(vscode.Uri.file(path));
    } catch {
      void vscode.window.showWarningMessage(`Graph Planner: ${path} does not exist (the run folder was changed after its report was written).`);
      return;
    }
    await openTrajectoryAt(vscode.Uri.file(path), null, vscode.ViewColumn.Beside);
  }

  private async load(): Promise<void> {
    let result: RunReportResult;
    try {
      result = await sendRequest(this.client, runReport, { dir: this.dir });
    } catch (error) {
      result = { ok: false, message: `The language server could not read the report: ${errorMessage(error)}` };
    }
    this.shown = result;
    await this.panel.webview.postMessage({ type: 'report', result } satisfies ReportPageMessage);
  }
}
