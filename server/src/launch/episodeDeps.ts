/**
 * The real parts of an episode, chosen by the resolved config: sandboxes labelled with the run
 * name, the planner environment with the patch model `backends.cgm_protocol` names, the agent
 * `rollout.agent` names, and the reaper that removes this run's containers.
 */
import { resolve } from 'node:path';
import type { ExperimentConfig } from '../config/index.js';
import { openPlannerEnv } from '../env/index.js';
import type { EpisodeDeps } from '../rollout/index.js';
import { backendsFor, openSandbox, sandboxSpecForTask } from '../sandbox/index.js';
import { agentFactoryFromConfig, patchModelFromConfig } from './agentRegistry.js';
import type { ModelSetup } from './agents.js';
import { envOptionsFromConfig } from './envOptions.js';
import { sandboxOptionsFromConfig } from './sandboxOptions.js';

/** Throws `AgentConfigError` when the config asks for an agent it cannot make (no endpoint). */
export function episodeDepsFromConfig(config: ExperimentConfig, runName: string, runDir: string, models: ModelSetup = {}, node?: string): EpisodeDeps {
  const { testTimeoutMs: _testTimeoutMs, ...options } = sandboxOptionsFromConfig(config.sandbox, runName);
  // A sandbox host's containers carry its Ray node, so the Containers view and `gp containers list` say where they run.
  const sandboxOptions = node === undefined ? options : { ...options, node };
  const patchModel = patchModelFromConfig(config, models);
  const extra = { runDir, ...(patchModel === undefined ? {} : { patchModel }) };
  return {
    // The episode's label tells two attempts' containers apart in the Containers view, and the run
    // folder's tells the workspace's runs from other ones (a test suite's, another checkout's).
    openSandbox: (spec) =>
      openSandbox(sandboxSpecForTask(spec.task, { ...sandboxOptions, baseDir: spec.baseDir, episode: spec.episodeId, runDir: resolve(runDir) })),
    envOptions: (task) => envOptionsFromConfig(config, task, extra),
    openEnv: openPlannerEnv,
    makeAgent: agentFactoryFromConfig(config, models),
  };
}

/**
 * Removes this run's containers (`graph-planner.run=<run>`): with `includeLive` false only those
 * whose process is gone (left by an earlier process of a resumed run), with it true every one (at
 * the end of the run, when none of ours should be left). None when none of the backends the config
 * may use runs containers (the registry, `sandbox/backends.ts`).
 */
export function containerReaper(config: ExperimentConfig, runName: string): ((includeLive: boolean) => Promise<number>) | undefined {
  const kept = backendsFor(config.sandbox.backend).flatMap((backend) => (backend.containers === undefined ? [] : [backend.containers]));
  if (kept.length === 0) return undefined;
  return async (includeLive) => {
    let removed = 0;
    for (const containers of kept) removed += await containers.reap(runName, includeLive);
    return removed;
  };
}
