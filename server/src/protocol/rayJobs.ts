/**
 * The Ray Jobs REST API bodies we send and read (Ray 2.60, dashboard port 8265), as
 * docs/trainer-bridge.md#ray-jobs records them. The client is `server/src/cluster/rayJobs.ts`;
 * the loopback test peer in `test/support/rayJobsPeer.ts` answers with these shapes too.
 */
import { z } from 'zod';

/** POST /api/jobs/ */
export const rayJobSubmitSchema = z.object({
  entrypoint: z.string().min(1),
  submission_id: z.string().min(1).optional(),
  /** Never carries a secret: `GET /api/jobs/{id}` returns it in clear to any client. */
  runtime_env: z.record(z.string(), z.unknown()).optional(),
  /** String to string only; Ray answers 400 otherwise. */
  metadata: z.record(z.string(), z.string()).optional(),
  entrypoint_num_cpus: z.number().optional(),
  entrypoint_num_gpus: z.number().optional(),
});
export type RayJobSubmit = z.infer<typeof rayJobSubmitSchema>;

export const rayJobSubmitReplySchema = z.looseObject({ submission_id: z.string() });

export const rayJobStatusSchema = z.enum(['PENDING', 'RUNNING', 'STOPPED', 'SUCCEEDED', 'FAILED']);
export type RayJobStatus = z.infer<typeof rayJobStatusSchema>;
export const terminalRayJobStatuses: readonly RayJobStatus[] = ['STOPPED', 'SUCCEEDED', 'FAILED'];

/** GET /api/jobs/{id}: only the fields we read; Ray sends more. */
export const rayJobDetailsSchema = z.looseObject({
  submission_id: z.string().nullish(),
  status: rayJobStatusSchema,
  entrypoint: z.string().nullish(),
  message: z.string().nullish(),
  start_time: z.number().nullish(),
  end_time: z.number().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  driver_exit_code: z.number().nullish(),
});
export type RayJobDetails = z.infer<typeof rayJobDetailsSchema>;

export const rayJobLogsSchema = z.object({ logs: z.string() });
export const rayJobStopReplySchema = z.object({ stopped: z.boolean() });
export const rayJobDeleteReplySchema = z.object({ deleted: z.boolean() });
export const rayVersionSchema = z.looseObject({ ray_version: z.string() });
