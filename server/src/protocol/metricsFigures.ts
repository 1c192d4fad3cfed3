/**
 * The metrics page's figures, each defined once, so the page's header, its chart tiles and
 * `gp runs show --metrics` cannot disagree (issue 27 found "83%" in the header beside "74%" in a
 * tile, the difference explained only in a hover).
 *
 * - **Resolved rate** is resolved episodes over the episodes that reached an outcome: every `env`
 *   line of `metrics.jsonl` is one ended episode (protocol/metrics.ts), and one that reached no
 *   outcome (its `no_outcome`, protocol/noOutcome.ts) is the infrastructure's failure, not the
 *   task's result, so it is counted beside the rate and not in it. Over the whole run it is the
 *   header's figure; over one training step's episodes (those that ended after the previous step's
 *   line and by this one's) it is that step's point.
 * - A chart's tile is its **latest step's value**, as recorded and named with its step, so it is a
 *   different figure from the whole run's and says so. When the page smooths its lines, the tile
 *   leads with the **smoothed latest value**, the bold line's end, named as such, and keeps the
 *   recorded value beside it (issue 37 found a headline that matched neither line a person sees).
 */

export interface ResolvedRate {
  readonly resolved: number;
  /** The episodes that ended with an outcome: the rate's denominator. */
  readonly ended: number;
  /** Episodes that ended without an outcome: in neither side of the rate. */
  readonly noOutcome: number;
  /** `resolved / ended`; undefined with no episode ended (no point, never a zero). */
  readonly rate: number | undefined;
}

export function resolvedRate(episodes: readonly { readonly resolved: boolean; readonly no_outcome?: string | undefined }[]): ResolvedRate {
  const outcomes = episodes.filter((e) => e.no_outcome === undefined);
  const resolved = outcomes.filter((e) => e.resolved).length;
  return {
    resolved,
    ended: outcomes.length,
    noOutcome: episodes.length - outcomes.length,
    rate: outcomes.length === 0 ? undefined : resolved / outcomes.length,
  };
}

/** What each figure is called where it is shown, and its definition in one sentence (the hover). */
export const metricsFigureNames = {
  runResolvedRate: {
    label: 'resolved rate (whole run)',
    definition: 'Resolved episodes over the episodes that ended with an outcome in the run (an infrastructure failure is no outcome).',
  },
  stepResolvedRate: {
    label: 'resolved rate',
    definition: 'Resolved episodes over the episodes that ended with an outcome in the training step (an infrastructure failure is no outcome).',
  },
  latest: { label: 'at step', definition: 'The latest training step’s value as recorded, not smoothed.' },
  smoothedLatest: {
    label: 'smoothed',
    definition: 'The bold line’s last value: the latest training step’s value smoothed as the Smoothing slider sets (the moving average TensorBoard draws).',
  },
} as const;
