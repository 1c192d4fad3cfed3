/** Training: `gp train`'s attempt (local or a Ray job), the smoke, Verl overrides and metrics. */
export { agentLoopName, hydraArgument, hydraValue, microBatchPerGpu, verlOverrides, type TrainPaths, type VerlOverride } from './verlOverrides.js';
export { MetricsTail } from './metricsTail.js';
export { Watchdog } from './watchdog.js';
export { runTraining, trainerArgv, trainPaths, type TrainRunOptions, type TrainRunResult } from './trainRun.js';
export { languageModelFile, modelSmoke, smokeBatch, smokeConfig, smokeLengths, smokePolicies, smokeSettings, type SmokePolicy, type SmokeSettings } from './smoke.js';
export { scriptedSmokePolicy } from './smoke.js';
