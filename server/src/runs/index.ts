/** The run directory model (DESIGN §2): layout, status, events, trajectories, report, discovery. */
export { runLayout, episodeFileName, instanceFolderName, type RunLayout } from './layout.js';
export { JsonLinesWriter, RecordError, parseJsonLines, toJsonLine, checkRecord, type ParsedLines } from './jsonLines.js';
export { writeStatus, readStatus, type StatusRead } from './status.js';
export { EventLog, readEvents, type RunEventInput } from './events.js';
export { TrajectoryWriter, parseTrajectory, readTrajectory, type TrajectoryRead } from './trajectory.js';
export { writeReport, readReport } from './report.js';
export { listRuns, statusIsLive, type RunListing } from './discover.js';
