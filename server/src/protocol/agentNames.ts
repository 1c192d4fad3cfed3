/**
 * The one list of agents `rollout.agent` may name, and of the patch models `backends.cgm_protocol`
 * may name. The config's enum, the launch messages, the
 * CLI's usage and the extension's agent picker derive from it; how a run builds each agent from
 * its config is registered in `server/src/launch/agentRegistry.ts`. Adding an agent is one entry
 * here and one registration there (ARCHITECTURE.md, "Adding a backend, a dataset format or an
 * agent").
 *
 * The file imports nothing, not even zod, so the extension's picker reads it without loading zod
 * at activation (`test/unit/extensionActivationImports.test.ts`).
 */

/**
 * Each agent with what the rest of the code asks of it without building it: whether it asks a
 * planner model, which decides whether a run starts the embedded planner, loads the planner's
 * prompt and checks its endpoint, and whether the preflight's model notes apply.
 */
export const agentTable = {
  rule: { usesModel: false },
  model: { usesModel: true },
} as const;

export type AgentName = keyof typeof agentTable;

/** The agents in the table's order. The cast gives zod's `z.enum` the non-empty tuple it needs; the table above is not empty. */
export const agentNames = Object.keys(agentTable) as [AgentName, ...AgentName[]];

/** Whether an agent asks a planner model. */
export function agentUsesModel(agent: string): boolean {
  return agent in agentTable && agentTable[agent as AgentName].usesModel;
}

/**
 * The patch models the environment's repairs may ask (`backends.cgm_protocol`): CGM's own JSON body
 * posted to its endpoint, or CGM through OpenAI-compatible chat completions. The config's enum
 * derives from it; how a run builds each from its config is registered beside the agents, in
 * `server/src/launch/agentRegistry.ts`.
 */
export const patchModelNames = ['generate', 'chat'] as const;

export type PatchModelName = (typeof patchModelNames)[number];
