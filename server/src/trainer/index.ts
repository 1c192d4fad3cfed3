/**
 * Training: one `gp train` attempt (local or a Ray job) with its training parquet, the smoke's
 * policies and settings, the Verl overrides from the config table, Verl's metrics copied into
 * `metrics.jsonl` with each step's samples and figures, the stall watchdog, and the run record of a
 * trainer-driven run. Episodes reach the trainer through `cluster/`'s environment service.
 */
export {
  agentLoopName,
  estimatorModule,
  hydraArgument,
  hydraValue,
  microBatchPerGpu,
  verlOverrides,
  type TrainPaths,
  type VerlOverride,
} from './verlOverrides.js';
export { MetricsTail } from './metricsTail.js';
export { Watchdog } from './watchdog.js';
export { runTraining, trainerArgv, trainPaths, type TrainRunOptions, type TrainRunResult } from './trainRun.js';
export {
  languageModelFile,
  modelSmoke,
  smokeBatch,
  smokeConfig,
  smokeLengths,
  smokePolicies,
  smokeSettings,
  type SmokePolicy,
  type SmokeSettings,
} from './smoke.js';
export { scriptedSmokePolicy } from './smoke.js';
export { canaryConfig, canaryDefaults, canarySettings, writeCanaryFamily, type CanaryFamily, type CanarySettings, type CanaryTaskSpec } from './canary.js';
