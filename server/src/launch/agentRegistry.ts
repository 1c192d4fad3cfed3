/**
 * The registry of agents: each agent of the one list (`protocol/agentNames.ts`) with how a run
 * builds it from its config and what the run started for it (the embedded servers, the planner's
 * prompt). `episodeDeps.ts` builds a run's agents through `agentFactoryFromConfig` and names no
 * agent itself. A new agent is its module in `agents/` with its entry (as `ruleAgentKind` in
 * `agents.ts`) and one line in `builtInAgents` below, its name added to the protocol's list; tests
 * add their own through `registerAgent`, which hands back the call that removes it.
 */
import type { AgentFactory } from '../agents/index.js';
import type { ExperimentConfig } from '../config/index.js';
import type { AgentName } from '../protocol/agentNames.js';
import { modelAgentKind, ruleAgentKind, type ModelSetup } from './agents.js';

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

const registered = new Map<string, AgentKind>(Object.values(builtInAgents).map((kind) => [kind.name, kind]));

/** Adds an agent (a test's fake, say) and returns the call that removes it again. */
export function registerAgent(kind: AgentKind): () => void {
  if (registered.has(kind.name)) throw new Error(`An agent named ${kind.name} is already registered.`);
  registered.set(kind.name, kind);
  return () => {
    // Only its own entry: a later registration under the same name is not this call's to remove.
    if (registered.get(kind.name) === kind) registered.delete(kind.name);
  };
}

/** The factory of the agents `rollout.agent` names; an unknown name is a bug, since the config's schema refuses it. */
export function agentFactoryFromConfig(config: ExperimentConfig, setup: ModelSetup = {}): AgentFactory {
  const kind = registered.get(config.rollout.agent);
  if (kind === undefined) throw new Error(`No agent is registered as ${config.rollout.agent}.`);
  return kind.factory(config, setup);
}
