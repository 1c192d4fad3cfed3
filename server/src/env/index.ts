/**
 * The planner environment: actions in, observations, rewards and limits out, with the working
 * memory, the guard rules on edits and diffs (the grader's protected paths included), edits made
 * into diffs, repair inside the sandbox, and suspected reward hacking flagged with its evidence. It
 * takes plain options; test runs are recorded through a callback `launch/` binds to the run folder.
 */
export { openPlannerEnv } from './plannerEnv.js';
export { stepReward, limitReached, type StepVerdict } from './rewards.js';
export { WorkingMemory, estimateTokens } from './memory.js';
export { editsToDiff, applyLineEdits, fileDiff, type EditsResult } from './editsToDiff.js';
export { guardEdits, guardDiff, protectedFindings, protectedReason, type Window } from './guard.js';
export { suspectedHacks, graderSurfaceEvidence, addedCodeSignals } from './hackSignals.js';
export { renderObservation, renderResult } from './render.js';
export type { EnvOptions, EnvLimits, GuardSettings, PatchModel, PatchRequest, PlannerEnv, RewardSettings, StepOutcome } from './types.js';
