/**
 * An episode in the Agent Trajectory Interchange Format (`protocol/atif.ts`). The mapping
 * (docs/trajectory-formats.md): the first observation, which holds the issue, is the first step, from the user; each of our steps is an
 * agent step whose one tool call is the action (the function name is its type, the arguments its
 * parameters), whose observation is the text the model saw next, and whose `metrics.extra` keeps
 * what RL needs and ATIF has no field for (reward, return, timings, protocol errors, fallbacks);
 * the outcome goes in `final_metrics.extra`. Every export is checked against the schema.
 */
import { atifSchemaVersion, atifTrajectorySchema, type AtifStep, type AtifTrajectory } from '../protocol/atif.js';
import type { EpisodeModel } from './episodeModel.js';

export interface AtifOptions {
  /** The producing tool's version, for `agent.version`. */
  readonly version: string;
}

export function toAtif(model: EpisodeModel, options: AtifOptions): AtifTrajectory {
  const start = model.start;
  const steps: AtifStep[] = [];
  // The first thing the agent saw: the observation after reset, which holds the issue.
  steps.push({
    step_id: 1,
    ...(start === undefined ? {} : { timestamp: start.started_at }),
    source: 'user',
    message: start?.observation.text ?? '',
  });
  for (const view of model.steps) {
    const r = view.record;
    const callId = `step-${r.step}`;
    const { type, thought, ...args } = r.action ?? { type: 'invalid', thought: undefined };
    steps.push({
      step_id: steps.length + 1,
      source: 'agent',
      message: r.response ?? thought ?? view.summary,
      ...(thought === undefined ? {} : { reasoning_content: thought }),
      ...(r.action === undefined ? {} : { tool_calls: [{ tool_call_id: callId, function_name: type, arguments: args as Record<string, unknown> }] }),
      observation: { results: [{ ...(r.action === undefined ? {} : { source_call_id: callId }), content: r.observation.text }] },
      metrics: {
        extra: {
          reward: r.reward,
          return: view.cumulative,
          timings_ms: r.timings,
          ...(view.protocolError === null ? {} : { protocol_error: view.protocolError }),
          ...(view.fallback === null ? {} : { fallback_reason: view.fallback }),
          ...(view.error === null ? {} : { error: view.error }),
          ...(r.termination_reason === undefined ? {} : { termination_reason: r.termination_reason }),
        },
      },
    });
  }
  const end = model.end;
  const trajectory = {
    schema_version: atifSchemaVersion,
    session_id: start?.episode_id ?? end?.episode_id ?? 'unknown-episode',
    agent: { name: `graph-planner-${start?.agent ?? 'agent'}`, version: options.version, extra: { backend: start?.backend, max_steps: start?.max_steps, rewards: start?.rewards } },
    steps,
    ...(model.cutShort ? { notes: 'The trajectory has no end line: the episode was still running or its process died; the outcome is unknown.' } : {}),
    final_metrics: {
      total_steps: model.steps.length,
      extra: {
        task_id: start?.task_id ?? end?.task_id,
        ...(end === undefined ? {} : { resolved: end.resolved, total_reward: end.total_reward, termination_reason: end.termination_reason, duration_ms: end.duration_ms, patch: end.patch }),
      },
    },
  };
  return atifTrajectorySchema.parse(trajectory);
}
