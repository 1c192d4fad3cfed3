/**
 * A model agent's figures (protocol/modelUsage.ts): one episode's, summed step by step as the
 * episode runs, and a run's, summed from its episodes' outcomes so that a resumed or sharded run
 * counts exactly like one that ran in one go.
 */
import type { AgentDecision } from '../agents/index.js';
import type { ModelSummary, ModelUsage } from '../protocol/modelUsage.js';
import type { TaskOutcome } from '../protocol/runs.js';

export const emptyModelUsage: ModelUsage = {
  model_steps: 0,
  parse_failures: {},
  fallback_steps: 0,
  calls: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  generation_ms: 0,
};

/**
 * Whether a decision came from a model at all: a model agent's call, or a raw reply (training's
 * environment service gets the reply, not the call). The rule agent's carry none of these.
 */
export function isModelDecision(decision: AgentDecision): boolean {
  return decision.model !== undefined || decision.response !== undefined || decision.fallbackReason !== undefined || decision.parseFailure !== undefined;
}

/** One step's call and fate added to an episode's usage. */
export function addModelStep(usage: ModelUsage, decision: AgentDecision): ModelUsage {
  const parse_failures = { ...usage.parse_failures };
  if (decision.parseFailure !== undefined) parse_failures[decision.parseFailure] = (parse_failures[decision.parseFailure] ?? 0) + 1;
  const own = decision.action !== undefined && decision.fallbackReason === undefined;
  return {
    model_steps: usage.model_steps + (own ? 1 : 0),
    parse_failures,
    fallback_steps: usage.fallback_steps + (decision.fallbackReason === undefined ? 0 : 1),
    calls: usage.calls + (decision.model === undefined ? 0 : 1),
    prompt_tokens: usage.prompt_tokens + (decision.model?.prompt_tokens ?? 0),
    completion_tokens: usage.completion_tokens + (decision.model?.completion_tokens ?? 0),
    generation_ms: usage.generation_ms + (decision.model?.generation_ms ?? 0),
  };
}

/**
 * A run's model figures, summed one episode at a time: a running run adds each episode as it
 * ends, so its status costs the same at the ten-thousandth episode as at the first.
 */
export class ModelTotals {
  private usage: ModelUsage = emptyModelUsage;
  private steps = 0;
  private episodes = 0;
  private aloneResolved = 0;
  private paddedResolved = 0;

  add(task: Pick<TaskOutcome, 'resolved' | 'steps' | 'model'>): void {
    const m = task.model;
    if (m === undefined) return;
    const parse_failures = { ...this.usage.parse_failures };
    for (const [code, n] of Object.entries(m.parse_failures)) parse_failures[code] = (parse_failures[code] ?? 0) + n;
    this.usage = {
      model_steps: this.usage.model_steps + m.model_steps,
      parse_failures,
      fallback_steps: this.usage.fallback_steps + m.fallback_steps,
      calls: this.usage.calls + m.calls,
      prompt_tokens: this.usage.prompt_tokens + m.prompt_tokens,
      completion_tokens: this.usage.completion_tokens + m.completion_tokens,
      generation_ms: this.usage.generation_ms + m.generation_ms,
    };
    this.episodes++;
    // A fork's replayed steps were its parent's; the share is of the steps this model could take.
    this.steps += Math.max(0, task.steps - (m.replayed_steps ?? 0));
    if (task.resolved && m.fallback_steps === 0) this.aloneResolved++;
    if (task.resolved && m.fallback_steps > 0) this.paddedResolved++;
  }

  /** The figures so far; undefined while no episode had a model agent. */
  summary(fallbackEnabled: boolean): ModelSummary | undefined {
    if (this.episodes === 0) return undefined;
    const usage = this.usage;
    const failures = Object.values(usage.parse_failures).reduce((a, b) => a + b, 0);
    // Replies that came back: the calls this process made, or, where the replies came from elsewhere
    // (training's agent loop), the model's own steps and its failures.
    const replies = Math.max(usage.calls, usage.model_steps + failures);
    return {
      ...usage,
      fallback_enabled: fallbackEnabled,
      steps: this.steps,
      parse_failure_rate: replies === 0 ? 0 : Math.min(1, failures / replies),
      model_step_share: this.steps === 0 ? 0 : Math.min(1, usage.model_steps / this.steps),
      resolved_by_model_alone: this.aloneResolved,
      resolved_with_fallback: this.paddedResolved,
    };
  }
}

/** A run's model figures from its episodes' outcomes; undefined when no episode had a model agent. */
export function summariseModel(tasks: readonly TaskOutcome[], fallbackEnabled: boolean): ModelSummary | undefined {
  const totals = new ModelTotals();
  for (const task of tasks) totals.add(task);
  return totals.summary(fallbackEnabled);
}
