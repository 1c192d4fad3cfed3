/**
 * The metrics page's figures, each defined once, so the page's header, its chart tiles and
 * `gp runs show --metrics` cannot disagree (issue 27 found "83%" in the header beside "74%" in a
 * tile, the difference explained only in a hover).
 *
 * - **Resolved rate** is resolved episodes over the episodes that ended, whatever their end: every
 *   `env` line of `metrics.jsonl` is one ended episode (protocol/metrics.ts). Over the whole run it
 *   is the header's figure; over one training step's episodes (those that ended after the previous
 *   step's line and by this one's) it is that step's point.
 * - A chart's tile is its **latest step's value**, as recorded and named with its step, so it is a
 *   different figure from the whole run's and says so. When the page smooths its lines, the tile
 *   leads with the **smoothed latest value**, the bold line's end, named as such, and keeps the
 *   recorded value beside it (issue 37 found a headline that matched neither line a person sees).
 */

export interface ResolvedRate {
  readonly resolved: number;
  /** The episodes that ended: the rate's denominator. */
  readonly ended: number;
  /** `resolved / ended`; undefined with no episode ended (no point, never a zero). */
  readonly rate: number | undefined;
}

export function resolvedRate(episodes: readonly { readonly resolved: boolean }[]): ResolvedRate {
  const resolved = episodes.filter((e) => e.resolved).length;
  return { resolved, ended: episodes.length, rate: episodes.length === 0 ? undefined : resolved / episodes.length };
}

/** What each figure is called where it is shown, and its definition in one sentence (the hover). */
export const metricsFigureNames = {
  runResolvedRate: { label: 'resolved rate (whole run)', definition: 'Resolved episodes over all episodes that ended in the run.' },
  stepResolvedRate: { label: 'resolved rate', definition: 'Resolved episodes over the episodes that ended in the training step.' },
  latest: { label: 'at step', definition: 'The latest training step’s value as recorded, not smoothed.' },
  smoothedLatest: {
    label: 'smoothed',
    definition: 'The bold line’s last value: the latest training step’s value smoothed as the Smoothing slider sets (the moving average TensorBoard draws).',
  },
} as const;
