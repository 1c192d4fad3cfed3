/**
 * Sandboxes: where a task's repository lives and commands run, behind the `Sandbox` interface and
 * the registry of its backends (a Docker container, or a local working copy under bubblewrap). The
 * folder also owns what a sandbox is made from: a repository's history up to the task's base, the
 * host folders a task may mount, a task's Python environment and images, readiness before opening,
 * and the Docker side of the Containers view (listing, events, reaping).
 */
export {
  SandboxError,
  backendChoiceOf,
  type Sandbox,
  type Command,
  type ExecOptions,
  type OutputChunk,
  type ReadTreeOptions,
  type TreeFile,
} from './sandbox.js';
export { connectDocker, dockerAvailable, dockerLocation, reachDocker, type DockerReach } from './dockerClient.js';
export { DockerSandbox } from './dockerSandbox.js';
export { LocalSandbox } from './localSandbox.js';
export { localIsolation, isolationSwitch, type LocalIsolation } from './bubblewrap.js';
export { refusedMounts } from './mountPolicy.js';
export {
  openSandbox,
  chooseBackend,
  liveEngine,
  taskSource,
  sandboxSpecForTask,
  normaliseMounts,
  pythonEnvRequestOf,
  taskLimits,
  type DockerEngineView,
  type EngineReach,
  type SandboxSource,
  type TaskSandboxOptions,
  type TaskSourceFields,
} from './openSandbox.js';
export { taskReadiness } from './taskReadiness.js';
export {
  backendsFor,
  containerBackends,
  registerSandboxBackend,
  sandboxBackend,
  slotShareFor,
  type BackendContainers,
  type ReadinessProbe,
  type ReadinessProblem,
  type SandboxBackend,
} from './backends.js';
export { nodeReserve, slotsFor, steadyShare, type NodeResources, type SlotCount, type SlotShare } from './slots.js';
export {
  findInterpreter,
  resolvePythonEnv,
  pythonEnvsRoot,
  envPaths,
  builtEnvRecord,
  hasSrcLayout,
  pythonPathFolders,
  type Interpreter,
  type ResolvedPythonEnv,
} from './pythonEnv.js';
export { buildPythonEnv, type BuildEnvOptions, type BuiltEnv } from './pythonEnvBuild.js';
export { patchChanges, patchPaths, unsafePathReason, type PatchChange } from './patchPaths.js';
export { shellQuote } from './commandScript.js';
export { ownerLabels, listContainers, reapContainers, processAlive, type ReapOptions, type ReapResult } from './containers.js';
export { imagesPresent, prepullImages, type PrepullEvent, type PrepullOptions } from './prepull.js';
export { buildImages, buildPythonEnvImage, buildRecipeImage, buildTaskImage, pythonEnvImageTag } from './images/index.js';
export { ContainerService, daemonHint, type ContainerBackend, type ContainerServiceOptions } from './containerService.js';
export { ContainerEventFollower, eventReason, type FollowerClock, type FollowerOptions, type OpenEvents, type EventStream } from './containerEvents.js';
