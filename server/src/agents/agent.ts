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

/** A step of a recorded episode as a fork's agent is told of it: what was done, or the reply that did not parse. */
export interface RecordedDecision {
  readonly action?: Action;
  readonly protocolError?: ProtocolError;
  readonly response?: string;
}

export interface Agent {
  readonly name: string;
  act(observation: Observation, signal: AbortSignal): Promise<AgentDecision>;
  /**
   * Takes in a step this agent did not choose (a fork's replayed prefix, rollout/forkPrefix.ts):
   * the observation it would have acted on and what was done, so that it goes on from there as if
   * it had taken the step itself. An agent without it cannot continue a recorded episode.
   */
  prime?(observation: Observation, recorded: RecordedDecision): void;
}

/** Makes a fresh agent for each episode. */
export type AgentFactory = (task: TaskEntry) => Agent;
