/**
 * The identifiers that `package.json` and the code must agree on: command ids, context keys and
 * the scheme of our virtual documents. They live in this module, which does not import `vscode`,
 * so that `test/unit/extensionContributions.test.ts` can check them against the manifest.
 */

/** The commands the extension contributes, keyed by the name the command table uses. */
export const commandIds = {
  checkConfig: 'graphPlanner.checkConfig',
  showResolvedConfig: 'graphPlanner.showResolvedConfig',
  showExperimentOverview: 'graphPlanner.showExperimentOverview',
  restartServer: 'graphPlanner.restartServer',
  showOutput: 'graphPlanner.showOutput',
  startRollout: 'graphPlanner.startRollout',
  startEvaluation: 'graphPlanner.startEvaluation',
  rerunLast: 'graphPlanner.rerunLast',
  openTrajectory: 'graphPlanner.openTrajectory',
  compareEpisodes: 'graphPlanner.compareEpisodes',
  replayEpisode: 'graphPlanner.replayEpisode',
  continueFromStep: 'graphPlanner.continueFromStep',
  showCodeGraph: 'graphPlanner.showCodeGraph',
  startTraining: 'graphPlanner.startTraining',
  verifyTasks: 'graphPlanner.verifyTasks',
  openGettingStarted: 'graphPlanner.openGettingStarted',
  sampleOpenConfig: 'graphPlanner.sample.openConfig',
  sampleRollout: 'graphPlanner.sample.rollout',
  sampleOpenEpisode: 'graphPlanner.sample.openEpisode',
  sampleTrain: 'graphPlanner.sample.train',
} as const;

export type CommandName = keyof typeof commandIds;

/** Titles as the manifest lists them, under the category "Graph Planner". */
export const commandTitles: Record<CommandName, string> = {
  checkConfig: 'Check Config',
  showResolvedConfig: 'Show Resolved Config',
  showExperimentOverview: 'Show Experiment Overview',
  restartServer: 'Restart Server',
  showOutput: 'Show Output',
  startRollout: 'Start Rollout…',
  startEvaluation: 'Start Evaluation…',
  rerunLast: 'Re-run Last',
  openTrajectory: 'Open Trajectory…',
  compareEpisodes: 'Compare Episodes…',
  replayEpisode: 'Replay Episode…',
  continueFromStep: 'Continue from Here…',
  showCodeGraph: 'Show Episode on the Code Graph…',
  startTraining: 'Start Training…',
  verifyTasks: 'Verify Tasks…',
  openGettingStarted: 'Open Getting Started',
  sampleOpenConfig: 'Open the Sample Config',
  sampleRollout: 'Run the Sample Rollout',
  sampleOpenEpisode: 'Open the Newest Episode',
  sampleTrain: 'Train on the Samples (Smoke Run)',
};

/**
 * The Getting Started walkthrough (`contributes.walkthroughs`), as `workbench.action.openWalkthrough`
 * names it: the extension's id (publisher.name) and the walkthrough's own id.
 */
export const walkthroughId = 'graphPlanner.gettingStarted';
export const qualifiedWalkthroughId = `graph-planner.graph-planner#${walkthroughId}`;

export const commandCategory = 'Graph Planner';

/**
 * A context key that holds the kind of the active editor's file (`experiment`, `dataset`, or
 * unset), so that menus can offer our commands only on files the server checks.
 */
export const activeFileKindContextKey = 'graphPlanner.activeFileKind';

/** The scheme of the read-only documents that show a resolved experiment config. */
export const resolvedConfigScheme = 'graph-planner-resolved';

/** The view type of the trajectory viewer (a read-only custom editor for `trajectories/*.jsonl`, `*.traj`, `*.traj.json`, `*.atif.json` and `*.eval`). */
export const trajectoryViewType = 'graphPlanner.trajectory';

/** The view type of a training run's metrics page. */
export const runMetricsViewType = 'graphPlanner.runMetrics';

/** The view type of a rollout's or an evaluation's report page. */
export const runReportViewType = 'graphPlanner.runReport';

/** The view type of the panel that shows an episode on the code graph. */
export const codeGraphViewType = 'graphPlanner.codeGraph';

/** The view type of the panel that compares two episodes. */
export const episodeCompareViewType = 'graphPlanner.episodeCompare';

/** The view type of the panel that shows a group of rollouts side by side. */
export const episodeGroupViewType = 'graphPlanner.episodeGroup';

/** The scheme of the read-only documents that show what an episode recorded of a file. */
export const recordedSourceScheme = 'graph-planner-recorded';

/** The scheme of the before and after documents of a patch's diff. */
export const patchScheme = 'graph-planner-patch';

/** The view type of the experiment overview webview panels. */
export const experimentOverviewViewType = 'graphPlanner.experimentOverview';

/** The name of the output channel; the end-to-end tests look for it. */
export const outputChannelName = 'Graph Planner';

/** The activity-bar container and its three views. */
export const viewContainerId = 'graphPlanner';
export const viewIds = {
  tasks: 'graphPlanner.tasks',
  containers: 'graphPlanner.containers',
  runs: 'graphPlanner.runs',
} as const;

/**
 * Commands that act on a view or its items. Each view module registers its own; they are in the
 * manifest with their titles, hidden from the command palette where they need an item.
 */
export const viewCommands = {
  tasksRefresh: { id: 'graphPlanner.tasks.refresh', title: 'Refresh Tasks' },
  tasksFilter: { id: 'graphPlanner.tasks.filter', title: 'Filter Tasks…' },
  tasksClearFilter: { id: 'graphPlanner.tasks.clearFilter', title: 'Clear Task Filter' },
  taskRun: { id: 'graphPlanner.tasks.run', title: 'Run Agent on Task' },
  taskTest: { id: 'graphPlanner.tasks.test', title: 'Run Task Tests…' },
  taskGoTo: { id: 'graphPlanner.tasks.goTo', title: 'Go to Task Line' },
  taskOpenInstance: { id: 'graphPlanner.tasks.openInstance', title: 'Open Instance File' },
  taskCopyId: { id: 'graphPlanner.tasks.copyId', title: 'Copy Task Id' },
  taskFileVerify: { id: 'graphPlanner.tasks.verify', title: 'Verify Tasks…' },
  containersRefresh: { id: 'graphPlanner.containers.refresh', title: 'Refresh Containers' },
  containersReap: { id: 'graphPlanner.containers.reap', title: 'Reap Orphaned Containers' },
  containersShowAll: { id: 'graphPlanner.containers.showAll', title: "Show Every Run's Containers" },
  containersShowWorkspace: { id: 'graphPlanner.containers.showWorkspace', title: "Show Only This Workspace's Runs" },
  containerShell: { id: 'graphPlanner.containers.shell', title: 'Open Shell' },
  containerLogs: { id: 'graphPlanner.containers.logs', title: 'Show Logs' },
  containerInspect: { id: 'graphPlanner.containers.inspect', title: 'Inspect' },
  containerStop: { id: 'graphPlanner.containers.stop', title: 'Stop Container' },
  containerRemove: { id: 'graphPlanner.containers.remove', title: 'Remove Container' },
  runsRefresh: { id: 'graphPlanner.runs.refresh', title: 'Refresh Runs' },
  runStop: { id: 'graphPlanner.runs.stop', title: 'Stop Run' },
  runResume: { id: 'graphPlanner.runs.resume', title: 'Resume Run' },
  runRelaunch: { id: 'graphPlanner.runs.relaunch', title: 'Re-launch Run' },
  runOpenReport: { id: 'graphPlanner.runs.openReport', title: 'Open Report' },
  runOpenReportJson: { id: 'graphPlanner.runs.openReportJson', title: 'Open report.json' },
  runShowLog: { id: 'graphPlanner.runs.showLog', title: 'Show Run Log' },
  runShowMetrics: { id: 'graphPlanner.runs.showMetrics', title: 'Show Metrics' },
  runShowGroups: { id: 'graphPlanner.runs.showGroups', title: 'Show GRPO Groups' },
  runShowStepSamples: { id: 'graphPlanner.runs.showStepSamples', title: 'Show Step Samples' },
  runReveal: { id: 'graphPlanner.runs.reveal', title: 'Reveal Run Folder' },
  runDelete: { id: 'graphPlanner.runs.delete', title: 'Delete Run…' },
  episodeOpen: { id: 'graphPlanner.runs.openEpisode', title: 'Open Trajectory' },
  episodeOpenAsText: { id: 'graphPlanner.runs.openEpisodeText', title: 'Open Trajectory as JSONL' },
  episodeShowGroup: { id: 'graphPlanner.runs.showEpisodeGroup', title: 'Show Episode Group' },
} as const;

export type ViewCommandName = keyof typeof viewCommands;

/** Context keys the views' title menus and welcome messages read. */
export const viewContextKeys = {
  /** The Tasks view has a filter set. */
  tasksFiltered: 'graphPlanner.tasks.filtered',
  /** The Docker daemon did not answer; the Containers view shows what to do instead of a list. */
  dockerUnreachable: 'graphPlanner.docker.unreachable',
  /** The Containers view shows only the containers of this workspace's runs (its title bar's filter is on). */
  containersWorkspaceOnly: 'graphPlanner.containers.workspaceOnly',
  /** The filter hides every container there is; the view's welcome text says so instead of "no container exists". */
  containersAllHidden: 'graphPlanner.containers.allHidden',
} as const;
