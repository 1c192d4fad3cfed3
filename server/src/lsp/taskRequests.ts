/**
 * The Tasks view's requests (declared in `protocol/tasksView.ts`): the dataset files the dataset
 * globs match with their task counts, then their tasks a page at a time with each task's latest
 * outcome and certification. Files are indexed once per version (`tasks/taskIndex.ts`), outcomes
 * are read incrementally from the run roots' events (`runs/taskOutcomes.ts`) and certifications
 * from their verifications' verdicts (`runs/taskCertifications.ts`), so paging reads no dataset
 * again and only what runs appended since the last page. A change to a dataset file on disk is
 * pushed as `tasks/changed`, once per burst.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { FileChangeType, ResponseError, type FileEvent } from 'vscode-languageserver';
import { URI } from 'vscode-uri';
import {
  taskFilesRequest,
  taskPageParamsSchema,
  taskPageRequest,
  tasksChangedNotification,
  type TaskFileSummary,
  type TaskFilesResult,
  type TaskItem,
  type TaskPageResult,
  type TasksChanged,
} from '../protocol/index.js';
import { TaskCertifications, TaskOutcomes, taskCertification } from '../runs/index.js';
import { TaskIndexCache, type IndexedTask } from '../tasks/index.js';
import { errorMessage } from '../util/errors.js';
import type { ServerContext } from './context.js';
import { classify } from './documentKind.js';
import { runRootsOf } from './runRoots.js';
import { preflightScope, readinessOf, type PreflightScope } from './taskPreflight.js';
import { findWorkspaceFiles } from './workspaceFiles.js';

/** Outcomes read this recently are used as they are by the next page; a file listing always reads them again. */
const outcomesMaxAgeMs = 2000;
/** File events within this window become one `tasks/changed` (a `gp dataset prepare` writes many files). */
const changedDelayMs = 200;
/** The request's error code for a file that cannot be read (JSON-RPC's range for server errors). */
const unreadableFile = -32001;

export interface TaskRequests {
  /** Dataset files changed on disk (the client's file watcher said so). */
  filesChanged(changes: readonly FileEvent[]): void;
}

export function registerTaskRequests(server: ServerContext): TaskRequests {
  const indexes = new TaskIndexCache();
  const outcomes = new FreshOutcomes(server);
  let changedTimer: NodeJS.Timeout | undefined;

  server.connection.onRequest(taskFilesRequest, async (): Promise<TaskFilesResult> => {
    const [files] = await Promise.all([datasetFiles(server), outcomes.read(0)]);
    const summaries: TaskFileSummary[] = [];
    for (const path of files) {
      try {
        const index = await indexes.get(path);
        summaries.push({ path, tasks: index.tasks.length, invalid: index.invalid });
      } catch (error) {
        // It went between the walk and the read, or cannot be read; the Problems panel says why when it is opened.
        server.connection.console.warn(`Tasks view: skipping ${path}: ${errorMessage(error)}`);
      }
    }
    return { files: summaries };
  });

  server.connection.onRequest(taskPageRequest, async (raw: unknown): Promise<TaskPageResult> => {
    const params = taskPageParamsSchema.parse(raw);
    const [page] = await Promise.all([
      indexes.page(params.path, params.offset, params.limit, params.filter).catch((error: unknown) => {
        throw new ResponseError(unreadableFile, `Cannot read the tasks of ${params.path}: ${errorMessage(error)}`);
      }),
      outcomes.read(outcomesMaxAgeMs),
    ]);
    // Each row says whether it can run here with its own backend: one engine and environment lookup per page.
    const scope = preflightScope(server);
    const tasks = await Promise.all(page.tasks.map((task) => itemOf(params.path, task, outcomes, scope)));
    return { tasks, matching: page.matching, next: page.next };
  });

  return {
    filesChanged(changes) {
      for (const change of changes) if (change.type === FileChangeType.Deleted) indexes.forget(URI.parse(change.uri).fsPath);
      if (changes.length === 0 || changedTimer !== undefined) return;
      changedTimer = setTimeout(() => {
        changedTimer = undefined;
        if (server.isStopped) return;
        const params: TasksChanged = { reason: 'dataset files changed on disk' };
        server.background(server.connection.sendNotification(tasksChangedNotification, params));
      }, changedDelayMs);
    },
  };
}

/** The dataset files of every workspace folder, by the dataset globs of that folder. */
async function datasetFiles(server: ServerContext): Promise<string[]> {
  const found: string[] = [];
  for (const folder of server.workspace.paths) {
    const settings = await server.settings.get(URI.file(folder).toString());
    found.push(
      ...(await findWorkspaceFiles(
        [folder],
        (name) => name.endsWith('.jsonl'),
        (path) => classify(path, settings) === 'dataset',
      )),
    );
  }
  return [...new Set(found)];
}

async function itemOf(file: string, task: IndexedTask, runs: FreshOutcomes, scope: PreflightScope): Promise<TaskItem> {
  const latest = runs.tasks.latest(task.taskId);
  const instance = task.instance === null ? null : isAbsolute(task.instance) ? task.instance : resolve(dirname(file), task.instance);
  return {
    taskId: task.taskId,
    line: task.line,
    title: task.title,
    repo: task.repo,
    image: task.image,
    localRepo: task.localRepo,
    // At most one page of checks, and only for tasks that name a file.
    instanceFile: instance !== null && existsSync(instance) ? instance : null,
    outcome: latest?.outcome ?? 'never',
    outcomeRun: latest?.run ?? null,
    certification: taskCertification(runs.certifications.latest(file, task.taskId), task.certification),
    readiness: await readinessOf(scope, file, task.taskId, task.source, null),
  };
}

/**
 * The task outcomes and certifications of the workspace's run roots, read again when older than a
 * request allows; requests that arrive while a read is in flight share it.
 */
class FreshOutcomes {
  readonly tasks = new TaskOutcomes();
  readonly certifications = new TaskCertifications();
  private last: { readonly at: number; readonly done: Promise<void> } | undefined;
  private inFlight = false;
  /** Problems already logged: a run that stays unreadable is reported once, not on every page. */
  private readonly logged = new Set<string>();

  constructor(private readonly server: ServerContext) {}

  read(maxAgeMs: number): Promise<void> {
    const now = Date.now();
    if (this.last !== undefined && (this.inFlight || now - this.last.at < maxAgeMs)) return this.last.done;
    this.inFlight = true;
    const done = this.refresh().finally(() => {
      this.inFlight = false;
    });
    this.last = { at: now, done };
    return done;
  }

  private async refresh(): Promise<void> {
    try {
      const roots = await runRootsOf(this.server);
      const paths = roots.map((r) => r.path);
      const [outcomes, certifications] = await Promise.all([this.tasks.refresh(paths), this.certifications.refresh(paths)]);
      for (const problem of [...outcomes.problems, ...certifications.problems]) {
        if (this.logged.has(problem)) continue;
        this.logged.add(problem);
        this.server.connection.console.warn(`Task outcomes: ${problem}`);
      }
    } catch (error) {
      // The view still lists the tasks; their outcomes show as never run until a read succeeds.
      this.server.logFailure('Reading task outcomes failed', error);
    }
  }
}
