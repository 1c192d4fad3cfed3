/**
 * The Runs view's rows as tree items: a run (its state icon, its one line with the state and the
 * result first, its tooltip and the context value its menus match), a task of a run with its
 * attempts' outcomes, and an episode under its one name (`protocol/episodeName.ts`). The words are
 * `runsText.ts`'s; `runsView.ts` decides which rows there are.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import { episodeName } from '../../../server/src/protocol/episodeName.js';
import { viewCommands } from '../contributions.js';
import type { EpisodeSummary, RunSummary } from '../serverMessages.js';
import type { TrajectoryFork } from '../../../server/src/protocol/runs.js';
import {
  describeEpisode,
  describeEpisodeHost,
  describeForkRow,
  describeNodes,
  describeRun,
  describeTask,
  durationOf,
  episodeStateIcons,
  forkRowLabel,
  localTime,
  runIcon,
  runKindOf,
  runLabel,
  taskIcon,
  type TaskAttempts,
} from './runsText.js';

/**
 * A row of the Runs view: a run, a task of a run, an episode, a fork of an episode (a run shown
 * under the episode it continues), or a line saying why there is nothing. An episode under a fork
 * row has `underFork`, since the same episode is also under its run's own row and a tree's ids
 * are one per row.
 */
export type RunsNode =
  | { readonly kind: 'run'; readonly dir: string }
  | { readonly kind: 'task'; readonly dir: string; readonly taskId: string }
  | { readonly kind: 'episode'; readonly dir: string; readonly episodeId: string; readonly underFork: boolean }
  | { readonly kind: 'fork'; readonly dir: string }
  | { readonly kind: 'message'; readonly text: string };

export function runItem(run: RunSummary): vscode.TreeItem {
  const item = new vscode.TreeItem(runLabel(run.name, Date.now()), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = run.dir;
  runLook(item, run);
  item.description = describeRun(run, Date.now());
  return item;
}

/** A fork under the episode it continues: `fork from step 3`, its agent and its state; it opens to its own episodes as a run does. */
export function forkItem(run: RunSummary & { readonly fork: TrajectoryFork }): vscode.TreeItem {
  const item = new vscode.TreeItem(forkRowLabel(run.fork), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `fork\0${run.dir}`;
  runLook(item, run);
  item.description = describeForkRow(run, Date.now());
  return item;
}

/** What a run's row and a fork's row share: the icon, the tooltip and the context value the run menus match. */
function runLook(item: vscode.TreeItem, run: RunSummary): void {
  const icon = runIcon(run);
  item.iconPath = new vscode.ThemeIcon(icon.id, icon.color === undefined ? undefined : new vscode.ThemeColor(icon.color));
  item.tooltip = runTooltip(run);
  const flags = [
    `state-${run.state}`,
    run.relaunchable ? 'relaunchable' : '',
    run.relaunchable && run.state !== 'running' && run.state !== 'finished' ? 'resumable' : '',
    run.hasReport ? 'hasReport' : '',
    run.hasLog ? 'hasLog' : '',
    run.hasMetrics ? 'hasMetrics' : '',
  ].filter((f) => f !== '');
  item.contextValue = ['run', ...flags, run.fork === null ? '' : 'fork'].filter((f) => f !== '').join(' ');
  item.resourceUri = undefined;
}

/**
 * A model agent's run in one row: its own steps, its parse failures, what the fallback took, and
 * the resolved episodes it reached alone, so a rate a fallback padded never passes unsaid.
 */
function modelRow(m: NonNullable<RunSummary['model']>): string {
  const failed = Object.values(m.parse_failures).reduce((a, b) => a + b, 0);
  const fallback = m.fallback_enabled ? `, fallback took ${m.fallback_steps}` : ', fallback off';
  return `${m.model_steps} of ${m.steps} steps from its own replies, ${failed} of ${m.calls} replies failed to parse${fallback}; resolved by the model alone: ${m.resolved_by_model_alone}${m.resolved_with_fallback > 0 ? `, with the fallback: ${m.resolved_with_fallback}` : ''}`;
}

function runTooltip(run: RunSummary): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(
    `$(${runKindOf(run.kind).icon}) **${runLabel(run.name, Date.now())}** — ${runKindOf(run.kind).noun.toLowerCase()}, ${run.state}${run.stale ? ' (its process is gone)' : ''}\n\n`,
  );
  if (run.command !== null) md.appendCodeblock(run.command, 'shell');
  const rows: [string, string | null][] = [
    ['Fork of', run.fork === null ? null : `${run.fork.episode_id} at step ${run.fork.step} (steps before it replayed), ${run.fork.trajectory}`],
    ['Agent', run.agent],
    [
      'Episodes',
      run.episodes === null
        ? null
        : `${run.episodes.finished} of ${run.episodes.total} finished, ${run.episodes.resolved} resolved, ${run.episodes.errored} errored`,
    ],
    [
      'Backend',
      run.backend === null
        ? null
        : `docker ${run.backend.episodes.docker}, local ${run.backend.episodes.local}${run.backend.fallbacks.length > 0 ? ` (fell back: ${run.backend.fallbacks.map((f) => f.reason).join('; ')})` : ''}`,
    ],
    ['Model', run.model === null ? null : modelRow(run.model)],
    ['Ray nodes', describeNodes(run)],
    // A training run's metrics are TensorBoard event files too (runs/tensorboardEvents.ts).
    ['TensorBoard', run.hasMetrics ? `tensorboard --logdir ${join(run.dir, 'tensorboard')}` : null],
    // Local times, as the run's label gives its start (the files keep UTC).
    ['Started', localTime(run.startedAt)],
    ['Duration', durationOf(run, Date.now())],
    ['Ended', run.exitReason === null ? localTime(run.endedAt) : `${localTime(run.endedAt) ?? ''} — ${run.exitReason}`],
    ['Folder', run.dir],
  ];
  for (const [k, v] of rows) if (v !== null && v !== '') md.appendMarkdown(`${k}: ${v.replace(/[\\`*_{}[\]()#+\-.!|]/g, '\\$&')}  \n`);
  if (run.problem !== null) md.appendMarkdown(`\n$(warning) ${run.problem.replace(/[\\`*_{}[\]()#+\-.!|]/g, '\\$&')}`);
  return md;
}

export function taskItem(task: TaskAttempts, dir: string, tasksInRun: number): vscode.TreeItem {
  // The only task of a run opens with it: its row would otherwise be one more click to nothing new.
  const item = new vscode.TreeItem(task.taskId, tasksInRun === 1 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `${dir}\0task\0${task.taskId}`;
  const icon = taskIcon(task);
  item.iconPath = new vscode.ThemeIcon(icon.id, icon.color === undefined ? undefined : new vscode.ThemeColor(icon.color));
  item.description = describeTask(task);
  item.tooltip = `${task.taskId}: ${task.episodes.length} ${task.episodes.length === 1 ? 'attempt' : 'attempts'}, ${describeTask(task)}`;
  item.contextValue = 'task';
  return item;
}

/** An episode's row; one that has forks opens to them. */
export function episodeItem(ep: EpisodeSummary, node: RunsNode, forks: number): vscode.TreeItem {
  const name = episodeName(ep);
  const item = new vscode.TreeItem(name, forks > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  const underFork = node.kind === 'episode' && node.underFork;
  item.id = `${underFork ? 'fork\0' : ''}${node.kind === 'episode' ? node.dir : ''}\0${ep.episodeId}`;
  const icon = episodeStateIcons[ep.state];
  item.iconPath = new vscode.ThemeIcon(icon.id, icon.color === undefined ? undefined : new vscode.ThemeColor(icon.color));
  item.description = describeEpisode(ep);
  const host = describeEpisodeHost(ep);
  const forked = forks === 0 ? '' : `\n${forks === 1 ? 'a fork continues it' : `${forks} forks continue it`} (Continue from Here…)`;
  item.tooltip = `${name}: ${ep.state}${ep.terminationReason === null ? '' : ` (${ep.terminationReason})`}${host === null ? '' : `\n${host}`}${forked}\n${ep.trajectory}`;
  item.contextValue = 'episode';
  item.command = { command: viewCommands.episodeOpen.id, title: viewCommands.episodeOpen.title, arguments: [node] };
  return item;
}
