/**
 * A run's episodes as `gp runs show` prints them: by task, each task's attempts in order, under the
 * one name the editor gives them (`protocol/episodeName.ts`). The episodes come from the run's
 * events (`runs/`'s `EpisodeFold`, which the Runs view reads too), so a running run lists its
 * episodes as far as they have gone.
 */
import { episodeName, groupByTask } from '../protocol/episodeName.js';
import type { EpisodeSummary } from '../protocol/runsView.js';
import { visibleText } from '../protocol/terminalText.js';
import { formatTable } from './containerCommands.js';

/** The most episode rows printed; a training run can have thousands, which `--json` lists. */
export const episodeRowLimit = 100;

function episodeRow(ep: EpisodeSummary, indent: boolean): string[] {
  const reason = ep.terminationReason !== null && ep.terminationReason !== 'submitted' && ep.terminationReason !== ep.state ? ` (${ep.terminationReason})` : '';
  return [
    `${indent ? '  ' : ''}${visibleText(episodeName(ep))}`,
    visibleText(`${ep.state}${reason}`),
    ep.steps === null ? '-' : String(ep.steps),
    ep.totalReward === null ? '-' : ep.totalReward.toFixed(2),
  ];
}

/**
 * `episodes by task:` then, for a task attempted more than once, a row with how many of its
 * attempts were resolved and its attempts indented under it; a row per episode gives its name,
 * result, steps and reward. Ids are printed with their control characters shown, never sent
 * (protocol/terminalText.ts): events are a file anyone may write.
 */
export function episodeLines(episodes: readonly EpisodeSummary[]): string[] {
  if (episodes.length === 0) return [];
  const rows: string[][] = [['EPISODE', 'RESULT', 'STEPS', 'REWARD']];
  let printed = 0;
  for (const task of groupByTask(episodes)) {
    const room = episodeRowLimit - printed;
    if (room <= 0) break;
    const grouped = task.episodes.length > 1;
    const resolved = task.episodes.filter((e) => e.state === 'resolved').length;
    if (grouped) rows.push([visibleText(task.taskId), `${resolved}/${task.episodes.length} resolved`, '', '']);
    for (const ep of task.episodes.slice(0, room)) rows.push(episodeRow(ep, grouped));
    printed += Math.min(task.episodes.length, room);
  }
  const left = episodes.length - printed;
  return [
    'episodes by task:',
    ...formatTable(rows).map((l) => `  ${l.trimEnd()}`),
    ...(left > 0 ? [`  … ${left} more (gp runs show --json lists every one)`] : []),
  ];
}
