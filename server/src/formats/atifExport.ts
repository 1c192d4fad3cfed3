/**
 * An episode in the Agent Trajectory Interchange Format (`protocol/atif.ts`), and back. The mapping
 * (docs/trajectory-formats.md): the first observation, which holds the issue, is the first step,
 * from the user; each of our steps is an agent step whose one tool call is the action (the function
 * name is its type, the arguments its parameters) and whose observation is the text the model saw
 * next. A step the model produced says so (`llm_call_count` 1, its tokens and, for a training
 * episode, the token ids and log-probabilities in `metrics`, each prompt whole as ATIF has it even
 * when the step recorded it as a change to the one before, `promptTokens.ts`); the rule agent's steps are
 * deterministic (`llm_call_count` 0, no metrics). What RL needs and ATIF has no field for (reward,
 * return, timings, errors) is in each step's `extra`, beside our whole step record under
 * `graph_planner`, so that reading our own export back (`ourEpisodeOfAtif`) rebuilds the episode the
 * viewer showed. Every export is checked against the schema of the version it names.
 */
import {
  atifExportVersion,
  atifOwnEpisodeSchema,
  atifOwnKey,
  atifOwnStepSchema,
  atifTrajectorySchema,
  type AtifStep,
  type AtifTrajectory,
} from '../protocol/atif.js';
import type { TrajectoryStep } from '../protocol/runs.js';
import { isRecord } from '../util/isRecord.js';
import { type EpisodeModel, type StepView, wholePrompts } from '../episodes/index.js';
import type { TrajectoryRead } from '../runs/index.js';

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
  // ATIF wants each turn's prompt whole; a training step may have recorded it as a change to the turn before.
  const prompts = wholePrompts(model.steps.map((view) => view.record));
  model.steps.forEach((view, i) => steps.push(agentStep(view, steps.length + 1, prompts[i])));
  const end = model.end;
  const episodeId = start?.episode_id ?? end?.episode_id ?? 'unknown-episode';
  const trajectory: AtifTrajectory = {
    schema_version: atifExportVersion,
    session_id: episodeId,
    trajectory_id: episodeId,
    agent: {
      name: `graph-planner-${start?.agent ?? 'agent'}`,
      version: options.version,
      extra: { backend: start?.backend, max_steps: start?.max_steps, rewards: start?.rewards },
    },
    steps,
    ...(model.cutShort ? { notes: 'The trajectory has no end line: the episode was still running or its process died; the outcome is unknown.' } : {}),
    final_metrics: {
      total_steps: model.steps.length,
      extra: {
        task_id: start?.task_id ?? end?.task_id,
        ...(end === undefined
          ? {}
          : {
              resolved: end.resolved,
              total_reward: end.total_reward,
              termination_reason: end.termination_reason,
              duration_ms: end.duration_ms,
              patch: end.patch,
            }),
      },
    },
    extra: {
      [atifOwnKey]: { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }), torn: model.torn, problems: [...model.problems] },
    },
  };
  return atifTrajectorySchema.parse(trajectory);
}

/** Whether a model produced the step (a reply, a model call or sampled tokens), as ATIF's `llm_call_count` asks. */
function fromModel(r: TrajectoryStep): boolean {
  return r.response !== undefined || r.model !== undefined || r.tokens !== undefined;
}

function agentStep(view: StepView, stepId: number, prompt: number[] | undefined): AtifStep {
  const r = view.record;
  const callId = `step-${r.step}`;
  const { type, thought, ...args } = r.action ?? { type: 'invalid', thought: undefined };
  const llm = fromModel(r);
  const metrics = {
    ...(r.model?.prompt_tokens === undefined ? {} : { prompt_tokens: r.model.prompt_tokens }),
    ...(r.model?.completion_tokens === undefined ? {} : { completion_tokens: r.model.completion_tokens }),
    ...(prompt === undefined ? {} : { prompt_token_ids: prompt }),
    ...(r.tokens === undefined ? {} : { completion_token_ids: r.tokens.completion_token_ids }),
    ...(r.tokens?.logprobs === undefined ? {} : { logprobs: r.tokens.logprobs }),
  };
  return {
    step_id: stepId,
    source: 'agent',
    message: r.response ?? thought ?? view.summary,
    // A deterministic step (the rule agent's) may carry neither reasoning nor metrics (ATIF v1.7); its thought is its message.
    ...(llm && thought !== undefined ? { reasoning_content: thought } : {}),
    ...(r.action === undefined ? {} : { tool_calls: [{ tool_call_id: callId, function_name: type, arguments: args as Record<string, unknown> }] }),
    observation: { results: [{ ...(r.action === undefined ? {} : { source_call_id: callId }), content: r.observation.text }] },
    ...(llm && Object.keys(metrics).length > 0 ? { metrics } : {}),
    llm_call_count: llm ? (r.model?.attempts ?? 1) : 0,
    extra: {
      reward: r.reward,
      // The return so far, under the key other tools read from our exports (docs/trajectory-formats.md).
      return: view.cumulative,
      timings_ms: r.timings,
      ...(view.protocolError === null ? {} : { protocol_error: view.protocolError }),
      ...(view.fallback === null ? {} : { fallback_reason: view.fallback }),
      ...(view.error === null ? {} : { error: view.error }),
      ...(r.termination_reason === undefined ? {} : { termination_reason: r.termination_reason }),
      [atifOwnKey]: { record: r },
    },
  };
}

/**
 * Our episode again from an ATIF document we exported: the start and end lines from the root's
 * `extra`, each step's record from its own. Undefined when the document is not our export, or when
 * any record under our key does not parse (then it is read as any other ATIF file).
 */
export function ourEpisodeOfAtif(value: unknown): TrajectoryRead | undefined {
  if (!isRecord(value) || !isRecord(value['extra'])) return undefined;
  const own = atifOwnEpisodeSchema.safeParse(value['extra'][atifOwnKey]);
  if (!own.success || !Array.isArray(value['steps'])) return undefined;
  const steps: TrajectoryStep[] = [];
  for (const step of value['steps']) {
    if (!isRecord(step) || step['source'] !== 'agent') continue;
    const extra = step['extra'];
    const record = atifOwnStepSchema.safeParse(isRecord(extra) ? extra[atifOwnKey] : undefined);
    if (!record.success) return undefined;
    steps.push(record.data.record);
  }
  return { start: own.data.start, steps, end: own.data.end, torn: own.data.torn, problems: own.data.problems };
}
