/**
 * A dataset file's tasks as an index that the Tasks view pages through. The file is read once per
 * version (size, modification time and inode) as a stream of lines, each line checked by the same
 * `validateLine` and `DatasetCheck` that the dataset diagnostics use, so the view counts exactly
 * the tasks and invalid lines the Problems panel reports; a later page, or a page with a filter,
 * reads nothing from the disk. An index keeps a few short fields per task, not the tasks.
 */
import type { Stats } from 'node:fs';
import type { Certification } from '../protocol/verify.js';
import { visibleLine } from '../protocol/terminalText.js';
import { stat } from 'node:fs/promises';
import { DatasetCheck } from './jsonl.js';
import { maxLineBytes, readFileLines } from './jsonlFile.js';
import { validateLine } from './lineValidator.js';
import { normalizeTask } from './normalize.js';
import { taskSandboxSchema, type TaskEntry, type TaskEntryInput } from './schema.js';

/** What the view shows of one task; the rest stays in the file. */
export interface IndexedTask {
  readonly taskId: string;
  /** Zero-based line of the task in its file. */
  readonly line: number;
  /** The issue's title on one line (`taskTitle`), or null. */
  readonly title: string | null;
  readonly repo: string | null;
  readonly image: string | null;
  readonly localRepo: string | null;
  /** `sandbox.r2e_ds_json` as written: relative to the file's folder, or absolute. */
  readonly instance: string | null;
  /** The certification a certified dataset's row carries (`gp dataset verify --out`). */
  readonly certification: Certification | null;
  /** What says where it can run (its backend, image, local repository and Python environment), for the view's preflight. */
  readonly source: Pick<TaskEntry['sandbox'], 'backend' | 'docker_image' | 'local_repo' | 'python_env'>;
}

/** Titles longer than this are cut with an ellipsis: a tree row shows about this much. */
const titleLength = 120;

/**
 * A task's issue title as one line a person can read anywhere: `issue.title`, else the first
 * non-blank line of its body (SWE-bench's problem statement), control characters shown as escapes
 * so it cannot act on a terminal or reorder a row, cut to `titleLength`.
 */
export function taskTitle(
  issue: { readonly title?: string | undefined; readonly body?: string | undefined; readonly description?: string | undefined } | undefined,
): string | null {
  const text =
    issue?.title?.trim() ||
    (issue?.body ?? issue?.description ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '');
  if (text === undefined || text === '') return null;
  const line = visibleLine(text.replace(/\s+/g, ' '));
  return line.length > titleLength ? `${line.slice(0, titleLength - 1).trimEnd()}…` : line;
}

export interface TaskFileIndex {
  readonly path: string;
  /** The file version it was read from: size, modification time and inode. */
  readonly version: string;
  readonly tasks: readonly IndexedTask[];
  /** Lines with something on them that are not valid tasks; a file that is not text counts as one. */
  readonly invalid: number;
}

export interface TaskPage {
  readonly tasks: readonly IndexedTask[];
  /** Tasks matching the filter in the whole file. */
  readonly matching: number;
  /** The offset of the next page, or null at the end. */
  readonly next: number | null;
}

function versionOf(s: Stats): string {
  return `${s.size}:${s.mtimeMs}:${s.ino}`;
}

/** Reads `path` line by line into an index; rejects when it cannot be read. */
export async function indexTaskFile(path: string, version: string, limit = maxLineBytes): Promise<TaskFileIndex> {
  const tasks: IndexedTask[] = [];
  const check = new DatasetCheck();
  let content = 0;
  const read = await readFileLines(path, limit, {
    line: (line, text, validUtf8) => {
      const result = validateLine(text, { validUtf8 });
      if (result.kind === 'blank') return;
      content++;
      // A task is an entry without an error, a duplicate id (which the check adds) included.
      const findings = check.add(line, text, result);
      if (result.kind === 'entry' && !findings.some((f) => f.severity === 'error')) tasks.push(indexed(text, line));
    },
    // A line too long to validate is an invalid line, as the diagnostics report it.
    tooLong: () => content++,
  });
  if (read.kind === 'not-text') return { path, version, tasks: [], invalid: 1 };
  return { path, version, tasks, invalid: content - tasks.length };
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The view's fields of a line that `validateLine` accepted as a task. */
function indexed(line: string, at: number): IndexedTask {
  const json = line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
  // validateLine found no error on this line, so its normalised value passed the compiled task
  // schema: it is a task entry as written in a file.
  const task = normalizeTask(JSON.parse(json)).value as TaskEntryInput;
  const box = task.sandbox;
  // The block passed the task schema; only a Python environment is parsed again, for its defaults
  // (most tasks have none, and a parse per row would slow the index of a large file).
  const pythonEnv = box.python_env === undefined ? undefined : taskSandboxSchema.shape.python_env.parse(box.python_env);
  return {
    taskId: task.task_id,
    line: at,
    title: taskTitle(task.issue),
    repo: stringOrNull(task.repo),
    image: stringOrNull(task.sandbox.docker_image),
    localRepo: stringOrNull(task.sandbox.local_repo),
    instance: stringOrNull(task.sandbox.r2e_ds_json),
    certification: task.certification ?? null,
    source: {
      // The schema's default.
      backend: box.backend ?? 'auto',
      ...(box.docker_image === undefined ? {} : { docker_image: box.docker_image }),
      ...(box.local_repo === undefined ? {} : { local_repo: box.local_repo }),
      ...(pythonEnv === undefined ? {} : { python_env: pythonEnv }),
    },
  };
}

/** Whether a task's id or repository contains `needle` (already lower case). */
function matches(task: IndexedTask, needle: string): boolean {
  return task.taskId.toLowerCase().includes(needle) || (task.repo?.toLowerCase().includes(needle) ?? false);
}

interface Entry {
  readonly version: string;
  readonly index: Promise<TaskFileIndex>;
  /** The tasks of the last filter asked for, so paging through a filtered list filters once. */
  filtered?: { readonly needle: string; readonly tasks: readonly IndexedTask[] };
}

/**
 * The indexes of the dataset files the view has asked for, each kept while its file is unchanged.
 * Requests for a file whose index is being built wait for that build instead of starting another.
 */
export class TaskIndexCache {
  private readonly entries = new Map<string, Entry>();
  /** How many times a file was read; a page served from the index does not read. */
  builds = 0;

  constructor(private readonly capacity = 32) {}

  /** The index of the file as it is on disk now; rejects when it cannot be read. */
  async get(path: string): Promise<TaskFileIndex> {
    return (await this.entry(path)).index;
  }

  /** One page of the file's tasks, optionally only those whose id or repository contains `filter` (any case). */
  async page(path: string, offset: number, limit: number, filter: string | null): Promise<TaskPage> {
    const entry = await this.entry(path);
    const index = await entry.index;
    const needle = filter?.trim().toLowerCase() ?? '';
    let tasks = index.tasks;
    if (needle !== '') {
      if (entry.filtered?.needle !== needle) entry.filtered = { needle, tasks: index.tasks.filter((t) => matches(t, needle)) };
      tasks = entry.filtered.tasks;
    }
    const end = offset + limit;
    return { tasks: tasks.slice(offset, end), matching: tasks.length, next: end < tasks.length ? end : null };
  }

  /** Drops a file's index (the file was deleted). */
  forget(path: string): void {
    this.entries.delete(path);
  }

  private async entry(path: string): Promise<Entry> {
    const version = versionOf(await stat(path));
    const known = this.entries.get(path);
    // Re-inserting keeps the map in order of use, so the oldest entry is the first.
    this.entries.delete(path);
    if (known?.version === version) {
      this.entries.set(path, known);
      return known;
    }
    this.builds++;
    const entry: Entry = { version, index: indexTaskFile(path, version) };
    this.entries.set(path, entry);
    entry.index.catch(() => {
      if (this.entries.get(path) === entry) this.entries.delete(path);
    });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.capacity) break;
      this.entries.delete(oldest);
    }
    return entry;
  }
}
