/**
 * The run folder as a store (ARCHITECTURE.md §3): `layout.ts` names its files and `runLock.ts` is
 * its one owner; the other modules read and write its records (status, events, trajectories, test
 * runs, reports, the launch record, metrics and their TensorBoard copy, pre-images, verdicts, task
 * outcomes and certifications, episode files handed over by a sandbox host), find and stop runs,
 * and watch them for the Runs view.
 */
export { runLayout, episodeFileName, legacyEpisodeFileName, instanceFolderName, type RunLayout } from './layout.js';
export { JsonLinesWriter, RecordError, parseJsonLines, toJsonLine, checkRecord, type ParsedLines } from './jsonLines.js';
export { writeStatus, readStatus, type StatusRead } from './status.js';
export { RunLock, ownerGone, type RunLockResult } from './runLock.js';
export { EventLog, readEvents, type RunEventInput } from './events.js';
export { TrajectoryWriter, parseTrajectory, readTrajectory, type TrajectoryRead } from './trajectory.js';
export { writeReport, readReport } from './report.js';
export { recordTestRun, writeInstanceReport, type TestRunOutput } from './testRuns.js';
export { listRuns, listRunsUnder, readRun, statusIsLive, type RunListing } from './discover.js';
export { effectiveState, findRun, removeRun, stopRun, type FoundRun, type RemoveResult, type StopResult } from './control.js';
export { EventTail, JsonLinesTail, type LinesRead, type TailRead } from './eventTail.js';
export { readLaunchRecord, withoutConfigFlags, withoutRunFolderFlags, writeLaunchRecord, type LaunchRecordRead } from './launchRecord.js';
export { TaskOutcomes, type LatestOutcome, type OutcomesRefresh } from './taskOutcomes.js';
export { TaskCertifications, certificationOfRow, certificationOfVerdict, taskCertification, type LatestVerdict } from './taskCertifications.js';
export { RunsWatcher, type RunsChange, type RunsWatcherOptions } from './runsWatcher.js';
export { PreimageStore, readPreimage, defaultPreimageLimits, type PreimageLimits } from './preimageStore.js';
export { headlineMetrics, readMetrics, summariseMetrics, type MetricsSummary } from './metrics.js';
export { readMetricsFrom, type MetricsChunk } from './metricsRead.js';
export { readVerdicts, verdictWriter, writeVerificationSummary } from './verdicts.js';
export { collectEpisodeFiles, writeEpisodeFiles, refusedPath, TransferError } from './episodeTransfer.js';
export { TensorBoardWriter, crc32c, encodeEvent, encodeRecord } from './tensorboardEvents.js';
export { EpisodeFold } from './runSummary.js';
export { firstLogError } from './runLogError.js';
