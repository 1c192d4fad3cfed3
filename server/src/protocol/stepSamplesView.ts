/**
 * A training run's per-step sample tables (`step_samples.jsonl`) as the metrics page shows them.
 * Extension → server: the table of one step (`step: null` for the latest) and the steps that have
 * one. Extension → page: that answer. The page's own messages are in `stepSamplesWebview.ts`
 * (zod/mini). The metrics lines themselves travel in `metricsView.ts`.
 */
import { z } from 'zod';
import { stepSamplesLineSchema } from './metrics.js';

export const runStepSamplesRequest = 'graphPlanner/runs/stepSamples';
export const runStepSamplesParamsSchema = z.object({ dir: z.string(), step: z.number().int().min(0).nullable() });
export type RunStepSamplesParams = z.infer<typeof runStepSamplesParamsSchema>;

export const runStepSamplesResultSchema = z.object({
  /** The steps that have a sample table, ascending (a resumed run's repeated step counts once: its last table). */
  steps: z.array(z.number().int()),
  /** The table of the step asked for (the latest for `null`); null when there is none. */
  samples: stepSamplesLineSchema.nullable(),
  /** Lines of `step_samples.jsonl` that are not sample tables, with their line numbers; they are left out. */
  problems: z.array(z.string()),
});
export type RunStepSamplesResult = z.infer<typeof runStepSamplesResultSchema>;

/** Extension → metrics page. */
export const stepSamplesPageMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('stepSamples'), result: runStepSamplesResultSchema }),
  /** Bring the sample table into view (the Runs view's Show Step Samples). */
  z.object({ type: z.literal('focusStepSamples') }),
]);
export type StepSamplesPageMessage = z.infer<typeof stepSamplesPageMessageSchema>;
