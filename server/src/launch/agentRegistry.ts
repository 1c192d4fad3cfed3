/**
 * The registry of agents and of patch models: each of the protocol's lists
 * (`protocol/agentNames.ts`) with how a run builds it from its config and what the run started for
 * it (the embedded servers, the planner's prompt). `episodeDeps.ts` builds a run's agents through
 * `agentFactoryFromConfig` and its patch model through `patchModelFromConfig`, and names neither
 * itself. A new agent is its module in `agents/` with its entry (as `ruleAgentKind` in `agents.ts`)
 * and one line in `builtInAgents` below; a new patch model likewise, with its entry as
 * `cgmChatKind` in `patchModels.ts` and its line in `builtInPatchModels`; each name is added to the
 * protocol's list. Tests add their own through `registerAgent` and `registerPatchModel`, which
 * hand back the call that removes it.
 */
import type { AgentFactory } from '../agents/index.js';
import type { ExperimentConfig } from '../config/index.js';
import type { PatchModel } from '../env/index.js';
import type { AgentName, PatchModelName } from '../protocol/agentNames.js';
import { modelAgentKind, patchEndpointFromConfig, ruleAgentKind, type ModelSetup, type PatchEndpoint } from './agents.js';
import { cgmChatKind, cgmGenerateKind } from './patchModels.js';

/** One agent as the registry holds it. */
export interface AgentKind {
  /** Its name in `rollout.agent`. */
  readonly name: string;
  /** The factory of a run's agents, one per episode. */
  factory(config: ExperimentConfig, setup: ModelSetup): AgentFactory;
}

/** Every agent of the protocol's list, each registered once; the type refuses a name left out. */
const builtInAgents: { readonly [name in AgentName]: AgentKind } = {
  rule: ruleAgentKind,
  model: modelAgentKind,
};

/** One patch model as the registry holds it. */
export interface PatchModelKind {
  /** Its name in `backends.cgm_protocol`. */
  readonly name: string;
  /** The run's patch model, asked at the endpoint given. */
  build(config: ExperimentConfig, endpoint: PatchEndpoint): PatchModel;
}

/** Every patch model of the protocol's list, each registered once; the type refuses a name left out. */
const builtInPatchModels: { readonly [name in PatchModelName]: PatchModelKind } = {
  generate: cgmGenerateKind,
  chat: cgmChatKind,
};

const registered = new Map<string, AgentKind>(Object.values(builtInAgents).map((kind) => [kind.name, kind]));
const registeredPatchModels = new Map<string, PatchModelKind>(Object.values(builtInPatchModels).map((kind) => [kind.name, kind]));

/** Adds `entry` to `registry` under its name and returns the call that removes it again. */
function register<T extends { readonly name: string }>(registry: Map<string, T>, entry: T, what: string): () => void {
  if (registry.has(entry.name)) throw new Error(`${what} named ${entry.name} is already registered.`);
  registry.set(entry.name, entry);
  return () => {
    // Only its own entry: a later registration under the same name is not this call's to remove.
    if (registry.get(entry.name) === entry) registry.delete(entry.name);
  };
}

/** Adds an agent (a test's fake, say) and returns the call that removes it again. */
export function registerAgent(kind: AgentKind): () => void {
  return register(registered, kind, 'An agent');
}

/** Adds a patch model (a test's fake, say) and returns the call that removes it again. */
export function registerPatchModel(kind: PatchModelKind): () => void {
  return register(registeredPatchModels, kind, 'A patch model');
}

/** The factory of the agents `rollout.agent` names; an unknown name is a bug, since the config's schema refuses it. */
export function agentFactoryFromConfig(config: ExperimentConfig, setup: ModelSetup = {}): AgentFactory {
  const kind = registered.get(config.rollout.agent);
  if (kind === undefined) throw new Error(`No agent is registered as ${config.rollout.agent}.`);
  return kind.factory(config, setup);
}

/**
 * The patch model for repairs without ready patches, the one `backends.cgm_protocol` names;
 * undefined when no CGM endpoint is configured and none was started. An unknown name is a bug,
 * since the config's schema refuses it.
 */
export function patchModelFromConfig(config: ExperimentConfig, setup: ModelSetup = {}): PatchModel | undefined {
  const endpoint = patchEndpointFromConfig(config, setup);
  if (endpoint === undefined) return undefined;
  // The embedded server speaks chat completions only, whatever cgm_protocol says.
  const name = endpoint.embedded ? cgmChatKind.name : config.backends.cgm_protocol;
  const kind = registeredPatchModels.get(name);
  if (kind === undefined) throw new Error(`No patch model is registered as ${name}.`);
  return kind.build(config, endpoint);
}
