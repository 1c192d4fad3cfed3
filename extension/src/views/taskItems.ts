/**
 * What the Tasks view shows of a dataset file and of a task, and the `gp task test` command line
 * it types into a terminal. Pure functions without `vscode`, so their wording, the context values
 * the menus match and the quoting are unit-tested.
 */
import type { TaskFileSummary, TaskItem } from '../serverMessages.js';
import { visibleLine } from '../../../server/src/protocol/terminalText.js';

/** Tasks fetched per request: a 5,000-task file shows its first 500 and a "Load more…" item. */
export const taskPageSize = 500;

const numbers = new Intl.NumberFormat('en-US');

function count(n: number, noun: string): string {
  return `${numbers.format(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** The file node's description: its tasks (those matching the filter, when one is set) and its invalid lines. */
export function fileDescription(file: TaskFileSummary, matching: number | null): string {
  const tasks = matching === null ? count(file.tasks, 'task') : `${numbers.format(matching)} of ${count(file.tasks, 'task')}`;
  return file.invalid > 0 ? `${tasks} · ${numbers.format(file.invalid)} invalid` : tasks;
}

export function fileTooltip(file: TaskFileSummary): string {
  const invalid = file.invalid > 0 ? `\n${count(file.invalid, 'line')} that are not valid tasks; open the file to see them in the Problems panel.` : '';
  return `${file.path}\n${count(file.tasks, 'task')}${invalid}`;
}

/**
 * The item's context value, which the menus of `package.json` match: `task` first, then
 * `hasInstance` when the task names an instance file that exists, then its outcome.
 */
export function taskContextValue(item: TaskItem): string {
  return ['task', ...(item.instanceFile === null ? [] : ['hasInstance']), `outcome-${item.outcome}`].join(' ');
}

export const fileContextValue = 'taskFile';

/** Where the task runs: its repository and image, or the local repository it mounts. */
export function taskDescription(item: TaskItem): string {
  const where = item.image ?? (item.localRepo === null ? null : `local ${item.localRepo}`);
  return [item.repo, where].filter((part): part is string => part !== null).join(' · ');
}

export const outcomeLabels: Record<TaskItem['outcome'], string> = {
  resolved: 'resolved',
  unresolved: 'not resolved',
  error: 'ended with an error',
  never: 'never run',
};

/** The codicon and theme colour of each outcome (the Testing view's colours). */
export const outcomeIcons: Record<TaskItem['outcome'], { readonly id: string; readonly color: string }> = {
  resolved: { id: 'pass', color: 'testing.iconPassed' },
  unresolved: { id: 'error', color: 'testing.iconFailed' },
  error: { id: 'warning', color: 'testing.iconErrored' },
  never: { id: 'circle-large-outline', color: 'testing.iconUnset' },
};

/** Markdown with every character that could start markup escaped. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

/** The tooltip of a task, as Markdown. `file` is the dataset file as the person sees it (workspace-relative). */
export function taskTooltip(item: TaskItem, file: string): string {
  const rows: [string, string | null][] = [
    ['Line', `${file}:${item.line + 1}`],
    ['Repository', item.repo],
    ['Image', item.image],
    ['Local repository', item.localRepo],
    ['Instance file', item.instanceFile],
    ['Latest outcome', item.outcomeRun === null ? outcomeLabels[item.outcome] : `${outcomeLabels[item.outcome]} in ${item.outcomeRun}`],
  ];
  const lines = rows.filter((row): row is [string, string] => row[1] !== null).map(([name, value]) => `${name}: ${escapeMarkdown(value)}`);
  return [`**${escapeMarkdown(item.taskId)}**`, '', ...lines].join('  \n');
}

/** What the view says while a filter is set. */
export function filterMessage(filter: string, matchingFiles: number, files: number): string {
  if (files === 0) return `No dataset file to filter.`;
  return matchingFiles === 0
    ? `No task's id or repository contains "${filter}".`
    : `Tasks whose id or repository contains "${filter}" (in ${count(matchingFiles, 'file')} of ${numbers.format(files)}).`;
}

export interface TaskTestCommand {
  readonly file: string;
  readonly taskId: string;
  readonly patch: string | null;
}

/** `gp task test FILE --task ID [--patch DIFF]` as the terminal runs it. */
export function taskTestArgs(command: TaskTestCommand): string[] {
  return ['task', 'test', command.file, '--task', command.taskId, ...(command.patch === null ? [] : ['--patch', command.patch])];
}

/** The terminal of a task's test runs, one per task. */
export function taskTerminalName(taskId: string): string {
  return `gp task test ${visibleLine(taskId)}`;
}

/** The part of a `runs/changed` push that says whether episodes ended. */
export interface RunsChange {
  readonly changed: readonly { readonly dir: string; readonly episodes: { readonly finished: number } | null }[];
  readonly removed: readonly string[];
}

/**
 * How many episodes each run has finished, to tell a `runs/changed` that may move a task's latest
 * outcome (an episode ended, a run was deleted) from mere progress (a step, an episode starting).
 */
export class FinishedEpisodes {
  private readonly finished = new Map<string, number>();

  /** Records the change; true when it ended an episode or removed a run. */
  update(change: RunsChange): boolean {
    let moved = false;
    for (const dir of change.removed) moved = this.finished.delete(dir) || moved;
    for (const run of change.changed) {
      const now = run.episodes?.finished ?? 0;
      if (now !== (this.finished.get(run.dir) ?? 0)) moved = true;
      this.finished.set(run.dir, now);
    }
    return moved;
  }
}
