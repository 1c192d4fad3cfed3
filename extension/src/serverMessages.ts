/**
 * This file mirrors `server/src/protocol/lsp.ts`: typed handles for Graph Planner's custom LSP
 * requests and notifications, and nothing else.
 * The types come from the server with type-only imports (erased from the bundle); the names come
 * from `serverMessageNames.ts`, which a unit test keeps equal to the server's.
 */
import type { CancellationToken } from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
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
import type {
  EpisodeCompareResult,
  EpisodeOpenParams,
  EpisodeOpenResult,
  EpisodePatchResult,
  EpisodeSearchResult,
  EpisodeSourceResult,
  EpisodeStepsResult,
} from '../../server/src/protocol/episodeView.js';
import type { RunMetricsParams, RunMetricsResult } from '../../server/src/protocol/metricsView.js';
import type { RunReportParams, RunReportResult } from '../../server/src/protocol/runReportView.js';
import type { EpisodeGroupParams, EpisodeGroupResult } from '../../server/src/protocol/episodeGroup.js';
import type { RunStepSamplesParams, RunStepSamplesResult } from '../../server/src/protocol/stepSamplesView.js';
import type { EpisodeCodeGraphResult, RunLocalisationResult } from '../../server/src/protocol/codeGraphView.js';
import * as names from './serverMessageNames.js';

export type { CheckDocumentResult, DatasetSummary, ExperimentOverviewResult, ResolvedConfigResult, ServerStatus };

/**
 * A request of ours: its method, with what it takes and answers as types only. Plain objects
 * rather than the library's `RequestType`, because the library loads only when a server starts
 * (`languageClientLib.ts`) and these are made when the extension loads.
 */
export interface ServerRequest<P, R> {
  readonly method: string;
  /** Never set: it carries the types. */
  readonly types?: (params: P) => R;
}

/** A notification of ours, with its params as a type only. */
export interface ServerNotification<P> {
  readonly method: string;
  /** Never set: it carries the type. */
  readonly types?: (params: P) => void;
}

function request<P, R>(method: string): ServerRequest<P, R> {
  return { method };
}

function notification<P>(method: string): ServerNotification<P> {
  return { method };
}

/**
 * Sends one of our requests. vscode-jsonrpc sends a method name's one argument as the request's
 * params, as it does for a `RequestType` of one parameter. The token is passed only when there is
 * one: an undefined last argument would count as a second parameter and the params would go as
 * an array.
 */
export function sendRequest<P, R>(client: LanguageClient, type: ServerRequest<P, R>, params: P, token?: CancellationToken): Promise<R> {
  return token === undefined ? client.sendRequest<R>(type.method, params) : client.sendRequest<R>(type.method, params, token);
}

/** Client → server: the effective config of an experiment YAML after merging defaults. */
export const resolvedConfig = request<ResolvedConfigParams, ResolvedConfigResult>(names.resolvedConfigRequest);

/** Client → server: run every check (disk checks included) on one document now. */
export const checkDocument = request<CheckDocumentParams, CheckDocumentResult>(names.checkDocumentRequest);

/** Client → server: what a launch of an experiment YAML would get, for the overview webview. */
export const experimentOverview = request<ExperimentOverviewParams, ExperimentOverviewResult>(names.experimentOverviewRequest);

/** Server → client: the server's health, shown in the status bar. */
export const serverStatus = notification<ServerStatus>(names.serverStatusNotification);

/** Server → client: a dataset file validated from disk (too large for the editor). */
export const datasetSummary = notification<DatasetSummary>(names.datasetSummaryNotification);

// The workbench views and launching; each message is described where the server declares it.
export type { ContainerInfo } from '../../server/src/protocol/sandbox.js';
export type {
  BlockedTask,
  EpisodeSummary,
  LaunchValue,
  LaunchValues,
  LogError,
  RunSummary,
  TaskCertification,
  TaskFileSummary,
  TaskItem,
  TaskReadiness,
  LaunchFinding,
  NewRunLaunch,
  TrainLaunch,
  VerifyLaunch,
} from '../../server/src/protocol/lsp.js';
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
export const runsList = request<Record<string, never>, RunsListResult>(names.runsListRequest);
export const runsWatch = request<RunsWatchParams, null>(names.runsWatchRequest);
export const runsChanged = notification<RunsChanged>(names.runsChangedNotification);
export const runEpisodes = request<RunEpisodesParams, RunEpisodesResult>(names.runEpisodesRequest);
export const runAction = request<RunActionParams, RunActionResult>(names.runActionRequest);
export const launchPlan = request<LaunchSpec, LaunchPlanResult>(names.launchPlanRequest);
export const launchStart = request<LaunchSpec, LaunchStartResult>(names.launchStartRequest);
export const launchExited = notification<LaunchExited>(names.launchExitedNotification);
export const containersList = request<Record<string, never>, ContainersListResult>(names.containersListRequest);
export const containersWatch = request<ContainersWatchParams, null>(names.containersWatchRequest);
export const containersChanged = notification<ContainersChanged>(names.containersChangedNotification);
export const containerAction = request<ContainerActionParams, ContainerActionResult>(names.containerActionRequest);
export const containersReap = request<Record<string, never>, ContainersReapResult>(names.containersReapRequest);
export const taskFiles = request<Record<string, never>, TaskFilesResult>(names.taskFilesRequest);
export const taskPage = request<TaskPageParams, TaskPageResult>(names.taskPageRequest);
export const tasksChanged = notification<TasksChanged>(names.tasksChangedNotification);
export const taskPreflight = request<TaskPreflightParams, TaskPreflightResult>(names.taskPreflightRequest);
export type { EpisodeCompareResult, EpisodeOpenResult, EpisodePatchResult, EpisodeSearchResult, EpisodeSourceResult, EpisodeStepsResult };
export const episodeOpen = request<EpisodeOpenParams, EpisodeOpenResult>(names.episodeOpenRequest);
export const episodeSteps = request<{ path: string; steps: number[] }, EpisodeStepsResult>(names.episodeStepsRequest);
export const episodeSearch = request<{ path: string; query: string; caseSensitive: boolean }, EpisodeSearchResult>(names.episodeSearchRequest);
export const episodeSource = request<{ path: string; file: string }, EpisodeSourceResult>(names.episodeSourceRequest);
export const episodeWatch = request<{ path: string; watching: boolean; viewer: string }, null>(names.episodeWatchRequest);
export const episodeChanged = notification<{ path: string }>(names.episodeChangedNotification);
export const episodePatch = request<{ path: string; step: number | null; candidate: number | null }, EpisodePatchResult>(names.episodePatchRequest);
export const episodeCompare = request<{ left: string; right: string }, EpisodeCompareResult>(names.episodeCompareRequest);
export type { RunMetricsResult };
export const episodeGroup = request<EpisodeGroupParams, EpisodeGroupResult>(names.episodeGroupRequest);
export const runStepSamples = request<RunStepSamplesParams, RunStepSamplesResult>(names.runStepSamplesRequest);
export const runMetrics = request<RunMetricsParams, RunMetricsResult>(names.runMetricsRequest);
export const runReport = request<RunReportParams, RunReportResult>(names.runReportRequest);
export const episodeCodeGraph = request<{ path: string; limit?: number }, EpisodeCodeGraphResult>(names.episodeCodeGraphRequest);
export const runLocalisation = request<{ dir: string }, RunLocalisationResult>(names.runLocalisationRequest);
