/**
 * The live runs where a person looks without opening anything (issue 27): a badge on the Runs
 * view, which the activity bar shows on the Graph Planner icon, and a status bar item; both count
 * the running runs, and both go when none runs.
 */
import * as vscode from 'vscode';
import type { LiveRuns } from './liveRuns.js';
import { LiveRunsStatusItem } from './statusBar.js';
import { runTitle } from './views/runsText.js';

/** Where the badge goes: the Runs view's tree (views/runsView.ts sets it on its TreeView). */
export interface BadgeTarget {
  setBadge(badge: vscode.ViewBadge | undefined): void;
}

export function registerRunsBadge(live: LiveRuns, target: BadgeTarget): vscode.Disposable {
  const item = new LiveRunsStatusItem();
  const show = () => {
    const runs = live.runs;
    // Each run under its one name, as its row, its progress and its end notice say it.
    const names = runs.map((r) => runTitle(r, Date.now()));
    item.show(names);
    target.setBadge(
      runs.length === 0 ? undefined : { value: runs.length, tooltip: runs.length === 1 ? `1 run running: ${names[0] ?? ''}` : `${runs.length} runs running` },
    );
  };
  show();
  return vscode.Disposable.from(item, live.onDidChange(show));
}
