/**
 * The status bar items: the server's health (clicking it shows the output channel), and the runs
 * that are live (clicking it shows the Runs view).
 */
import * as vscode from 'vscode';
import { commandIds, viewIds } from './contributions.js';
import { liveRunsStatus } from './notices.js';
import { statusView, type ServerHealth } from './serverHealth.js';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private current: ServerHealth = { kind: 'stopped' };

  constructor() {
    this.item = vscode.window.createStatusBarItem('graphPlanner.status', vscode.StatusBarAlignment.Left);
    this.item.name = 'Graph Planner';
    this.item.command = commandIds.showOutput;
  }

  get health(): ServerHealth {
    return this.current;
  }

  show(health: ServerHealth): void {
    this.current = health;
    const view = statusView(health);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.accessibilityInformation = { label: view.tooltip };
    this.item.backgroundColor = view.background === undefined ? undefined : new vscode.ThemeColor(`statusBarItem.${view.background}Background`);
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

/**
 * The status bar item of the runs that are live: how many, their names in the tooltip; clicking it
 * shows the Runs view. Hidden while none runs, so an idle window shows only the server's item.
 */
export class LiveRunsStatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('graphPlanner.liveRuns', vscode.StatusBarAlignment.Left);
    this.item.name = 'Graph Planner Runs';
    this.item.command = `${viewIds.runs}.focus`;
  }

  show(names: readonly string[]): void {
    const view = liveRunsStatus(names);
    if (view === undefined) {
      this.item.hide();
      return;
    }
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.accessibilityInformation = { label: view.tooltip };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
