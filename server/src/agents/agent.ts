/**
 * What an agent is to a rollout: something that, given an observation, chooses the next action.
 * One agent object serves one episode, so agents may keep state between steps.
 */
import type { Action, ProtocolError } from '../protocol/actions.js';
import type { ModelCall } from '../protocol/modelUsage.js';
import type { Observation } from '../protocol/observation.js';
import type { StepTokens } from '../protocol/runs.js';
import type { TaskEntry } from '../tasks/index.js';

export interface AgentDecision {
  /** The action to execute; absent when the reply could not be parsed and there was no fallback. */
  action?: Action;
  protocolError?: ProtocolError;
  /** The model's raw reply, for model agents. */
  response?: string;
  /** Set when a model agent handed the step to the rule agent, with why (an error code). */
  fallbackReason?: string;
  /** The model call behind the step (model agents): tokens, time, attempts. */
  model?: ModelCall;
  /** The protocol error code of a reply that did not parse, whether or not a fallback then took the step. */
  parseFailure?: string;
  /** The policy's tokens behind the reply, when the one who sent it gave them (a trainer's agent loop). */
  tokens?: StepTokens;
}

export interface Agent {
  readonly name: string;
  act(observation: Observation, signal: AbortSignal): Promise<AgentDecision>;
}

/** Makes a fresh agent for each episode. */
export type AgentFactory = (task: TaskEntry) => Agent;
