export { openPlannerEnv } from './plannerEnv.js';
export { stepReward, limitReached, type StepVerdict } from './rewards.js';
export { WorkingMemory, estimateTokens } from './memory.js';
export { editsToDiff, applyLineEdits, fileDiff, type EditsResult } from './editsToDiff.js';
export { guardEdits, guardDiff, protectedFindings, protectedReason, type Window } from './guard.js';
export { suspectedHacks, graderSurfaceEvidence, addedCodeSignals } from './hackSignals.js';
export { renderObservation, renderResult } from './render.js';
export type { EnvOptions, EnvLimits, GuardSettings, PatchModel, PatchRequest, PlannerEnv, RewardSettings, StepOutcome } from './types.js';
