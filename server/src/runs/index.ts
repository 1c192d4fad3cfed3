/** The run directory model (ARCHITECTURE.md §3): layout, status, events, trajectories, test runs, report, discovery. */
export { runLayout, episodeFileName, instanceFolderName, type RunLayout } from './layout.js';
export { JsonLinesWriter, RecordError, parseJsonLines, toJsonLine, checkRecord, type ParsedLines } from './jsonLines.js';
export { writeStatus, readStatus, type StatusRead } from './status.js';
export { EventLog, readEvents, type RunEventInput } from './events.js';
export { TrajectoryWriter, parseTrajectory, readTrajectory, type TrajectoryRead } from './trajectory.js';
export { writeReport, readReport } from './report.js';
export { recordTestRun, writeInstanceReport, type TestRunOutput } from './testRuns.js';
export { listRuns, readRun, statusIsLive, type RunListing } from './discover.js';
export { effectiveState, findRun, removeRun, stopRun, type FoundRun, type RemoveResult, type StopResult } from './control.js';
export { EventTail, type TailRead } from './eventTail.js';
export { readLaunchRecord, withoutConfigFlags, withoutRunFolderFlags, writeLaunchRecord, type LaunchRecordRead } from './launchRecord.js';
export { TaskOutcomes, type LatestOutcome, type OutcomesRefresh } from './taskOutcomes.js';
export { RunsWatcher, type RunsChange, type RunsWatcherOptions } from './runsWatcher.js';
export { buildEpisodeModel, kindOf, type EpisodeModel, type StepKind, type StepView } from './episodeModel.js';
export { toAtif, type AtifOptions } from './atifExport.js';
export { nextMatchStep, searchEpisode, type SearchField, type SearchMatch, type SearchOptions } from './episodeSearch.js';
export { alignEpisodes, stepSignature, type AlignedRow } from './episodeAlign.js';
