/**
 * The agent and the patch model an experiment config asks for: `rollout.agent` picks the rule
 * agent or the planner model behind `backends.planner_endpoint`; `backends.cgm_endpoint` (with
 * `cgm_protocol`) gives the environment its patch model. Keys are read from the environment
 * variables the config names, never from the config itself.
 */
import { basename } from 'node:path';
import { createCgmChatModel, createCgmHttpModel, createChatClient, createModelAgent, createRuleAgent, type AgentFactory } from '../agents/index.js';
import type { ExperimentConfig } from '../config/index.js';
import type { PatchModel } from '../env/index.js';

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

export function agentFactoryFromConfig(config: ExperimentConfig, env: NodeJS.ProcessEnv = process.env): AgentFactory {
  if (config.rollout.agent === 'rule') return () => createRuleAgent();
  const { backends, planner_sampling: sampling } = config;
  if (backends.planner_endpoint === null) {
    throw new AgentConfigError('rollout.agent is `model` but backends.planner_endpoint is not set: give the OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1), or use --agent rule.');
  }
  const apiKey = keyFrom(backends.planner_api_key_env, env);
  const client = createChatClient({
    baseUrl: backends.planner_endpoint,
    model: backends.planner_model_name ?? basename(config.paths.planner_model),
    ...(apiKey === undefined ? {} : { apiKey }),
    temperature: sampling.temperature,
    topP: sampling.top_p,
    maxTokens: sampling.max_new_tokens,
    ...(sampling.stop.length > 0 ? { stop: sampling.stop } : {}),
    timeoutMs: backends.request_timeout * 1000,
    retries: backends.request_retries,
    backoffMs: 500,
  });
  const fallback = config.rollout.fallback_to_rule ? () => createRuleAgent() : undefined;
  return () => createModelAgent({ client, ...(fallback === undefined ? {} : { fallback }) });
}

/** The patch model for repairs without ready patches; undefined when no CGM endpoint is configured. */
export function patchModelFromConfig(config: ExperimentConfig, env: NodeJS.ProcessEnv = process.env): PatchModel | undefined {
  const { backends, cgm_generation: generation } = config;
  if (backends.cgm_endpoint === null) return undefined;
  const apiKey = keyFrom(backends.cgm_api_key_env, env);
  const model = backends.cgm_model_name ?? basename(config.paths.cgm_model);
  const timeoutMs = backends.request_timeout * 1000;
  if (backends.cgm_protocol === 'generate') {
    return createCgmHttpModel({
      endpoint: backends.cgm_endpoint,
      ...(apiKey === undefined ? {} : { apiKey }),
      model,
      temperature: generation.temperature,
      maxTokens: generation.max_new_tokens,
      timeoutMs,
      retries: backends.request_retries,
    });
  }
  const client = createChatClient({
    baseUrl: backends.cgm_endpoint,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    temperature: generation.temperature,
    topP: generation.top_p,
    maxTokens: generation.max_new_tokens,
    timeoutMs,
    retries: backends.request_retries,
    backoffMs: 500,
  });
  return createCgmChatModel({ client, n: generation.num_return_sequences });
}
