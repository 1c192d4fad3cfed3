/**
 * The report's task table in the order a person asks for: a column and a direction. Empty cells
 * (a task with nothing graded has no reward, steps or time) stay last in both directions, so
 * sorting never puts blanks first. Pure, with no DOM, so it is tested in Node.
 */
import type { ReportTask } from '../../../server/src/protocol/runReportView.js';

const sortKeys = ['task', 'attempts', 'outcome', 'reward', 'steps', 'time', 'reason'] as const;
export type SortKey = (typeof sortKeys)[number];
export type SortDirection = 'ascending' | 'descending';
export interface TaskSort {
  readonly key: SortKey;
  readonly direction: SortDirection;
}

/** A cell's value to sort by; null for an empty cell. */
function value(task: ReportTask, key: SortKey): string | number | null {
  switch (key) {
    case 'task':
      return task.taskId;
    case 'attempts':
      return task.attempts;
    case 'outcome':
      // The share resolved, so `mixed` sits between resolved and unresolved by how mixed it is.
      return task.graded === 0 ? null : task.resolved / task.graded;
    case 'reward':
      return task.reward;
    case 'steps':
      return task.steps;
    case 'time':
      return task.durationMs;
    case 'reason':
      return task.failureReason;
  }
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** The tasks sorted (a new array); ties keep the report's order. */
export function sortTasks(tasks: readonly ReportTask[], sort: TaskSort): ReportTask[] {
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return tasks
    .map((task, at) => ({ task, at, v: value(task, sort.key) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.at - b.at : a.v === null ? 1 : -1;
      const order = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : collator.compare(String(a.v), String(b.v));
      return order === 0 ? a.at - b.at : sign * order;
    })
    .map((x) => x.task);
}

/** The sort after a click on a column's header: the same column flips, another starts ascending. */
export function nextSort(current: TaskSort | null, key: SortKey): TaskSort {
  return current?.key === key ? { key, direction: current.direction === 'ascending' ? 'descending' : 'ascending' } : { key, direction: 'ascending' };
}

/** The sort a page kept in its state (VS Code keeps it across a reload), or null when there is none or it is not one. */
export function parseSort(value: unknown): TaskSort | null {
  if (typeof value !== 'object' || value === null) return null;
  const { key, direction } = value as { key?: unknown; direction?: unknown };
  return sortKeys.some((k) => k === key) && (direction === 'ascending' || direction === 'descending') ? { key: key as SortKey, direction } : null;
}

/**
 * An id cut into the pieces a line may break between: after `__`, `-`, `/`, `.` and `#`, the
 * boundaries of SWE-bench ids (`django__django-11099`), paths and attempt numbers. The page puts a
 * break opportunity between the pieces, so an id wraps at a boundary and never mid-word.
 */
export function idPieces(id: string): string[] {
  return id.split(/(?<=__|[-/.#])(?!_)/).filter((p) => p !== '');
}
