/**
 * The preflight of a launch's tasks (declared in `protocol/taskPreflight.ts`): which tasks of the
 * files a rollout or an evaluation would run cannot run on its backend on this machine, each with
 * the reason opening its sandbox would give (`sandbox/taskReadiness.ts` applies the sandbox's own
 * rules). The Tasks view's pages ask the same question of each row (`readinessOf`).
 */
import { dirname } from 'node:path';
import {
  taskPreflightParamsSchema,
  taskPreflightRequest,
  type BlockedTask,
  type SandboxBackendName,
  type TaskPreflightResult,
  type TaskReadiness,
} from '../protocol/index.js';
import { liveEngine, taskReadiness, taskSource, type DockerEngineView, type SandboxError, type TaskSourceFields } from '../sandbox/index.js';
import { loadTasks } from '../tasks/index.js';
import { errorMessage } from '../util/errors.js';
import type { ServerContext } from './context.js';

/** One preflight's shared answers: the engine reached once, each Python environment looked up once. */
export interface PreflightScope {
  readonly engine: DockerEngineView;
  readonly envs: Map<string, Promise<SandboxError | undefined>>;
}

export function preflightScope(server: ServerContext): PreflightScope {
  return { engine: server.services.dockerEngine?.() ?? liveEngine(), envs: new Map() };
}

/** Where one task of `file` would run with `backend` (null: its own), and what stops it. */
export function readinessOf(
  scope: PreflightScope,
  file: string,
  taskId: string,
  box: TaskSourceFields,
  backend: SandboxBackendName | null,
): Promise<TaskReadiness> {
  return taskReadiness(taskSource(taskId, box, { backend: backend ?? undefined, baseDir: dirname(file) }), scope.engine, scope.envs);
}

export function registerTaskPreflight(server: ServerContext): void {
  server.connection.onRequest(taskPreflightRequest, async (raw: unknown): Promise<TaskPreflightResult> => {
    const params = taskPreflightParamsSchema.parse(raw);
    const scope = preflightScope(server);
    const wanted = new Set(params.tasks);
    const blocked: BlockedTask[] = [];
    const problems: string[] = [];
    let total = 0;
    for (const file of params.taskFiles) {
      let loaded;
      try {
        loaded = await loadTasks(file);
      } catch (error) {
        problems.push(`${file} cannot be read: ${errorMessage(error)}.`);
        continue;
      }
      // Invalid rows are the dataset diagnostics' to report; the launch's own preflight refuses them.
      if (loaded.problems.length > 0)
        problems.push(`${file} has ${loaded.problems.length} invalid row${loaded.problems.length === 1 ? '' : 's'}; the first: ${loaded.problems[0] ?? ''}`);
      const chosen = loaded.tasks.filter(({ task }) => wanted.size === 0 || wanted.has(task.task_id));
      total += chosen.length;
      const answers = await Promise.all(chosen.map(({ task }) => readinessOf(scope, file, task.task_id, task.sandbox, params.backend)));
      chosen.forEach(({ task, line }, i) => {
        const readiness = answers[i];
        // loadTasks counts lines from one; the protocol's lines are zero-based, as LSP's are.
        if (readiness?.problem != null) blocked.push({ taskId: task.task_id, file, line: line - 1, readiness });
      });
    }
    return { total, blocked, problems };
  });
}
