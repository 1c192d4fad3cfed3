/**
 * The report page's request (declared in `protocol/runReportView.ts`): a run's `report.json` shaped
 * for the page, or a message saying why there is none.
 */
import { runReportParamsSchema, runReportRequest, type RunReportResult } from '../protocol/runReportView.js';
import { readReportView } from '../views/index.js';
import type { ServerContext } from './context.js';

export function registerReportRequests(server: ServerContext): void {
  server.connection.onRequest(runReportRequest, async (raw: unknown): Promise<RunReportResult> => readReportView(runReportParamsSchema.parse(raw).dir));
}
