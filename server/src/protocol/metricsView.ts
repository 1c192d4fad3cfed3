/**
 * The run metrics page's messages. Extension → server: the lines of a run's `metrics.jsonl` from a
 * byte offset (complete lines only, so a line the trainer is still writing comes next time), with
 * the run's state; the extension asks again every few seconds while the run is live. Extension →
 * page: the lines to add. The page's own messages are in `metricsWebview.ts` (zod/mini).
 */
import { z } from 'zod';
import { metricsLineSchema } from './metrics.js';
import { runViewStateSchema } from './runsView.js';

export const runMetricsRequest = 'graphPlanner/runs/metrics';
export const runMetricsParamsSchema = z.object({ dir: z.string(), fromByte: z.number().int().min(0).default(0) });
export type RunMetricsParams = z.input<typeof runMetricsParamsSchema>;

export const runMetricsResultSchema = z.object({
  name: z.string(),
  state: runViewStateSchema,
  lines: z.array(metricsLineSchema),
  /** Where the next request starts: after the last complete line returned. */
  nextByte: z.number().int(),
  /** The file is shorter than `fromByte` (rewritten): `lines` start from its beginning again. */
  reset: z.boolean(),
  /** Lines that are not metrics lines, with their byte offsets; they are left out. */
  problems: z.array(z.string()),
});
export type RunMetricsResult = z.infer<typeof runMetricsResultSchema>;

/** Extension → page. */
export const metricsPageMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('metrics'),
    run: z.string(),
    state: runViewStateSchema,
    lines: z.array(metricsLineSchema),
    /** Forget what was shown before: the file was rewritten, or the page was reloaded. */
    reset: z.boolean(),
    problems: z.array(z.string()),
  }),
]);
export type MetricsPageMessage = z.infer<typeof metricsPageMessageSchema>;
