/**
 * Rollouts: episodes run through a bounded pool into a run directory, infrastructure failures told
 * apart from outcomes, stopping, and the evaluation report; also replaying a recorded episode and
 * verifying a dataset (each task's tests with no patch and with its gold patch, into a verdict).
 */
export { planEpisodes, episodeId, type EpisodeSpec, type ForkPrefix, type PlannedTask } from './plan.js';
export { runEpisode, type EpisodeDeps, type EpisodeContext, type EpisodeResult } from './episode.js';
export { runRollout, selectEpisodes, type RolloutOptions, type RolloutObserver, type RolloutResult, type ResumeSelection } from './run.js';
export {
  buildReport,
  reportFromOutcomes,
  failureReason,
  gradeFailure,
  interruptedSummary,
  taskOutcome,
  type FinishedEpisode,
  type InfrastructureFailed,
  type ReportInput,
} from './report.js';
export { describeInfrastructure, infrastructureFailure } from './infrastructure.js';
export { BackendTally } from './backends.js';
export { EpisodeStop, Stopped, type StopReason } from './stop.js';
export { replayEpisode, type Divergence, type ReplayDeps, type ReplayedStep, type ReplayReport } from './replay.js';
export { verifyTasks, type VerifyTask, type VerifyObserver, type VerifyOptions, type VerifyResult } from './verify.js';
export { verdictOf, certifiable, type GradedRun, type VerdictFields } from './verifyVerdict.js';
