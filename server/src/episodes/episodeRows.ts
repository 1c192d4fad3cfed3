/**
 * The episode model as the trajectory viewer receives it: a header and one small row per step
 * (the full step records travel only when a step is shown), and what the episode recorded of a
 * repository file, for links to files that are not in the workspace.
 */
import type { EpisodeHeader, StepRow } from '../protocol/episodeView.js';
import type { EpisodeModel, StepView } from './episodeModel.js';

export function episodeHeader(file: string, model: EpisodeModel): EpisodeHeader {
  const { start, end } = model;
  return {
    file,
    episodeId: start?.episode_id ?? end?.episode_id ?? null,
    taskId: start?.task_id ?? end?.task_id ?? null,
    agent: start?.agent ?? null,
    backend: start?.backend ?? null,
    backendFallback: start?.backend_fallback?.reason ?? null,
    image: start?.image ?? null,
    sandboxHost: start?.sandbox_host ?? null,
    issue: start?.observation.issue ?? null,
    maxSteps: start?.max_steps ?? null,
    startedAt: start?.started_at ?? null,
    outcome:
      end === undefined
        ? null
        : {
            resolved: end.resolved,
            terminationReason: end.termination_reason,
            totalReward: end.total_reward,
            steps: end.steps,
            durationMs: end.duration_ms,
            error: end.error ?? null,
            patch: end.patch,
            noOutcome: end.infrastructure === undefined ? null : `${end.infrastructure.code}: ${end.infrastructure.cause}`,
          },
    cutShort: model.cutShort,
    torn: model.torn,
    problems: [...model.problems],
    ...(start?.fork === undefined ? {} : { fork: { episodeId: start.fork.episode_id, trajectory: start.fork.trajectory, step: start.fork.step } }),
  };
}

export function stepRow(view: StepView): StepRow {
  const last = view.record.observation.last;
  return {
    step: view.step,
    kind: view.kind,
    summary: view.summary,
    reward: view.reward,
    cumulative: view.cumulative,
    durationMs: view.durationMs,
    protocolError: view.protocolError,
    fallback: view.fallback,
    error: view.error,
    timedOut: view.timedOut,
    candidates: last?.kind === 'repair' ? last.candidates.length : 0,
    ...(last?.kind === 'submit' && last.suspected_hacks !== undefined ? { suspectedHacks: last.suspected_hacks.length } : {}),
    ...(view.record.replayed === true ? { replayed: true as const } : {}),
  };
}

/**
 * The lines of `file` the episode's reads returned, each at its own line number; lines never read
 * are empty. `recordedLines` is how many lines the episode saw.
 */
export function recordedSource(model: EpisodeModel, file: string): { text: string; recordedLines: number } {
  const lines: string[] = [];
  let recorded = 0;
  for (const view of model.steps) {
    const last = view.record.observation.last;
    if (last?.kind !== 'read') continue;
    for (const snippet of last.snippets) {
      if (snippet.path !== file) continue;
      snippet.text.split('\n').forEach((text, i) => {
        const at = snippet.start - 1 + i;
        while (lines.length < at) lines.push('');
        if (lines[at] === undefined || lines[at] === '') recorded++;
        lines[at] = text;
      });
    }
  }
  return { text: lines.join('\n'), recordedLines: recorded };
}
