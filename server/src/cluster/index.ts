/** Episodes over HTTP and across a Ray cluster (ARCHITECTURE.md §2): the environment service, the sandbox hosts with their registry, routing and client, Ray's jobs and nodes, and the pre-pull; shared by `gp train`, `gp eval --ray` and `gp images prepull --ray`. */
export { EnvService, serviceFileName, type EnvServiceOptions } from './envService.js';
export { EpisodeConflict, ServiceEpisode, type ServiceEpisodeOptions, type ServicePrompt } from './serviceEpisode.js';
export { RayJobsClient, RayJobsError, rayDashboardUrl } from './rayJobs.js';
export { clusterSlotsOf, rayNodesPath, readClusterSlots, type ClusterRead, type ClusterSlots, type SlotNode } from './rayCluster.js';
export { parseNodePrepullLine, runRayPrepull, type RayPrepullOptions, type RayPrepullResult } from './rayPrepull.js';
export { chooseHost, clusterSlots, type HostState, type RouteChoice, type RouteRequest } from './hostRouting.js';
export { HostPool, type Lease, type PoolHost } from './hostPool.js';
export { HostClient, HostHttpError, HostLostError } from './hostClient.js';
export { SandboxHost, type SandboxHostOptions } from './sandboxHost.js';
export { startSandboxHosts, type SandboxHosts, type SandboxHostsOptions } from './sandboxHostsJob.js';
export { hostEpisodeRunner, type HostEpisodeRunnerOptions } from './hostEpisodeRunner.js';
export { launchLocal, launchRayJob, raySubmissionId, shellCommand, type TrainerHandle } from './jobLaunch.js';
export { adapterDir, cliCommand, trainerPython, trainerVenv, visibleGpus } from './trainerEnvironment.js';
