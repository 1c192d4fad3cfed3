/**
 * The tasks a rollout or an evaluation runs, read from its task files: every file loaded with its
 * problems (file:line:col), episode ids checked for uniqueness across files, then `--task` and
 * `--limit` applied, and the chosen tasks' host mounts checked against the roots the user allowed.
 * The commands print what comes back; nothing here writes to a terminal.
 */
import { dirname, resolve } from 'node:path';
import type { PlannedTask } from '../rollout/index.js';
import { listRuns, type RunListing } from '../runs/index.js';
import { normaliseMounts, refusedMounts } from '../sandbox/index.js';
import { loadTasks, taskFileProblem } from '../tasks/index.js';
import { visibleLine } from '../protocol/terminalText.js';

export interface TaskSelection {
  /** The task files as the person named them (messages use these names). */
  readonly files: readonly string[];
  /** `--task` ids; empty means every task. */
  readonly taskIds: readonly string[];
  readonly limit: number | undefined;
  readonly cwd: string;
  /** The command, for messages (`gp rollout`). */
  readonly command: string;
  /**
   * `sandbox.allowed_mount_roots`: a task that mounts a host folder outside them is refused here,
   * with its line, so the whole launch is refused before any sandbox opens.
   */
  readonly allowedMountRoots: readonly string[];
}

export type LoadedTasks = { readonly ok: true; readonly tasks: PlannedTask[] } | { readonly ok: false; readonly problems: string[] };

export async function loadRolloutTasks(selection: TaskSelection): Promise<LoadedTasks> {
  const all: PlannedTask[] = [];
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const file of selection.files) {
    const path = resolve(selection.cwd, file);
    const problem = taskFileProblem(path, file);
    if (problem !== undefined) {
      problems.push(problem);
      continue;
    }
    const loaded = await loadTasks(path);
    problems.push(...loaded.problems.map((m) => (m.startsWith(path) ? file + m.slice(path.length) : m)));
    for (const { task, line } of loaded.tasks) {
      const source = `${file}:${line}`;
      const first = seen.get(task.task_id);
      if (first !== undefined) problems.push(`${source}:1 task_id ${task.task_id} is already used at ${first}; episode ids must be unique.`);
      else seen.set(task.task_id, source);
      all.push({ task, baseDir: dirname(path), source });
    }
  }
  const unknown = selection.taskIds.filter((id) => !seen.has(id));
  if (unknown.length > 0) problems.push(`${selection.command}: no task ${unknown.join(', ')} in ${selection.files.join(', ')}.`);
  if (problems.length > 0) return { ok: false, problems };
  const chosen = selection.taskIds.length === 0 ? all : all.filter((t) => selection.taskIds.includes(t.task.task_id));
  const limited = selection.limit === undefined ? chosen : chosen.slice(0, selection.limit);
  if (limited.length === 0) return { ok: false, problems: [`${selection.command}: ${selection.files.join(', ')} has no tasks to run.`] };
  const refused = limited.flatMap(({ task, baseDir, source }) =>
    refusedMounts(normaliseMounts(task.sandbox.mounts, baseDir), selection.allowedMountRoots).map(
      (r) => `${source}:1 task ${visibleLine(task.task_id)}: ${r.reason}.`,
    ),
  );
  if (refused.length > 0) return { ok: false, problems: refused };
  return { ok: true, tasks: limited };
}

/** The newest run under `outputDir` that `command` started and that did not finish, for `--resume`. */
export async function newestUnfinishedRun(outputDir: string, command: string): Promise<RunListing | undefined> {
  const candidates = (await listRuns(outputDir)).filter(
    (r) => r.status !== undefined && r.status.state !== 'finished' && r.status.command.startsWith(`${command} `),
  );
  return candidates[0];
}
