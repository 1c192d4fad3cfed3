/** Training: the environment service, `gp train`'s attempt (local or a Ray job), Verl overrides and metrics. */
export { EnvService, serviceFileName, type EnvServiceOptions } from './envService.js';
export { EpisodeConflict, ServiceEpisode, type ServiceEpisodeOptions } from './serviceEpisode.js';
export { RayJobsClient, RayJobsError, rayDashboardUrl } from './rayJobs.js';
export { clusterSlotsOf, rayNodesPath, readClusterSlots, type ClusterRead, type ClusterSlots, type SlotNode } from './rayCluster.js';
export { agentLoopName, hydraArgument, hydraValue, microBatchPerGpu, verlOverrides, type TrainPaths, type VerlOverride } from './verlOverrides.js';
export { MetricsTail } from './metricsTail.js';
export { Watchdog } from './watchdog.js';
export { runTraining, trainerArgv, trainPaths, type TrainRunOptions, type TrainRunResult } from './trainRun.js';
export { languageModelFile, modelSmoke, smokeBatch, smokeConfig, smokeLengths, smokePolicies, smokeSettings, type SmokePolicy, type SmokeSettings } from './smoke.js';
export { adapterDir, cliCommand, trainerPython, trainerVenv, visibleGpus } from './trainerEnvironment.js';
export { parseNodePrepullLine, runRayPrepull, type RayPrepullOptions, type RayPrepullResult } from './rayPrepull.js';
export { chooseHost, clusterSlots, type HostState, type RouteChoice, type RouteRequest } from './hostRouting.js';
export { HostPool, type Lease, type PoolHost } from './hostPool.js';
export { HostClient, HostHttpError, HostLostError } from './hostClient.js';
export { SandboxHost, type SandboxHostOptions } from './sandboxHost.js';
export { scriptedSmokePolicy } from './smoke.js';
export { startSandboxHosts, type SandboxHosts, type SandboxHostsOptions } from './sandboxHostsJob.js';
export { hostEpisodeRunner, type HostEpisodeRunnerOptions } from './hostEpisodeRunner.js';
