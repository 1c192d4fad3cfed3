/**
 * A client for Ray's Jobs REST API (docs/trainer-bridge.md#ray-jobs). Every request goes through
 * `node:http`, not the global `fetch`: Ray 2.60 answers 405 to POST and DELETE from `fetch`
 * because undici marks them as browser traffic. `RAY_AUTH_TOKEN`, when set, is sent as a bearer
 * token. Nothing secret is ever put in a submission: Ray returns `runtime_env` in clear.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
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

/** A request Ray refused or could not answer; `status` is 0 when no answer came. */
export class RayJobsError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
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

  private call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, schema: ZodType<T>): Promise<T> {
    const url = new URL(path, this.base);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(payload.length) });
    if (this.token !== undefined && this.token !== '') headers['authorization'] = `Bearer ${this.token}`;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<T>((resolve, reject) => {
      const req = send(url, { method, headers, timeout: this.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => reject(new RayJobsError(0, `${method} ${url.href}: ${errorMessage(error)}`)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return reject(new RayJobsError(status, `${method} ${url.pathname} answered ${status}: ${text.trim().slice(0, 500) || res.statusMessage || ''}`));
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            return reject(new RayJobsError(status, `${method} ${url.pathname} answered ${status} with a body that is not JSON: ${text.slice(0, 200)}`));
          }
          const parsed = schema.safeParse(value);
          if (!parsed.success) return reject(new RayJobsError(status, `${method} ${url.pathname} answered an unexpected body (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''}); is ${this.base.origin} a Ray dashboard of version 2.60?`));
          resolve(parsed.data);
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer in ${this.timeoutMs} ms`)));
      req.on('error', (error) => reject(new RayJobsError(0, `${method} ${url.href}: ${errorMessage(error)}; is a Ray head running there (ray start --head) with its dashboard reachable?`)));
      req.end(payload);
    });
  }
}
