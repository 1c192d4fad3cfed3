/**
 * The Runs view's messages (extension ↔ server). The server discovers run folders under the
 * workspace's run roots, watches them while the view is visible and pushes what changed; the
 * extension only renders. Stop, remove, resume and re-launch act through `server/src/runs/` and
 * `server/src/launch/`, the same code `gp runs` uses, so a run behaves the same from either side.
 */
import { z } from 'zod';
import { backendSummarySchema, sandboxHostRefSchema, trajectoryForkSchema } from './runs.js';
import { modelSummarySchema } from './modelUsage.js';

/** What a person sees of a run's state: `running` only while its process lives (ARCHITECTURE.md §3). */
export const runViewStateSchema = z.enum(['running', 'finished', 'failed', 'interrupted', 'unknown']);
export type RunViewState = z.infer<typeof runViewStateSchema>;

/** One run folder as the Runs view shows it. */
export const runSummarySchema = z.object({
  /** Absolute path of the run folder; the run's identity in every message. */
  dir: z.string(),
  name: z.string(),
  /** The run root it was found under. */
  root: z.string(),
  state: runViewStateSchema,
  /** The status says `running` but its process is gone: shown as interrupted. */
  stale: z.boolean(),
  /** `rollout`, `eval`, `train`, … from the command line; null when unknown. */
  kind: z.string().nullable(),
  /** The command line as recorded by the run. */
  command: z.string().nullable(),
  agent: z.string().nullable(),
  episodes: z.object({ total: z.number().int(), finished: z.number().int(), resolved: z.number().int(), errored: z.number().int() }).nullable(),
  backend: backendSummarySchema.nullable(),
  /** A model agent's figures so far: its own steps, parse failures, fallbacks, resolved alone. */
  model: modelSummarySchema.nullable(),
  /**
   * The Ray nodes whose sandbox hosts ran its episodes (issue 22), each with how many of the
   * episodes its events name, in the order first seen; empty when no episode ran on a host.
   */
  nodes: z.array(z.object({ node: z.string(), episodes: z.number().int() })),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  exitReason: z.string().nullable(),
  /** What is wrong with this folder (a corrupt status.json, a truncated events.jsonl); null when nothing. */
  problem: z.string().nullable(),
  hasReport: z.boolean(),
  hasLog: z.boolean(),
  /** The run writes `metrics.jsonl` (a training run): its metrics page can be opened. */
  hasMetrics: z.boolean(),
  /** The folder records how it was launched (launch.json), so it can be resumed and re-launched. */
  relaunchable: z.boolean(),
  /**
   * The episode and step a fork continues (its launch record's `fork`,
   * docs/trajectory-viewer.md#continue-from-here); null for a run that is no fork.
   */
  fork: trajectoryForkSchema.nullable(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

/** One episode of a run, from its events and, for running episodes, the start of its trajectory. */
export const episodeSummarySchema = z.object({
  episodeId: z.string(),
  taskId: z.string(),
  state: z.enum(['running', 'resolved', 'unresolved', 'error', 'interrupted']),
  steps: z.number().int().nullable(),
  totalReward: z.number().nullable(),
  terminationReason: z.string().nullable(),
  /** The sandbox host that ran it and its Ray node, as its `episode-start` event says; null when it ran in the launching process. */
  sandboxHost: sandboxHostRefSchema.nullable(),
  /** Absolute path of the trajectory file. */
  trajectory: z.string(),
});
export type EpisodeSummary = z.infer<typeof episodeSummarySchema>;

/** Client → server request: every run under the run roots, newest first. */
export const runsListRequest = 'graphPlanner/runs/list';
export const runsListResultSchema = z.object({
  roots: z.array(z.object({ path: z.string(), exists: z.boolean() })),
  runs: z.array(runSummarySchema),
});
export type RunsListResult = z.infer<typeof runsListResultSchema>;

/**
 * Client → server request: start or stop watching the run roots for one watcher: the Runs view
 * (it became visible or hidden) or the extension's live runs (a launch is starting or a run is
 * running, for the status bar and the notice when it ends). The roots are watched while either
 * watcher asks, and nothing is watched or read while neither does.
 */
export const runsWatchRequest = 'graphPlanner/runs/watch';
export const runsWatchParamsSchema = z.object({ watching: z.boolean(), by: z.enum(['view', 'liveRuns']).default('view') });
export type RunsWatchParams = z.infer<typeof runsWatchParamsSchema>;

/** Server → client notification: runs that appeared or changed, and folders that are gone. */
export const runsChangedNotification = 'graphPlanner/runs/changed';
export const runsChangedSchema = z.object({
  changed: z.array(runSummarySchema),
  removed: z.array(z.string()),
  /** The episodes that changed, per run folder (only runs whose episodes the client has asked for). */
  episodes: z.array(z.object({ dir: z.string(), episodes: z.array(episodeSummarySchema) })),
  /** When the server sent it (ms since the epoch), for the latency figure of the bench. */
  sentAt: z.number(),
});
export type RunsChanged = z.infer<typeof runsChangedSchema>;

/** Client → server request: the episodes of one run; later changes to them come with `runs/changed`. */
export const runEpisodesRequest = 'graphPlanner/runs/episodes';
export const runEpisodesParamsSchema = z.object({ dir: z.string() });
export type RunEpisodesParams = z.infer<typeof runEpisodesParamsSchema>;
export const runEpisodesResultSchema = z.object({ episodes: z.array(episodeSummarySchema), problem: z.string().nullable() });
export type RunEpisodesResult = z.infer<typeof runEpisodesResultSchema>;

/** Client → server request: stop a run (SIGINT, as Ctrl-C) or delete its folder (refused while it runs). */
export const runActionRequest = 'graphPlanner/runs/action';
export const runActionParamsSchema = z.object({ dir: z.string(), action: z.enum(['stop', 'remove']) });
export type RunActionParams = z.infer<typeof runActionParamsSchema>;
export const runActionResultSchema = z.object({ ok: z.boolean(), message: z.string() });
export type RunActionResult = z.infer<typeof runActionResultSchema>;
