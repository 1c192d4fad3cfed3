/**
 * The webview panel a run's page lives in (the metrics page, the report page): scripts on, command
 * links off, resources only from `dist/`, and the strict-CSP page of webviewHtml.ts loading the
 * page's bundle. One definition, so every run page gets the same restrictions.
 */
import * as vscode from 'vscode';
import type { ExtensionState } from './extensionState.js';
import { newNonce, webviewHtml } from './webviewHtml.js';

export interface RunPageOptions {
  /** The panel's view type, as contributions.ts declares it. */
  readonly viewType: string;
  /** The tab's title, also the page's. */
  readonly title: string;
  /** The page's bundle under `dist/`, e.g. `report.js`. */
  readonly bundle: string;
  /** What the page says until its first message arrives. */
  readonly loading: string;
}

export function createRunPagePanel(extensionState: ExtensionState, options: RunPageOptions): vscode.WebviewPanel {
  const dist = vscode.Uri.joinPath(extensionState.extension.extensionUri, 'dist');
  const panel = vscode.window.createWebviewPanel(options.viewType, options.title, vscode.ViewColumn.Active, {
    enableScripts: true,
    enableCommandUris: false,
    retainContextWhenHidden: false,
    localResourceRoots: [dist],
  });
  const webview = panel.webview;
  webview.html = webviewHtml({
    cspSource: webview.cspSource,
    nonce: newNonce(),
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, options.bundle)).toString(),
    title: options.title,
    loading: options.loading,
  });
  return panel;
}
