/**
 * The agents and the patch model's endpoint an experiment config asks for: `rollout.agent` picks,
 * through the registry (`agentRegistry.ts`), the rule agent or the planner model behind
 * `backends.planner_endpoint` (or the embedded server the run started, modelServers.ts);
 * `backends.cgm_endpoint` is where the patch model `cgm_protocol` picks (`patchModels.ts`) is
 * asked. Keys are read from the environment variables the config names, never from the
 * config itself; an embedded server's key is the one it was started with.
 */
import { basename } from 'node:path';
import { createChatClient, createModelAgent, createRuleAgent, type AgentFactory } from '../agents/index.js';
import type { ExperimentConfig } from '../config/index.js';
import { agentUsesModel } from '../protocol/agentNames.js';
import { embeddedRoles, type ModelServers } from './modelServers.js';
import type { AgentKind } from './agentRegistry.js';
import type { PlannerPrompt } from './plannerPrompt.js';

/** A config that cannot make what it asks for, with the key to set. */
export class AgentConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentConfigError';
  }
}

function keyFrom(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** What the model side of a run is given besides the config: the servers it started and its prompt. */
export interface ModelSetup {
  readonly servers?: Pick<ModelServers, 'planner' | 'cgm'>;
  readonly prompt?: PlannerPrompt;
  readonly env?: NodeJS.ProcessEnv;
}

/** Refuses a config whose model agent has nowhere to send requests, before anything starts. */
export function checkAgentConfig(config: ExperimentConfig): void {
  if (!agentUsesModel(config.rollout.agent) || config.backends.planner_endpoint !== null || embeddedRoles(config).planner) return;
  throw new AgentConfigError(
    "rollout.agent is `model` but backends.planner_endpoint is not set: give the OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1), set backends.planner_backend to embedded to run the small model this machine's setup installed, or use --agent rule.",
  );
}

/** The model-free rule agent. */
export const ruleAgentKind: AgentKind = { name: 'rule', factory: () => () => createRuleAgent() };

/** The planner model behind `backends.planner_endpoint` or the embedded server the run started. */
export const modelAgentKind: AgentKind = { name: 'model', factory: modelAgentFactory };

function modelAgentFactory(config: ExperimentConfig, setup: ModelSetup): AgentFactory {
  checkAgentConfig(config);
  const env = setup.env ?? process.env;
  const { backends, planner_sampling: sampling } = config;
  const served = setup.servers?.planner;
  const baseUrl = served?.baseUrl ?? backends.planner_endpoint;
  if (baseUrl === null) throw new AgentConfigError('backends.planner_backend is embedded but no embedded server was started for this run.');
  const apiKey = served?.apiKey ?? keyFrom(backends.planner_api_key_env, env);
  const client = createChatClient({
    baseUrl,
    model: served?.model ?? backends.planner_model_name ?? basename(config.paths.planner_model),
    ...(apiKey === undefined ? {} : { apiKey }),
    temperature: sampling.temperature,
    topP: sampling.top_p,
    maxTokens: sampling.max_new_tokens,
    ...(sampling.stop.length > 0 ? { stop: sampling.stop } : {}),
    // llama.cpp's server defaults to a repetition penalty of 1.1 and top-k 40; the embedded server is
    // told the config's values, so its replies are sampled as the experiment says.
    ...(served === undefined ? {} : { extraBody: { repeat_penalty: sampling.repetition_penalty, top_k: Math.max(0, sampling.top_k) } }),
    timeoutMs: backends.request_timeout * 1000,
    retries: backends.request_retries,
    backoffMs: 500,
  });
  const fallback = config.rollout.fallback_to_rule ? () => createRuleAgent() : undefined;
  const structured = sampling.structured_output === 'off' ? undefined : sampling.structured_output;
  const prompt = setup.prompt;
  return () =>
    createModelAgent({
      client,
      maxInputTokens: sampling.max_input_tokens,
      ...(fallback === undefined ? {} : { fallback }),
      ...(structured === undefined ? {} : { structuredOutput: structured }),
      ...(prompt === undefined ? {} : { systemPrompt: prompt.systemPrompt }),
      ...(prompt?.observationBudget === undefined ? {} : { observationBudget: prompt.observationBudget }),
      ...(prompt?.exampleTurns === undefined ? {} : { exampleTurns: prompt.exampleTurns }),
    });
}

/** Where a run's patch model is served: `backends.cgm_endpoint`, or the embedded server the run started. */
export interface PatchEndpoint {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly model: string;
  /** The run's embedded server, which speaks chat completions only. */
  readonly embedded: boolean;
}

/** The patch model's endpoint; undefined when no CGM endpoint is configured and none was started. */
export function patchEndpointFromConfig(config: ExperimentConfig, setup: ModelSetup = {}): PatchEndpoint | undefined {
  const { backends } = config;
  const served = setup.servers?.cgm;
  const baseUrl = served?.baseUrl ?? backends.cgm_endpoint;
  if (baseUrl === null) return undefined;
  const apiKey = served?.apiKey ?? keyFrom(backends.cgm_api_key_env, setup.env ?? process.env);
  const model = served?.model ?? backends.cgm_model_name ?? basename(config.paths.cgm_model);
  return { baseUrl, ...(apiKey === undefined ? {} : { apiKey }), model, embedded: served !== undefined };
}
