/**
 * Custom LSP messages between the extension (client) and the Graph Planner server. Each message is
 * declared once here with its direction; both sides import these constants and types (the
 * extension with type-only imports plus these plain string constants).
 */
import { z } from 'zod';
import type { ExperimentOverview } from './overview.js';

/** Client → server request: the effective config of an experiment YAML after merging defaults. */
export const resolvedConfigRequest = 'graphPlanner/resolvedConfig';
export const resolvedConfigParamsSchema = z.object({ uri: z.string() });
export type ResolvedConfigParams = z.infer<typeof resolvedConfigParamsSchema>;
export const resolvedConfigResultSchema = z.object({
  /** The merged config as YAML, or null when the document cannot be parsed. */
  yaml: z.string().nullable(),
  errors: z.number().int(),
  warnings: z.number().int(),
  /** Why there is no YAML, when there is none. */
  reason: z.string().optional(),
});
export type ResolvedConfigResult = z.infer<typeof resolvedConfigResultSchema>;

/** Client → server request: run every check (disk checks included) on one document now. */
export const checkDocumentRequest = 'graphPlanner/checkDocument';
export const checkDocumentParamsSchema = z.object({ uri: z.string() });
export type CheckDocumentParams = z.infer<typeof checkDocumentParamsSchema>;
export const checkDocumentResultSchema = z.object({
  kind: z.enum(['experiment', 'dataset', 'other']),
  errors: z.number().int(),
  warnings: z.number().int(),
  infos: z.number().int(),
  summary: z.string(),
});
export type CheckDocumentResult = z.infer<typeof checkDocumentResultSchema>;

/**
 * Client → server request: what a launch of an experiment YAML would get (Verl settings, GPU
 * layout, findings), for the overview webview. Its result is declared in `overview.ts`, and the
 * webview validates it with `experimentOverviewSchema` before rendering.
 */
export const experimentOverviewRequest = 'graphPlanner/experimentOverview';
export const experimentOverviewParamsSchema = z.object({ uri: z.string() });
export type ExperimentOverviewParams = z.infer<typeof experimentOverviewParamsSchema>;
/** Null when the server can neither find the document open nor read it from disk. */
export type ExperimentOverviewResult = ExperimentOverview | null;

/** Server → client notification: the server's health, shown in the status bar. */
export const serverStatusNotification = 'graphPlanner/serverStatus';
export const serverStatusSchema = z.object({
  state: z.enum(['starting', 'ready', 'busy', 'error']),
  message: z.string(),
  version: z.string(),
  /** Milliseconds from process start to ready, for the activation figures. */
  startupMs: z.number().optional(),
});
export type ServerStatus = z.infer<typeof serverStatusSchema>;

/** Server → client notification: a dataset file validated from disk (too large for the editor). */
export const datasetSummaryNotification = 'graphPlanner/datasetSummary';
export const datasetSummarySchema = z.object({
  uri: z.string(),
  lines: z.number().int(),
  tasks: z.number().int(),
  errors: z.number().int(),
  warnings: z.number().int(),
  fromDisk: z.boolean(),
  durationMs: z.number(),
});
export type DatasetSummary = z.infer<typeof datasetSummarySchema>;

// The workbench views and launching declare their messages in their own modules; they are part
// of the same contract, so the extension's mirror of message names covers them too.
export * from './runsView.js';
export * from './launch.js';
export * from './containersView.js';
export * from './tasksView.js';
export * from './taskPreflight.js';
export * from './episodeView.js';
export * from './episodeGroup.js';
export * from './metricsView.js';
export * from './runReportView.js';
export * from './stepSamplesView.js';
export * from './codeGraphView.js';
