/**
 * The one place where a resolved config becomes engine objects: the config read and resolved for
 * a command, its run folder, sandbox options, environment options, agents and the parts of an
 * episode. `env/`, `agents/` and `sandbox/` know nothing of configs; the CLI parses arguments and
 * prints, and everything in between is here.
 */
export { checksDisk, loadConfig, type ConfigRequest, type LoadedConfig } from './loadConfig.js';
export { moveRunFolder, planRunFolder, unusedFolder, writeResolvedConfig, type RunFolder, type RunFolderRequest } from './runFolder.js';
export { defaultSandboxOptions, sandboxLimitsFromConfig, sandboxOptionsFromConfig, type LaunchSandboxOptions } from './sandboxOptions.js';
export { sandboxSlots, slotShare } from './sandboxSlots.js';
export { effectiveMaxSteps, envOptionsFromConfig } from './envOptions.js';
export { AgentConfigError, checkAgentConfig, type ModelSetup, type PatchEndpoint } from './agents.js';
export { agentFactoryFromConfig, patchModelFromConfig, registerAgent, registerPatchModel, type AgentKind, type PatchModelKind } from './agentRegistry.js';
export { embeddedLine, embeddedRoles, startModelServers, type ModelServers, type ServedEndpoint } from './modelServers.js';
export { loadPlannerPrompt, PromptFileError, type PlannerPrompt } from './plannerPrompt.js';
export { containerReaper, episodeDepsFromConfig } from './episodeDeps.js';
export { loadRolloutTasks, newestUnfinishedRun, type LoadedTasks, type TaskSelection } from './rolloutTasks.js';
export { rolloutFlagOverrides, rolloutOptions } from './rolloutFlags.js';
export { displayCommand, newRunArgs, planLaunch, type LaunchPlan } from './launchPlan.js';
export { startDetached, type GpCommand, type ProcessExit, type StartedRun } from './detachedRun.js';
export { settleLaunchExit, startFollowed, type ExitedLaunch, type FollowedLaunch, type SettledExit } from './launchExit.js';
export { replaySetup, taskFilesOf, type ReplayRequest, type ReplaySetup } from './replaySetup.js';
export { EpisodeGoldFinder, parseDefinitions } from './episodeGold.js';
export { forkableSteps, forkPrefix, forkRolloutArgs, loadForkPrefix, readForkParent, type ForkArgs, type ForkRequest } from './forkLaunch.js';
