/** Our own episodes as a person reads them (ARCHITECTURE.md §2): the step model, its files kept parsed and followed, rows, search, alignment, a step's texts, patches as whole files, the whole prompt, replay comparison. */
export { buildEpisodeModel, kindOf, viewOfStep, type EpisodeModel, type StepKind, type StepView } from './episodeModel.js';
export { wholePrompts } from './promptTokens.js';
export { nextMatchStep, searchEpisode, searchSteps, type SearchField, type SearchMatch, type SearchOptions } from './episodeSearch.js';
export { alignEpisodes, stepSignature, type AlignedRow } from './episodeAlign.js';
export { EpisodeFiles, type EpisodeLoad } from './episodeFiles.js';
export { episodeHeader, recordedSource, stepRow } from './episodeRows.js';
export { patchImages, runDirOfTrajectory, type PatchImages, type PatchRef } from './patchImages.js';
export { EpisodeWatch } from './episodeWatch.js';
export { runOfTrajectory, type TrajectoryRun } from './trajectoryRun.js';
export { compareStep, normaliseText, type Difference, type StepRecord } from './replayCompare.js';
export { stepTexts } from './stepTexts.js';
