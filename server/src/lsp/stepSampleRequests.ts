/**
 * The metrics page's sample tables (declared in `protocol/stepSamplesView.ts`): one training
 * step's sampled episodes from the run's `step_samples.jsonl`, and the steps that have a table.
 */
import { runStepSamplesParamsSchema, runStepSamplesRequest, type RunStepSamplesResult } from '../protocol/stepSamplesView.js';
import { readStepSamples } from '../views/index.js';
import type { ServerContext } from './context.js';

export function registerStepSampleRequests(server: ServerContext): void {
  server.connection.onRequest(runStepSamplesRequest, async (raw: unknown): Promise<RunStepSamplesResult> => {
    const { dir, step } = runStepSamplesParamsSchema.parse(raw);
    return readStepSamples(dir, step);
  });
}
