/**
 * This file mirrors the message names declared in `server/src/protocol/lsp.ts`.
 *
 * The extension keeps its own copy of these strings so that its bundle does not pull in zod
 * through the server's schemas. `test/unit/extensionServerMessageNames.test.ts` fails when the two
 * copies drift apart, so change both together.
 */

/** Client → server request: the effective config of an experiment YAML after merging defaults. */
export const resolvedConfigRequest = 'graphPlanner/resolvedConfig';

/** Client → server request: run every check (disk checks included) on one document now. */
export const checkDocumentRequest = 'graphPlanner/checkDocument';

/** Client → server request: what a launch of an experiment YAML would get, for the overview webview. */
export const experimentOverviewRequest = 'graphPlanner/experimentOverview';

/** Server → client notification: the server's health, shown in the status bar. */
export const serverStatusNotification = 'graphPlanner/serverStatus';

/** Server → client notification: a dataset file validated from disk (too large for the editor). */
export const datasetSummaryNotification = 'graphPlanner/datasetSummary';

// The workbench views and launching (server/src/protocol/runsView.ts, launch.ts, containersView.ts, tasksView.ts).

/** Client → server request: every run under the run roots, newest first. */
export const runsListRequest = 'graphPlanner/runs/list';
/** Client → server request: start or stop watching the run roots. */
export const runsWatchRequest = 'graphPlanner/runs/watch';
/** Server → client notification: runs that appeared or changed, and folders that are gone. */
export const runsChangedNotification = 'graphPlanner/runs/changed';
/** Client → server request: the episodes of one run. */
export const runEpisodesRequest = 'graphPlanner/runs/episodes';
/** Client → server request: stop a run or delete its folder. */
export const runActionRequest = 'graphPlanner/runs/action';
/** Client → server request: the command line and preflight verdict of a launch. */
export const launchPlanRequest = 'graphPlanner/launch/plan';
/** Client → server request: start a launch as a detached gp process. */
export const launchStartRequest = 'graphPlanner/launch/start';
/** Server → client notification: a gp process the server started has exited, with its run as it is now. */
export const launchExitedNotification = 'graphPlanner/launch/exited';
/** Client → server request: our containers and whether the daemon answered. */
export const containersListRequest = 'graphPlanner/containers/list';
/** Client → server request: start or stop following Docker's events. */
export const containersWatchRequest = 'graphPlanner/containers/watch';
/** Server → client notification: the container list changed, with why. */
export const containersChangedNotification = 'graphPlanner/containers/changed';
/** Client → server request: one action on one container. */
export const containerActionRequest = 'graphPlanner/containers/action';
/** Client → server request: remove every container whose owner is gone. */
export const containersReapRequest = 'graphPlanner/containers/reap';
/** Client → server request: the dataset files of the workspace with their task counts. */
export const taskFilesRequest = 'graphPlanner/tasks/files';
/** Client → server request: one page of a file's tasks. */
export const taskPageRequest = 'graphPlanner/tasks/page';
/** Server → client notification: dataset files or task outcomes changed. */
export const tasksChangedNotification = 'graphPlanner/tasks/changed';
/** Client → server request: which of a launch's tasks cannot run on its backend here (server/src/protocol/taskPreflight.ts). */
export const taskPreflightRequest = 'graphPlanner/tasks/preflight';

// The trajectory viewer (server/src/protocol/episodeView.ts).

/** Client → server request: an episode's header and step rows (the appended ones, given how many the client has). */
export const episodeOpenRequest = 'graphPlanner/episode/open';
/** Client → server request: full records of some steps. */
export const episodeStepsRequest = 'graphPlanner/episode/steps';
/** Client → server request: every occurrence of a text in an episode. */
export const episodeSearchRequest = 'graphPlanner/episode/search';
/** Client → server request: what an episode recorded of one repository file. */
export const episodeSourceRequest = 'graphPlanner/episode/source';
/** Client → server request: a viewer opened or closed a trajectory (the server watches it meanwhile). */
export const episodeWatchRequest = 'graphPlanner/episode/watch';
/** Server → client notification: an open trajectory changed on disk. */
export const episodeChangedNotification = 'graphPlanner/episode/changed';
/** Client → server request: a patch of an episode as whole files before and after. */
export const episodePatchRequest = 'graphPlanner/episode/patch';
/** Client → server request: two episodes side by side, steps aligned. */
export const episodeCompareRequest = 'graphPlanner/episode/compare';
/** Client → server request: a group of rollouts of one task side by side, with rewards and advantages. */
export const episodeGroupRequest = 'graphPlanner/episode/group';

// The code-graph view (server/src/protocol/codeGraphView.ts).

/** Client → server request: an episode's explored subgraph with its gold nodes, laid out. */
export const episodeCodeGraphRequest = 'graphPlanner/episode/codeGraph';
/** Client → server request: localisation recall of a run's episodes, per training step. */
export const runLocalisationRequest = 'graphPlanner/runs/localisation';

// The run metrics page (server/src/protocol/metricsView.ts).

/** Client → server request: a run's metrics lines from a byte offset, and its state. */
export const runMetricsRequest = 'graphPlanner/runs/metrics';

// The report page of a rollout or an evaluation (server/src/protocol/runReportView.ts).

/** Client → server request: a run's report.json shaped for the report page. */
export const runReportRequest = 'graphPlanner/runs/report';
/** Client → server request: a training step's sample table, and the steps that have one. */
export const runStepSamplesRequest = 'graphPlanner/runs/stepSamples';
