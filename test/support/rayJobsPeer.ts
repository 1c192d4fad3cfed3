/**
 * TEST PEER — not Ray. A loopback HTTP server that answers the Jobs REST routes as Ray 2.60's
 * dashboard does (docs/trainer-bridge.md#ray-jobs), so the client's handling of Ray's answers is
 * tested without a Ray head; `test/integration/train.test.ts` runs against a real one.
 *
 * Reproduced behaviours: a POST or DELETE carrying `Sec-Fetch-Mode` (what Node's global `fetch`
 * sends) is answered 405 "method not allowed for browser traffic"; a reused `submission_id` is
 * answered 500 (the head wraps its job agent's refusal); a malformed body 400; `metadata` must map
 * strings to strings; DELETE of a job that is not finished is refused with 400; logs are the whole
 * driver log so far. Jobs do not run: a test moves them through their states with `setStatus` and
 * `appendLog`. The state API's `GET /api/v0/nodes` lists the `nodes` a test gives, filtered by
 * state and limited as Ray does. With `requireToken`, every route answers 401 without `Authorization: Bearer <token>`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PeerJobStatus = 'PENDING' | 'RUNNING' | 'STOPPED' | 'SUCCEEDED' | 'FAILED';

export interface PeerJob {
  submission_id: string;
  entrypoint: string;
  status: PeerJobStatus;
  runtime_env: Record<string, unknown>;
  metadata: Record<string, string>;
  logs: string;
  start_time: number;
  end_time: number | null;
  driver_exit_code: number | null;
  stopRequests: number;
}

export interface RayJobsPeer {
  readonly url: string;
  readonly jobs: Map<string, PeerJob>;
  /** Every request as `METHOD path`. */
  readonly hits: string[];
  setStatus(id: string, status: PeerJobStatus, exitCode?: number): void;
  appendLog(id: string, text: string): void;
  close(): Promise<void>;
}

/** A node as the state API's `GET /api/v0/nodes` lists it (only the fields the client reads, and Ray's names). */
export interface PeerNode {
  node_id: string;
  node_ip: string;
  state: 'ALIVE' | 'DEAD';
  is_head_node: boolean;
  resources_total: Record<string, number>;
}

export interface RayJobsPeerOptions {
  requireToken?: string;
  onSubmit?: (job: PeerJob) => void;
  /** The cluster's nodes; the state API filters them by `state` as Ray does. */
  nodes?: PeerNode[];
}

export async function startRayJobsPeer(options: RayJobsPeerOptions = {}): Promise<RayJobsPeer> {
  const jobs = new Map<string, PeerJob>();
  const hits: string[] = [];
  let counter = 0;
  const server: Server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://peer');
    const path = url.pathname;
    hits.push(`${req.method ?? '?'} ${path}`);
    const body = await readBody(req);
    if (options.requireToken !== undefined && req.headers.authorization !== `Bearer ${options.requireToken}`)
      return text(res, 401, 'Unauthorized: missing or invalid token');
    if ((req.method === 'POST' || req.method === 'DELETE') && req.headers['sec-fetch-mode'] !== undefined)
      return text(res, 405, 'Method Not Allowed: method not allowed for browser traffic');
    if (req.method === 'GET' && path === '/api/version')
      return json(res, 200, { version: '4.0.0', ray_version: '2.60.0', ray_commit: 'test-peer', session_name: 'peer' });
    if (req.method === 'GET' && path === '/api/v0/nodes') return listNodes(url, res);
    if (req.method === 'POST' && path === '/api/jobs/') return submit(body, res);
    if (req.method === 'GET' && path === '/api/jobs/') return json(res, 200, [...jobs.values()].map(details));
    const match = /^\/api\/jobs\/([^/]+)(\/logs|\/stop)?$/.exec(path);
    const job = match?.[1] === undefined ? undefined : jobs.get(decodeURIComponent(match[1]));
    if (match === null) return text(res, 404, 'Not Found');
    if (job === undefined) return text(res, 404, `Job ${match[1] ?? ''} does not exist`);
    if (req.method === 'GET' && match[2] === undefined) return json(res, 200, details(job));
    if (req.method === 'GET' && match[2] === '/logs') return json(res, 200, { logs: job.logs });
    if (req.method === 'POST' && match[2] === '/stop') {
      job.stopRequests++;
      const running = job.status === 'PENDING' || job.status === 'RUNNING';
      if (running) Object.assign(job, { status: 'STOPPED', end_time: Date.now() });
      return json(res, 200, { stopped: running });
    }
    if (req.method === 'DELETE' && match[2] === undefined) {
      if (job.status === 'PENDING' || job.status === 'RUNNING')
        return text(res, 400, `Attempted to delete job with status ${job.status}. Stop the job before deleting it.`);
      jobs.delete(job.submission_id);
      return json(res, 200, { deleted: true });
    }
    return text(res, 405, 'Method Not Allowed');
  }

  /** The state API: `limit` at most 10000 (400 beyond, as Ray answers), one `state` filter. */
  function listNodes(url: URL, res: ServerResponse): void {
    const limit = Number(url.searchParams.get('limit') ?? '100');
    if (limit > 10_000) return json(res, 400, { result: false, msg: `Given limit ${limit} exceeds the supported limit 10000.`, data: { result: null } });
    const nodes = options.nodes ?? [];
    const wanted =
      url.searchParams.get('filter_keys') === 'state' && url.searchParams.get('filter_predicates') === '=' ? url.searchParams.get('filter_values') : null;
    const shown = nodes.filter((n) => wanted === null || n.state === wanted);
    json(res, 200, {
      result: true,
      msg: '',
      data: {
        result: {
          total: shown.length,
          num_after_truncation: shown.length,
          num_filtered: shown.length,
          result: shown.slice(0, limit),
          partial_failure_warning: '',
          warnings: null,
        },
      },
    });
  }

  function submit(body: string, res: ServerResponse): void {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return text(res, 400, 'Bad Request: body is not JSON');
    }
    const request = value as { entrypoint?: unknown; metadata?: unknown; submission_id?: unknown; runtime_env?: unknown };
    if (typeof request.entrypoint !== 'string') return text(res, 400, 'Bad Request: entrypoint must be a string');
    const metadata = (request.metadata ?? {}) as Record<string, unknown>;
    if (Object.values(metadata).some((v) => typeof v !== 'string')) return text(res, 400, 'Bad Request: metadata must be a Dict[str, str]');
    const id = typeof request.submission_id === 'string' ? request.submission_id : `raysubmit_${++counter}`;
    if (jobs.has(id)) return text(res, 500, `Internal Server Error: Job with submission_id ${id} already exists. Please use a different submission_id.`);
    const job: PeerJob = {
      submission_id: id,
      entrypoint: request.entrypoint,
      status: 'PENDING',
      runtime_env: (request.runtime_env ?? {}) as Record<string, unknown>,
      metadata: metadata as Record<string, string>,
      logs: '',
      start_time: Date.now(),
      end_time: null,
      driver_exit_code: null,
      stopRequests: 0,
    };
    jobs.set(id, job);
    options.onSubmit?.(job);
    json(res, 200, { job_id: id, submission_id: id });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    jobs,
    hits,
    setStatus(id, status, exitCode) {
      const job = jobs.get(id);
      if (job === undefined) throw new Error(`test peer: no job ${id}`);
      job.status = status;
      if (status === 'SUCCEEDED' || status === 'FAILED' || status === 'STOPPED') job.end_time = Date.now();
      if (exitCode !== undefined) job.driver_exit_code = exitCode;
    },
    appendLog(id, more) {
      const job = jobs.get(id);
      if (job === undefined) throw new Error(`test peer: no job ${id}`);
      job.logs += more;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function details(job: PeerJob): Record<string, unknown> {
  const { logs: _logs, stopRequests: _stops, ...rest } = job;
  return { type: 'SUBMISSION', job_id: null, message: `Job is ${job.status}`, error_type: null, driver_info: null, ...rest };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function text(res: ServerResponse, status: number, value: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(value);
}
