/**
 * The live runs where a person looks without opening anything (issue 27): a badge on the Runs
 * view, which the activity bar shows on the Graph Planner icon, and a status bar item; both count
 * the running runs, and both go when none runs.
 */
import * as vscode from 'vscode';
import type { LiveRuns } from './liveRuns.js';
import { LiveRunsStatusItem } from './statusBar.js';

/** Where the badge goes: the Runs view's tree (views/runsView.ts sets it on its TreeView). */
export interface BadgeTarget {
  setBadge(badge: vscode.ViewBadge | undefined): void;
}

export function registerRunsBadge(live: LiveRuns, target: BadgeTarget): vscode.Disposable {
  const item = new LiveRunsStatusItem();
  const show = () => {
    const runs = live.runs;
    item.show(runs.map((r) => r.name));
    target.setBadge(runs.length === 0 ? undefined : { value: runs.length, tooltip: runs.length === 1 ? `1 run running: ${runs[0]?.name ?? ''}` : `${runs.length} runs running` });
  };
  show();
  return vscode.Disposable.from(item, live.onDidChange(show));
}
