/**
 * The preflight of a launch's tasks (extension → server, issue 27): before a rollout or an
 * evaluation starts, which of its tasks cannot run on the chosen backend on this machine, and why.
 * The server decides with the rules that open a sandbox (`server/src/sandbox/taskReadiness.ts`);
 * the launch review list counts and names the tasks, and the Tasks view marks each row with the
 * same answer (`TaskItem.readiness` in `tasksView.ts`).
 */
import { z } from 'zod';
import { openedBackendSchema, sandboxBackendSchema } from './sandbox.js';

/**
 * Why a task cannot run: it names neither an image nor a local repository; the docker backend and
 * no image, no daemon, or an image the engine does not hold; the local backend and no local
 * repository, a repository that is not on this machine, or a Python environment not built.
 */
export const readinessCodeSchema = z.enum([
  'no-source',
  'no-image',
  'daemon-unreachable',
  'image-missing',
  'no-local-repo',
  'local-repo-missing',
  'env-not-built',
]);
export type ReadinessCode = z.infer<typeof readinessCodeSchema>;

/** Where a task would run on this machine, whether its image is there, and what stops it. */
export const taskReadinessSchema = z.object({
  /** The backend it would run on (`auto` decided as a sandbox decides it); null when none can be chosen. */
  backend: openedBackendSchema.nullable(),
  /** Whether the Docker engine holds its image; null when it names none or no engine answers. */
  imagePresent: z.boolean().nullable(),
  /** What stops it there, in the words opening its sandbox would use; null when it can run. */
  problem: z.object({ code: readinessCodeSchema, reason: z.string() }).nullable(),
});
export type TaskReadiness = z.infer<typeof taskReadinessSchema>;

/** Client → server request: the preflight of a launch's tasks, starting nothing. */
export const taskPreflightRequest = 'graphPlanner/tasks/preflight';
export const taskPreflightParamsSchema = z.object({
  /** Absolute paths of the task files (JSONL). */
  taskFiles: z.array(z.string()).min(1),
  /** Only these task ids (empty: every task of the files). */
  tasks: z.array(z.string()).default([]),
  /** The backend the run will use (`--backend` or the config's `sandbox.backend`); null: each task's own. */
  backend: sandboxBackendSchema.nullable(),
});
export type TaskPreflightParams = z.infer<typeof taskPreflightParamsSchema>;

/** A task that cannot run, with its place. */
export const blockedTaskSchema = z.object({
  taskId: z.string(),
  /** Absolute path of its file and its zero-based line. */
  file: z.string(),
  line: z.number().int(),
  readiness: taskReadinessSchema,
});
export type BlockedTask = z.infer<typeof blockedTaskSchema>;

export const taskPreflightResultSchema = z.object({
  /** Tasks the launch would run. */
  total: z.number().int(),
  /** Those that cannot run, in file order. */
  blocked: z.array(blockedTaskSchema),
  /** Files that could not be read, each as a sentence; their tasks are not counted. */
  problems: z.array(z.string()),
});
export type TaskPreflightResult = z.infer<typeof taskPreflightResultSchema>;
