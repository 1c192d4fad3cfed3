/**
 * The run metrics page's request (declared in `protocol/metricsView.ts`): a run's metrics lines
 * from a byte offset, with its state, so the page follows a live training run.
 */
import { basename } from 'node:path';
import { runMetricsParamsSchema, runMetricsRequest, type RunMetricsResult } from '../protocol/metricsView.js';
import { effectiveState, readMetricsFrom, readRun, runLayout } from '../runs/index.js';
import type { ServerContext } from './context.js';

export function registerMetricsRequests(server: ServerContext): void {
  server.connection.onRequest(runMetricsRequest, async (raw: unknown): Promise<RunMetricsResult> => {
    const { dir, fromByte } = runMetricsParamsSchema.parse(raw);
    const [chunk, run] = await Promise.all([readMetricsFrom(runLayout(dir).metrics, fromByte), readRun(dir)]);
    const state = run === undefined ? 'unknown' : effectiveState(run);
    return {
      name: basename(dir),
      state: state === 'running' || state === 'finished' || state === 'failed' || state === 'interrupted' ? state : 'unknown',
      ...chunk,
    };
  });
}
