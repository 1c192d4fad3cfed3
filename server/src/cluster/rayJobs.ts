/**
 * A client for Ray's Jobs REST API (docs/trainer-bridge.md#ray-jobs). Every request goes through
 * the one client transport (util/httpClient.ts, `node:http`), not the global `fetch`: Ray 2.60
 * answers 405 to POST and DELETE from `fetch` because undici marks them as browser traffic. `RAY_AUTH_TOKEN`, when set, is sent as a bearer
 * token. Nothing secret is ever put in a submission: Ray returns `runtime_env` in clear.
 */
import type { ZodType } from 'zod';
import {
  rayJobDeleteReplySchema,
  rayJobDetailsSchema,
  rayJobLogsSchema,
  rayJobStopReplySchema,
  rayJobSubmitReplySchema,
  rayVersionSchema,
  type RayJobDetails,
  type RayJobSubmit,
} from '../protocol/rayJobs.js';
import { errorMessage } from '../util/errors.js';
import { httpCall, HttpTransportError, type HttpAnswer } from '../util/httpClient.js';
import { ForeignHttpError } from '../util/httpError.js';

/** A request Ray refused or could not answer, in the one error family (util/httpError.ts); `status` is 0 when no answer came. */
export class RayJobsError extends ForeignHttpError {
  declare readonly status: number;
  constructor(status: number, message: string) {
    super(status, 'ray-jobs', message);
    this.name = 'RayJobsError';
  }
}

export interface RayJobsClientOptions {
  /** The dashboard address: `http://HOST:8265`, or `HOST:PORT` (http is assumed). */
  readonly address: string;
  /** Sent as `Authorization: Bearer`; `RAY_AUTH_TOKEN` by default. */
  readonly token?: string | undefined;
  readonly timeoutMs?: number;
}

/** Accepts `HOST`, `HOST:PORT` or a URL, as `ray job submit --address` does; port 8265 by default. */
export function rayDashboardUrl(address: string): URL {
  const withScheme = /^[a-z]+:\/\//i.test(address) ? address : `http://${address}`;
  const url = new URL(withScheme);
  if (url.port === '' && url.protocol === 'http:') url.port = '8265';
  return url;
}

export class RayJobsClient {
  private readonly base: URL;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;

  constructor(options: RayJobsClientOptions) {
    this.base = rayDashboardUrl(options.address);
    this.token = options.token ?? process.env['RAY_AUTH_TOKEN'];
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  get address(): string {
    return this.base.origin;
  }

  async version(): Promise<string> {
    return (await this.call('GET', '/api/version', undefined, rayVersionSchema)).ray_version;
  }

  /**
   * Submits a job. A submission id Ray already knows is answered 500 by Ray; when the job with that
   * id exists the submission is taken as done (a launcher that retries after a lost answer must not
   * start the job twice) and `existing` says so.
   */
  async submit(job: RayJobSubmit): Promise<{ submissionId: string; existing: boolean }> {
    try {
      const reply = await this.call('POST', '/api/jobs/', job, rayJobSubmitReplySchema);
      return { submissionId: reply.submission_id, existing: false };
    } catch (error) {
      if (!(error instanceof RayJobsError) || error.status !== 500 || job.submission_id === undefined) throw error;
      const known = await this.details(job.submission_id).catch(() => undefined);
      if (known === undefined) throw error;
      return { submissionId: job.submission_id, existing: true };
    }
  }

  /** Every job the cluster knows, submitted or driver-started. */
  list(): Promise<RayJobDetails[]> {
    return this.call('GET', '/api/jobs/', undefined, rayJobDetailsSchema.array());
  }

  details(id: string): Promise<RayJobDetails> {
    return this.call('GET', `/api/jobs/${encodeURIComponent(id)}`, undefined, rayJobDetailsSchema);
  }

  async logs(id: string): Promise<string> {
    return (await this.call('GET', `/api/jobs/${encodeURIComponent(id)}/logs`, undefined, rayJobLogsSchema)).logs;
  }

  async stop(id: string): Promise<boolean> {
    return (await this.call('POST', `/api/jobs/${encodeURIComponent(id)}/stop`, undefined, rayJobStopReplySchema)).stopped;
  }

  /** Deletes a finished job's record; Ray refuses a job that is still running. */
  async delete(id: string): Promise<boolean> {
    return (await this.call('DELETE', `/api/jobs/${encodeURIComponent(id)}`, undefined, rayJobDeleteReplySchema)).deleted;
  }

  /** A GET of another dashboard route through the same transport and errors (cluster/rayCluster.ts reads the nodes). */
  get<T>(path: string, schema: ZodType<T>): Promise<T> {
    return this.call('GET', path, undefined, schema);
  }

  private async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, schema: ZodType<T>): Promise<T> {
    const url = new URL(path, this.base);
    let answer: HttpAnswer;
    try {
      answer = await httpCall({ method, url, token: this.token, body, headers: { accept: 'application/json' }, timeoutMs: this.timeoutMs });
    } catch (error) {
      if (error instanceof HttpTransportError && error.code === 'answer-cut') throw new RayJobsError(0, `${method} ${url.href}: ${error.message}`);
      throw new RayJobsError(0, `${method} ${url.href}: ${errorMessage(error)}; is a Ray head running there (ray start --head) with its dashboard reachable?`);
    }
    const { status, text } = answer;
    if (status < 200 || status >= 300)
      throw new RayJobsError(status, `${method} ${url.pathname} answered ${status}: ${text.trim().slice(0, 500) || answer.statusMessage}`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new RayJobsError(status, `${method} ${url.pathname} answered ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success)
      throw new RayJobsError(
        status,
        `${method} ${url.pathname} answered an unexpected body (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''}); is ${this.base.origin} a Ray dashboard of version 2.60?`,
      );
    return parsed.data;
  }
}
