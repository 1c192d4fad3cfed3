/**
 * An episode as a person steps through it: built from a trajectory as read (`parseTrajectory`),
 * one view per step with its action kind, reward, the return so far, its duration and what went
 * wrong in it, plus the episode's outcome. A trajectory cut short (no `end` line, a torn last line)
 * and lines that are not valid records are shown as such, never fatal. `gp trajectory show` and
 * `export` read episodes through this model, and so does the trajectory viewer (episodeFiles.ts).
 */
import type { Action } from '../protocol/actions.js';
import type { TrajectoryEnd, TrajectoryStart, TrajectoryStep } from '../protocol/runs.js';
import type { TrajectoryRead } from '../runs/index.js';
import { candidateNumber, proposedCount } from '../protocol/repairCandidates.js';

/** What a step did: the explore operation, or the action type; `invalid` when the reply did not parse. */
export type StepKind = 'find' | 'expand' | 'read' | 'memory' | 'repair' | 'submit' | 'noop' | 'invalid';

export interface StepView {
  readonly step: number;
  readonly kind: StepKind;
  /** One line: the kind and its main parameters (`find anchors calc.add`, `repair 2 candidates, kept #1`). */
  readonly summary: string;
  readonly reward: number;
  /** The sum of rewards up to and including this step. */
  readonly cumulative: number;
  readonly durationMs: number;
  readonly protocolError: string | null;
  readonly fallback: string | null;
  /** An error the environment reported for this step (a failed read, a refused patch). */
  readonly error: string | null;
  readonly timedOut: boolean;
  readonly record: TrajectoryStep;
}

export interface EpisodeModel {
  readonly start: TrajectoryStart | undefined;
  readonly steps: StepView[];
  readonly end: TrajectoryEnd | undefined;
  /** No `end` line: the episode is still running, or its process died. */
  readonly cutShort: boolean;
  readonly torn: boolean;
  readonly problems: readonly string[];
}

export function buildEpisodeModel(read: TrajectoryRead): EpisodeModel {
  let cumulative = 0;
  const steps = read.steps.map((record): StepView => {
    const view = viewOfStep(record, cumulative);
    cumulative = view.cumulative;
    return view;
  });
  return { start: read.start, steps, end: read.end, cutShort: read.end === undefined, torn: read.torn, problems: read.problems };
}

/** One step's view; `before` is the return up to the step before it. */
export function viewOfStep(record: TrajectoryStep, before: number): StepView {
  const last = record.observation.last;
  const error =
    last !== undefined && 'error' in last && last.error !== undefined && last.kind !== 'protocol-error' ? `${last.error.code}: ${last.error.message}` : null;
  return {
    step: record.step,
    kind: kindOf(record.action),
    summary: summaryOf(record),
    reward: record.reward,
    cumulative: before + record.reward,
    durationMs: record.timings.agent_ms + record.timings.env_ms,
    protocolError: record.protocol_error === undefined ? null : `${record.protocol_error.code}: ${record.protocol_error.detail}`,
    fallback: record.fallback_reason ?? null,
    error,
    timedOut: record.termination_reason === 'step_timeout' || record.termination_reason === 'episode_timeout',
    record,
  };
}

export function kindOf(action: Action | undefined): StepKind {
  if (action === undefined) return 'invalid';
  return action.type === 'explore' ? action.op : action.type;
}

function summaryOf(record: TrajectoryStep): string {
  const a = record.action;
  const last = record.observation.last;
  if (a === undefined) return `invalid reply${record.protocol_error === undefined ? '' : ` (${record.protocol_error.code})`}`;
  switch (a.type) {
    case 'explore': {
      const targets = [...a.anchors.map((x) => x.text ?? x.id ?? JSON.stringify(x)), ...a.nodes];
      const found =
        last?.kind === 'find'
          ? `: ${last.nodes.length} nodes`
          : last?.kind === 'expand'
            ? `: ${last.candidates.length} candidates`
            : last?.kind === 'read'
              ? `: ${last.snippets.length} snippets`
              : '';
      return `${a.op} ${targets.slice(0, 3).join(', ')}${targets.length > 3 ? ` (+${targets.length - 3})` : ''}${found}`;
    }
    case 'memory':
      return `memory ${a.intent} ${a.target} (${a.scope})${last?.kind === 'memory' && !last.ok ? ' refused' : ''}`;
    case 'repair': {
      if (last?.kind !== 'repair') return `repair${a.plan === '' ? '' : `: ${a.plan}`}`;
      const kept = last.kept === undefined ? 'none kept' : `kept ${candidateNumber(last.kept)}`;
      const proposed = proposedCount(last, a.patches?.length);
      return `repair ${proposed} candidate${proposed === 1 ? '' : 's'} (${last.source}), ${kept}`;
    }
    case 'submit':
      return last?.kind === 'submit'
        ? `submit: ${last.resolved ? 'resolved' : 'not resolved'} (${last.tests.counts.PASSED} passed, ${last.tests.counts.FAILED + last.tests.counts.ERROR} failed)`
        : 'submit';
    case 'noop':
      return 'noop';
  }
}
