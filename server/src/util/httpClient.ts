/**
 * The one transport of our JSON clients that talk to servers on the cluster: the front door to a
 * sandbox host (cluster/hostClient.ts) and to Ray's dashboard (cluster/rayJobs.ts). It sends one
 * request over `node:http` or `node:https` (Node's global agent keeps connections alive), with a
 * bearer token, a JSON body, a time limit on silence, an abort signal and a cap on the answer,
 * and gives back the status and the answer's text; a request that got no whole answer is an
 * `HttpTransportError`. What a status or a body means stays with each client, as its messages do.
 *
 * `node:http` rather than `fetch`, by measurement (Node 20.20, loopback, a 500-byte step body and a
 * 2 kB answer, 2,000 calls after 200 to warm up, load average 8 on 2 cores): `node:http` p50
 * 0.22 ms (p90 0.36), `fetch` p50 0.60 ms (p90 4.9). A step through a sandbox host makes two such
 * calls, and Ray 2.60 answers 405 to a POST from `fetch` (cluster/rayJobs.ts). The model clients (agents/retry.ts) and the hub (datasets/hfHttp.ts) keep `fetch`: a
 * model's answer takes seconds, tests give the model clients a stub `fetch`, and the hub's
 * downloads read the answer as a web stream.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { errorMessage } from './errors.js';
import { HttpError } from './httpError.js';

export interface HttpCall {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: URL;
  /** Sent as `Authorization: Bearer <token>` when given and not empty. */
  readonly token?: string | undefined;
  /** Sent as JSON when given. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** No byte for this long ends the request ("no answer in N ms"); none by default. */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** An answer longer than this ends the request. */
  readonly maxBytes?: number;
}

export interface HttpAnswer {
  readonly status: number;
  readonly statusMessage: string;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/**
 * No whole answer came: `no-answer` when the request failed (refused, reset, silent past its time
 * limit, too long, aborted), `answer-cut` when the answer broke off. The message is the cause's own
 * (the client adds what it was asking), so `ECONNREFUSED` and the like stay readable in it.
 */
export class HttpTransportError extends HttpError {
  override readonly name = 'HttpTransportError';
  declare readonly code: 'no-answer' | 'answer-cut';
  constructor(code: 'no-answer' | 'answer-cut', message: string, url: URL) {
    super(undefined, code, message, url.href);
  }
}

/** Sends `call` and resolves with the whole answer, whatever its status. */
export function httpCall(call: HttpCall): Promise<HttpAnswer> {
  const text = call.body === undefined ? undefined : JSON.stringify(call.body);
  const headers: Record<string, string> = { ...call.headers };
  if (call.token !== undefined && call.token !== '') headers['authorization'] = `Bearer ${call.token}`;
  if (text !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  const send = call.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = send(call.url, { method: call.method, headers, ...(call.signal === undefined ? {} : { signal: call.signal }) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (call.maxBytes !== undefined && size > call.maxBytes) req.destroy(new Error(`the answer passed ${call.maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', (error) => reject(new HttpTransportError('answer-cut', errorMessage(error), call.url)));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    if (call.timeoutMs !== undefined) req.setTimeout(call.timeoutMs, () => req.destroy(new Error(`no answer in ${call.timeoutMs} ms`)));
    req.on('error', (error) => reject(new HttpTransportError('no-answer', errorMessage(error), call.url)));
    req.end(text);
  });
}
