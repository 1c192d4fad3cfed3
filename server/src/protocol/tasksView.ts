/**
 * The Tasks view's messages (extension ↔ server): the dataset files the dataset globs match, then
 * their tasks a page at a time (so a 5,000-task file expands without blocking), each with its
 * latest outcome in any run under the workspace's run roots and its certification (the latest
 * `gp dataset verify` of the file, or the row's own `certification`).
 */
import { z } from 'zod';
import { taskReadinessSchema } from './taskPreflight.js';
import { verdictStatusSchema } from './verify.js';

/** The latest outcome of a task in any run of the workspace. */
export const taskOutcomeSchema = z.enum(['resolved', 'unresolved', 'error', 'never']);
export type TaskOutcome = z.infer<typeof taskOutcomeSchema>;

export const taskFileSummarySchema = z.object({
  /** Absolute path. */
  path: z.string(),
  tasks: z.number().int(),
  /** Lines that are not valid tasks; they are listed in the Problems panel when the file is open. */
  invalid: z.number().int(),
});
export type TaskFileSummary = z.infer<typeof taskFileSummarySchema>;

/**
 * A task's certification as the view shows it: the latest verdict of a verification run that
 * covered the task's file (`verdicts.jsonl` under the run roots), or the `certification` a
 * certified dataset's row carries, whichever is later.
 */
export const taskCertificationSchema = z.object({
  status: verdictStatusSchema,
  /** `verification`: a run folder's verdict; `row`: the row's own `certification` field. */
  source: z.enum(['verification', 'row']),
  /** Why, in a sentence, for every status but `certified`. */
  reason: z.string().nullable(),
  /** Tests whose outcome changed between identical runs (left out of grading in a certified dataset). */
  flaky: z.array(z.string()),
  /** Tests that did not pass with the gold patch (`gold-fails`). */
  failing: z.array(z.string()),
  /** FAIL_TO_PASS tests that already pass with no patch. */
  passingWithoutFix: z.array(z.string()),
  repeats: z.number().int().min(1),
  /** The verification's run folder: absolute for a verdict, as the row wrote it for a row's certification. */
  run: z.string(),
  /** When the task was verified (ISO 8601). */
  at: z.string(),
  /** The verification is still running, so more verdicts of the file may come. */
  running: z.boolean(),
});
export type TaskCertification = z.infer<typeof taskCertificationSchema>;

export const taskItemSchema = z.object({
  taskId: z.string(),
  /** Zero-based line of the task in its file. */
  line: z.number().int(),
  /**
   * The title: `issue.title`, else the first line of its body, with control characters
   * shown as text and cut to a readable length; null when the task has no issue text.
   */
  title: z.string().nullable(),
  repo: z.string().nullable(),
  image: z.string().nullable(),
  /** The local repository the task mounts, when it has no image. */
  localRepo: z.string().nullable(),
  /** The task's instance file (its issue text), when it names one that exists. */
  instanceFile: z.string().nullable(),
  outcome: taskOutcomeSchema,
  /** The run folder of the latest outcome. */
  outcomeRun: z.string().nullable(),
  /** Null when no verification covered the task and its row carries no certification. */
  certification: taskCertificationSchema.nullable(),
  /** Where it would run on this machine with its own backend, whether its image is here, and what stops it. */
  readiness: taskReadinessSchema,
});
export type TaskItem = z.infer<typeof taskItemSchema>;

/** Client → server request: the dataset files of the workspace with their task counts. */
export const taskFilesRequest = 'graphPlanner/tasks/files';
export const taskFilesResultSchema = z.object({ files: z.array(taskFileSummarySchema) });
export type TaskFilesResult = z.infer<typeof taskFilesResultSchema>;

/** Client → server request: one page of a file's tasks, optionally only those whose id or repo contains `filter`. */
export const taskPageRequest = 'graphPlanner/tasks/page';
export const taskPageParamsSchema = z.object({
  path: z.string(),
  offset: z.number().int().min(0),
  limit: z.number().int().min(1).max(5000),
  filter: z.string().nullable(),
});
export type TaskPageParams = z.infer<typeof taskPageParamsSchema>;
export const taskPageResultSchema = z.object({
  tasks: z.array(taskItemSchema),
  /** Tasks matching the filter in the whole file. */
  matching: z.number().int(),
  /** The offset of the next page, or null at the end. */
  next: z.number().int().nullable(),
});
export type TaskPageResult = z.infer<typeof taskPageResultSchema>;

/** Server → client notification: dataset files or task outcomes changed; the view refreshes. */
export const tasksChangedNotification = 'graphPlanner/tasks/changed';
export const tasksChangedSchema = z.object({ reason: z.string() });
export type TasksChanged = z.infer<typeof tasksChangedSchema>;
