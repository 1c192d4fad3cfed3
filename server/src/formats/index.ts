/** Trajectory formats (ARCHITECTURE.md §2): other tools' trajectories (ATIF, SWE-agent, mini-swe-agent) told apart and read, our ATIF and Inspect AI exports, and episodes of any format opened for the viewer. */
export { toAtif, ourEpisodeOfAtif, type AtifOptions } from './atifExport.js';
export { EpisodeDocuments, TrajectoryFormatError, openDocument, type OpenedLoad } from './episodeDocuments.js';
export { openedHeader, openedRecords, openedRows, openedStepCount, searchOpened, type OpenedEpisode } from './openedEpisode.js';
export { foreignRows, foreignSummary, type ForeignEpisode } from './foreignEpisode.js';
export { foreignFormatOf, formatsRead, looksLikeOurJsonl, looksLikeZip } from './trajectoryFormat.js';
export { readInspectEval } from './inspectRead.js';
export { inspectEvalZip, inspectExport, inspectJson, type InspectExport } from './inspectExport.js';
