/**
 * This file mirrors `server/src/protocol/lsp.ts`: typed handles for Graph Planner's custom LSP
 * requests and notifications, and nothing else.
 * The types come from the server with type-only imports (erased from the bundle); the names come
 * from `serverMessageNames.ts`, which a unit test keeps equal to the server's.
 */
import { NotificationType, RequestType } from 'vscode-languageclient/node';
import type {
  CheckDocumentParams,
  CheckDocumentResult,
  DatasetSummary,
  ExperimentOverviewParams,
  ExperimentOverviewResult,
  ResolvedConfigParams,
  ResolvedConfigResult,
  ServerStatus,
} from '../../server/src/protocol/lsp.js';
import type {
  ContainerActionParams,
  ContainerActionResult,
  ContainersChanged,
  ContainersListResult,
  ContainersReapResult,
  ContainersWatchParams,
  LaunchExited,
  LaunchPlanResult,
  LaunchSpec,
  LaunchStartResult,
  RunActionParams,
  RunActionResult,
  RunEpisodesParams,
  RunEpisodesResult,
  RunsChanged,
  RunsListResult,
  RunsWatchParams,
  TaskFilesResult,
  TaskPageParams,
  TaskPageResult,
  TasksChanged,
  TaskPreflightParams,
  TaskPreflightResult,
} from '../../server/src/protocol/lsp.js';
import type { EpisodeCompareResult, EpisodeOpenParams, EpisodeOpenResult, EpisodePatchResult, EpisodeSearchResult, EpisodeSourceResult, EpisodeStepsResult } from '../../server/src/protocol/episodeView.js';
import type { RunMetricsParams, RunMetricsResult } from '../../server/src/protocol/metricsView.js';
import type { RunReportParams, RunReportResult } from '../../server/src/protocol/runReportView.js';
import type { EpisodeGroupParams, EpisodeGroupResult } from '../../server/src/protocol/episodeGroup.js';
import type { RunStepSamplesParams, RunStepSamplesResult } from '../../server/src/protocol/stepSamplesView.js';
import type { EpisodeCodeGraphResult, RunLocalisationResult } from '../../server/src/protocol/codeGraphView.js';
import * as names from './serverMessageNames.js';

export type { CheckDocumentResult, DatasetSummary, ExperimentOverviewResult, ResolvedConfigResult, ServerStatus };

/** Client → server: the effective config of an experiment YAML after merging defaults. */
export const resolvedConfig = new RequestType<ResolvedConfigParams, ResolvedConfigResult, void>(names.resolvedConfigRequest);

/** Client → server: run every check (disk checks included) on one document now. */
export const checkDocument = new RequestType<CheckDocumentParams, CheckDocumentResult, void>(names.checkDocumentRequest);

/** Client → server: what a launch of an experiment YAML would get, for the overview webview. */
export const experimentOverview = new RequestType<ExperimentOverviewParams, ExperimentOverviewResult, void>(names.experimentOverviewRequest);

/** Server → client: the server's health, shown in the status bar. */
export const serverStatus = new NotificationType<ServerStatus>(names.serverStatusNotification);

/** Server → client: a dataset file validated from disk (too large for the editor). */
export const datasetSummary = new NotificationType<DatasetSummary>(names.datasetSummaryNotification);

// The workbench views and launching; each message is described where the server declares it.
export type { ContainerInfo } from '../../server/src/protocol/sandbox.js';
export type { BlockedTask, EpisodeSummary, LaunchValue, LaunchValues, LogError, RunSummary, TaskCertification, TaskFileSummary, TaskItem, TaskReadiness, LaunchFinding, NewRunLaunch, TrainLaunch, VerifyLaunch } from '../../server/src/protocol/lsp.js';
export type {
  ContainerActionResult,
  ContainersChanged,
  ContainersListResult,
  ContainersReapResult,
  LaunchExited,
  LaunchPlanResult,
  LaunchSpec,
  LaunchStartResult,
  RunActionResult,
  RunEpisodesResult,
  RunsChanged,
  RunsListResult,
  TaskFilesResult,
  TaskPageResult,
  TasksChanged,
  TaskPreflightResult,
};
export const runsList = new RequestType<Record<string, never>, RunsListResult, void>(names.runsListRequest);
export const runsWatch = new RequestType<RunsWatchParams, null, void>(names.runsWatchRequest);
export const runsChanged = new NotificationType<RunsChanged>(names.runsChangedNotification);
export const runEpisodes = new RequestType<RunEpisodesParams, RunEpisodesResult, void>(names.runEpisodesRequest);
export const runAction = new RequestType<RunActionParams, RunActionResult, void>(names.runActionRequest);
export const launchPlan = new RequestType<LaunchSpec, LaunchPlanResult, void>(names.launchPlanRequest);
export const launchStart = new RequestType<LaunchSpec, LaunchStartResult, void>(names.launchStartRequest);
export const launchExited = new NotificationType<LaunchExited>(names.launchExitedNotification);
export const containersList = new RequestType<Record<string, never>, ContainersListResult, void>(names.containersListRequest);
export const containersWatch = new RequestType<ContainersWatchParams, null, void>(names.containersWatchRequest);
export const containersChanged = new NotificationType<ContainersChanged>(names.containersChangedNotification);
export const containerAction = new RequestType<ContainerActionParams, ContainerActionResult, void>(names.containerActionRequest);
export const containersReap = new RequestType<Record<string, never>, ContainersReapResult, void>(names.containersReapRequest);
export const taskFiles = new RequestType<Record<string, never>, TaskFilesResult, void>(names.taskFilesRequest);
export const taskPage = new RequestType<TaskPageParams, TaskPageResult, void>(names.taskPageRequest);
export const tasksChanged = new NotificationType<TasksChanged>(names.tasksChangedNotification);
export const taskPreflight = new RequestType<TaskPreflightParams, TaskPreflightResult, void>(names.taskPreflightRequest);
export type { EpisodeCompareResult, EpisodeOpenResult, EpisodePatchResult, EpisodeSearchResult, EpisodeSourceResult, EpisodeStepsResult };
export const episodeOpen = new RequestType<EpisodeOpenParams, EpisodeOpenResult, void>(names.episodeOpenRequest);
export const episodeSteps = new RequestType<{ path: string; steps: number[] }, EpisodeStepsResult, void>(names.episodeStepsRequest);
export const episodeSearch = new RequestType<{ path: string; query: string; caseSensitive: boolean }, EpisodeSearchResult, void>(names.episodeSearchRequest);
export const episodeSource = new RequestType<{ path: string; file: string }, EpisodeSourceResult, void>(names.episodeSourceRequest);
export const episodeWatch = new RequestType<{ path: string; watching: boolean; viewer: string }, null, void>(names.episodeWatchRequest);
export const episodeChanged = new NotificationType<{ path: string }>(names.episodeChangedNotification);
export const episodePatch = new RequestType<{ path: string; step: number | null; candidate: number | null }, EpisodePatchResult, void>(names.episodePatchRequest);
export const episodeCompare = new RequestType<{ left: string; right: string }, EpisodeCompareResult, void>(names.episodeCompareRequest);
export type { RunMetricsResult };
export const episodeGroup = new RequestType<EpisodeGroupParams, EpisodeGroupResult, void>(names.episodeGroupRequest);
export const runStepSamples = new RequestType<RunStepSamplesParams, RunStepSamplesResult, void>(names.runStepSamplesRequest);
export const runMetrics = new RequestType<RunMetricsParams, RunMetricsResult, void>(names.runMetricsRequest);
export const runReport = new RequestType<RunReportParams, RunReportResult, void>(names.runReportRequest);
export const episodeCodeGraph = new RequestType<{ path: string; limit?: number }, EpisodeCodeGraphResult, void>(names.episodeCodeGraphRequest);
export const runLocalisation = new RequestType<{ dir: string }, RunLocalisationResult, void>(names.runLocalisationRequest);
