/**
 * The rendered report page of a rollout or an evaluation (the Runs view's Open Report). Extension →
 * server: the report of a run folder, read from its `report.json` (written by
 * `server/src/rollout/report.ts`) and shaped for the page by `server/src/views/reportView.ts`.
 * Extension → page: that answer. The page's own messages are in `reportWebview.ts` (zod/mini).
 *
 * The figures are defined once, here and in `reportView.ts`: the resolved rate is resolved over the
 * episodes that ran to their end (`report.json`'s `resolved_rate`); episodes the infrastructure
 * failed have no outcome, are counted apart, and are never a task's outcome.
 */
import { z } from 'zod';

export const runReportRequest = 'graphPlanner/runs/report';
export const runReportParamsSchema = z.object({ dir: z.string().min(1) });
export type RunReportParams = z.input<typeof runReportParamsSchema>;

/** One episode of a task, as a link to its trajectory. */
export const reportEpisodeSchema = z.object({
  episodeId: z.string(),
  /** Absolute path of its trajectory file. */
  trajectory: z.string(),
  /** `no-outcome`: the infrastructure failed it; it is not the task's result. */
  outcome: z.enum(['resolved', 'unresolved', 'no-outcome']),
  /** Signals of suspected reward hacking its submit recorded (env/hackSignals.ts); 0 when none. */
  suspectedHacks: z.number().int().min(0),
});
export type ReportEpisode = z.infer<typeof reportEpisodeSchema>;

/** One row of the per-task table: a task's episodes that ran to their end, and those that had no outcome. */
export const reportTaskSchema = z.object({
  taskId: z.string(),
  /** Episodes of the task in the report, infrastructure failures included. */
  attempts: z.number().int().min(0),
  /** Of those, the ones that ran to their end (graded) and the ones resolved. */
  graded: z.number().int().min(0),
  resolved: z.number().int().min(0),
  /** `resolved`/`unresolved` over the graded episodes (`mixed` when some resolved and some not); `no-outcome` when none ran to its end. */
  outcome: z.enum(['resolved', 'unresolved', 'mixed', 'no-outcome']),
  /** Means over the graded episodes; null when there is none. */
  reward: z.number().nullable(),
  steps: z.number().nullable(),
  /** Total time of the graded episodes. */
  durationMs: z.number().nullable(),
  /** The first unresolved episode's reason, or the infrastructure's when none ran to its end. */
  failureReason: z.string().nullable(),
  episodes: z.array(reportEpisodeSchema),
});
export type ReportTask = z.infer<typeof reportTaskSchema>;

/** Unresolved episodes grouped by why (`Tests failed`, `Hit the step limit`, `Error`), each reason with its tasks. */
export const reportFailureGroupSchema = z.object({
  group: z.string(),
  count: z.number().int().min(1),
  reasons: z.array(z.object({ reason: z.string(), tasks: z.array(z.string()) })),
});

export const runReportViewSchema = z.object({
  run: z.string(),
  dir: z.string(),
  /** `rollout` or `eval`, from the run's launch record when it has one. */
  command: z.string().nullable(),
  agent: z.string(),
  dataset: z.string(),
  createdAt: z.string(),
  state: z.string().nullable(),
  summary: z.object({
    /** Episodes that ran to their end: the rate's denominator. */
    graded: z.number().int().min(0),
    resolved: z.number().int().min(0),
    /** `resolved / graded`, or null with nothing graded. */
    resolvedRate: z.number().min(0).max(1).nullable(),
    /** Episodes in the plan. */
    planned: z.number().int().min(0),
    /** Episodes the infrastructure failed: no outcome, not in the rate. */
    infrastructure: z.number().int().min(0),
    /** Episodes of the plan that did not run to their end for other reasons (interrupted, never started). */
    notRun: z.number().int().min(0),
    meanSteps: z.number().nullable(),
    meanDurationMs: z.number().nullable(),
    /** Episodes that ran whose submit recorded suspected reward hacking: a flag for a person to look, not a verdict. */
    suspectedHacks: z.number().int().min(0),
    /**
     * pass@k (views/passAtK.ts) over the tasks with a graded attempt, for k = 1 and each usual k up to
     * the fewest graded attempts of a task; empty when no task was attempted more than once.
     */
    passAtK: z.array(z.object({ k: z.number().int().min(1), value: z.number().min(0).max(1), tasks: z.number().int().min(1) })),
  }),
  tasks: z.array(reportTaskSchema),
  failureGroups: z.array(reportFailureGroupSchema),
  infrastructure: z.array(z.object({ taskId: z.string(), episodeId: z.string(), code: z.string(), cause: z.string(), trajectory: z.string() })),
});
export type RunReportView = z.infer<typeof runReportViewSchema>;

export const runReportResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), report: runReportViewSchema }),
  /** No report (a run still going, or one that wrote none) or one that is not valid: what and what to do. */
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type RunReportResult = z.infer<typeof runReportResultSchema>;

/** Extension → page. */
export const reportPageMessageSchema = z.discriminatedUnion('type', [z.object({ type: z.literal('report'), result: runReportResultSchema })]);
export type ReportPageMessage = z.infer<typeof reportPageMessageSchema>;
