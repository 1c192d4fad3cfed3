/**
 * Metrics page → extension. The extension validates every message against this schema and drops
 * anything else (`zod/mini`, so the extension's bundle stays small, as in `episodeWebview.ts`).
 */
import { discriminatedUnion, literal, object, type output } from 'zod/mini';

export const metricsWebviewMessageSchema = discriminatedUnion('type', [
  object({ type: literal('ready') }),
  /** Open the run's `run.log` (the trainer's output). */
  object({ type: literal('showLog') }),
]);
export type MetricsWebviewMessage = output<typeof metricsWebviewMessageSchema>;
