/**
 * TEST PEER — not the Hugging Face hub. A loopback HTTP server shaped like the parts of the hub the
 * downloader uses (docs/upstream-contracts.md#hugging-face-download), serving parquet bytes a test gives it:
 *
 * - `GET /parquet?dataset=&config=` — the dataset-viewer's listing, urls pointing back here;
 * - `GET /api/datasets/<id>/parquet` — the Hub API listing, `{config: {split: [urls]}}`, whose
 *   urls (`…/parquet/<config>/<split>/<n>.parquet`) redirect to the resolve url, as the hub does;
 * - `GET|HEAD /datasets/<id>/resolve/refs%2Fconvert%2Fparquet/<config>/<split>/<file>` — a 302 to
 *   `/cdn/…` on a second listener reached by another host name (`localhost` rather than
 *   `127.0.0.1`), so a test can see whether the Authorization header followed the redirect.
 *
 * File answers honour `Range` (206 with Content-Range, 416 past the end). Faults can be injected:
 * a connection cut or a stall after some bytes of a body (once), a status answered on a route
 * (once by default), a lie about a file's size in the viewer's listing, Range ignored. With
 * `requireToken`, the hub routes answer 401 without a token and 403 with a wrong one; the CDN
 * route, like the real one, needs no token. Every request is logged in `hits`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HfPeerFile {
  readonly dataset: string;
  readonly config: string;
  readonly split: string;
  readonly filename: string;
  readonly bytes: Uint8Array;
}

export type HfPeerRoute = 'viewer' | 'hub-api' | 'hub-api-file' | 'resolve' | 'cdn' | 'unknown';

/** `file` is `<config>/<split>/<filename>`. */
export type HfPeerFault =
  | { readonly kind: 'cut'; readonly file: string; readonly afterBytes: number }
  | { readonly kind: 'stall'; readonly file: string; readonly afterBytes: number }
  | { readonly kind: 'status'; readonly route: HfPeerRoute; readonly status: number; readonly times?: number }
  | { readonly kind: 'wrong-size'; readonly file: string; readonly listedSize: number }
  | { readonly kind: 'ignore-range'; readonly file: string };

export interface HfPeerHit {
  readonly method: string;
  readonly host: string;
  readonly route: HfPeerRoute;
  /** The raw request path, query included. */
  readonly path: string;
  readonly range: string | undefined;
  readonly authorization: string | undefined;
}

export interface HfTestPeerOptions {
  readonly files: readonly HfPeerFile[];
  /** Hub routes then demand `Authorization: Bearer <requireToken>`. */
  readonly requireToken?: string;
  /** Whether resolve urls redirect to the CDN listener (default true) or serve the bytes themselves. */
  readonly redirectToCdn?: boolean;
  /** The viewer's `partial` flag. */
  readonly partial?: boolean;
  /** Sends file bodies in chunks of `chunkBytes`, waiting `delayMs` after each, to make transfers take time. */
  readonly throttle?: { readonly chunkBytes: number; readonly delayMs: number };
  readonly faults?: readonly HfPeerFault[];
}

export interface HfTestPeer {
  /** `http://127.0.0.1:<port>`: both the hub endpoint and the datasets-server. */
  readonly url: string;
  /** `http://localhost:<port>`: the CDN listener. */
  readonly cdnUrl: string;
  readonly hits: HfPeerHit[];
  /** Adds faults; `status` and body faults fire once (or `times`), the others stay. */
  setFault(...faults: HfPeerFault[]): void;
  clearFaults(): void;
  close(): Promise<void>;
}

const convertRef = 'refs%2Fconvert%2Fparquet';

function keyOf(file: HfPeerFile): string {
  return `${file.config}/${file.split}/${file.filename}`;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

class Peer {
  readonly hits: HfPeerHit[] = [];
  faults: Array<HfPeerFault & { left: number }> = [];
  url = '';
  cdnUrl = '';

  constructor(private readonly options: HfTestPeerOptions) {
    this.setFault(...(options.faults ?? []));
  }

  setFault(...faults: HfPeerFault[]): void {
    for (const fault of faults) this.faults.push({ ...fault, left: fault.kind === 'status' ? (fault.times ?? 1) : 1 });
  }

  /** The first live fault that passes `test`, spending one use of the once-only kinds. */
  spend(test: (fault: HfPeerFault) => boolean): HfPeerFault | undefined {
    const fault = this.faults.find((f) => f.left > 0 && test(f));
    if (fault !== undefined && fault.kind !== 'wrong-size' && fault.kind !== 'ignore-range') fault.left--;
    return fault;
  }

  filesOf(dataset: string, config?: string): HfPeerFile[] {
    return this.options.files.filter((f) => f.dataset === dataset && (config === undefined || f.config === config));
  }

  resolveUrl(file: HfPeerFile): string {
    return `${this.url}/datasets/${file.dataset}/resolve/${convertRef}/${file.config}/${file.split}/${file.filename}`;
  }

  /** Answers 401/403 when a token is required and missing or wrong; true when it answered. */
  refused(req: IncomingMessage, res: ServerResponse): boolean {
    const token = this.options.requireToken;
    if (token === undefined) return false;
    const sent = req.headers.authorization;
    if (sent === `Bearer ${token}`) return false;
    if (sent === undefined) sendJson(res, 401, { error: 'Access to this dataset is restricted. You must be authenticated to access it.' });
    else sendJson(res, 403, { error: 'Access to this dataset is restricted and your token does not grant it.' });
    return true;
  }

  route(path: string): { route: HfPeerRoute; match: RegExpExecArray | null } {
    const patterns: Array<[HfPeerRoute, RegExp]> = [
      ['viewer', /^\/parquet\?/],
      ['hub-api', /^\/api\/datasets\/(.+)\/parquet$/],
      ['hub-api-file', /^\/api\/datasets\/(.+)\/parquet\/([^/]+)\/([^/]+)\/(\d+)\.parquet$/],
      ['resolve', new RegExp(`^/datasets/(.+)/resolve/${convertRef}/([^/]+)/([^/]+)/([^/?]+)$`)],
      ['cdn', /^\/cdn\/(.+)\/([^/]+)\/([^/]+)\/([^/?]+)\?sig=test-peer$/],
    ];
    for (const [route, pattern] of patterns) {
      const match = pattern.exec(path);
      if (match !== null) return { route, match };
    }
    return { route: 'unknown', match: null };
  }

  async handle(req: IncomingMessage, res: ServerResponse, listener: 'hub' | 'cdn'): Promise<void> {
    const path = req.url ?? '';
    const { route: found, match } = this.route(path);
    const route = (listener === 'cdn') === (found === 'cdn') ? found : 'unknown';
    this.hits.push({ method: req.method ?? '', host: req.headers.host ?? '', route, path, range: req.headers.range, authorization: req.headers.authorization });
    const status = this.spend((f) => f.kind === 'status' && f.route === route);
    if (status?.kind === 'status') return sendJson(res, status.status, { error: `test peer fault: HTTP ${status.status}` });
    if (route !== 'cdn' && route !== 'unknown' && this.refused(req, res)) return;
    const [, id = '', config = '', split = '', name = ''] = match ?? [];
    switch (route) {
      case 'viewer':
        return this.viewer(new URL(path, this.url).searchParams, res);
      case 'hub-api':
        return this.hubApi(id, res);
      case 'hub-api-file': {
        const file = this.filesOf(id, config).filter((f) => f.split === split)[Number(name)];
        if (file === undefined) return sendJson(res, 404, { error: 'Entry not found' });
        res.writeHead(302, { location: new URL(this.resolveUrl(file)).pathname });
        return void res.end();
      }
      case 'resolve':
      case 'cdn': {
        const file = this.filesOf(id, config).find((f) => f.split === split && f.filename === decodeURIComponent(name));
        if (file === undefined) return sendJson(res, 404, { error: 'Entry not found' });
        if (route === 'resolve' && this.options.redirectToCdn !== false) {
          res.writeHead(302, { location: `${this.cdnUrl}/cdn/${file.dataset}/${file.config}/${file.split}/${file.filename}?sig=test-peer` });
          return void res.end();
        }
        return this.serveFile(req, res, file);
      }
      case 'unknown':
        return sendJson(res, 404, { error: `test peer has no route ${req.method ?? ''} ${path} on its ${listener} listener` });
    }
  }

  viewer(query: URLSearchParams, res: ServerResponse): void {
    const dataset = query.get('dataset') ?? '';
    const config = query.get('config') ?? undefined;
    const files = this.filesOf(dataset, config);
    if (files.length === 0) return sendJson(res, 404, { error: 'The dataset does not exist, or is not accessible without authentication (private or gated).' });
    const parquetFiles = files.map((file) => {
      const lie = this.spend((f) => f.kind === 'wrong-size' && f.file === keyOf(file));
      const size = lie?.kind === 'wrong-size' ? lie.listedSize : file.bytes.byteLength;
      return { dataset, config: file.config, split: file.split, url: this.resolveUrl(file), filename: file.filename, size };
    });
    sendJson(res, 200, { parquet_files: parquetFiles, pending: [], failed: [], partial: this.options.partial ?? false });
  }

  hubApi(dataset: string, res: ServerResponse): void {
    const files = this.filesOf(dataset);
    if (files.length === 0) return sendJson(res, 404, { error: 'Repository not found' });
    const body: Record<string, Record<string, string[]>> = {};
    for (const file of files) {
      const splits = (body[file.config] ??= {});
      const urls = (splits[file.split] ??= []);
      urls.push(`${this.url}/api/datasets/${dataset}/parquet/${file.config}/${file.split}/${urls.length}.parquet`);
    }
    sendJson(res, 200, body);
  }

  async serveFile(req: IncomingMessage, res: ServerResponse, file: HfPeerFile): Promise<void> {
    const size = file.bytes.byteLength;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const honoured = range !== null && this.spend((f) => f.kind === 'ignore-range' && f.file === keyOf(file)) === undefined;
    let start = 0;
    let end = size - 1;
    if (honoured) {
      start = Number(range[1]);
      end = range[2] === '' || range[2] === undefined ? size - 1 : Math.min(size - 1, Number(range[2]));
      if (start >= size) {
        res.writeHead(416, { 'content-range': `bytes */${size}` });
        return void res.end();
      }
    }
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream', 'accept-ranges': 'bytes', 'content-length': String(end - start + 1) };
    if (honoured) headers['content-range'] = `bytes ${start}-${end}/${size}`;
    res.writeHead(honoured ? 206 : 200, headers);
    if (req.method === 'HEAD') return void res.end();
    const body = file.bytes.subarray(start, end + 1);
    const fault = this.spend((f) => (f.kind === 'cut' || f.kind === 'stall') && f.file === keyOf(file));
    const limit = fault?.kind === 'cut' || fault?.kind === 'stall' ? fault.afterBytes : body.byteLength;
    await this.writeChunks(res, body.subarray(0, limit));
    if (fault?.kind === 'cut') {
      // The bytes reach the client before the cut, as on a real network; a cut in the same
      // instant would have fetch discard bytes it had received but not yet handed over.
      await sleep(100);
      return void res.socket?.destroy();
    }
    // A stall holds the connection open until the client gives up.
    if (fault?.kind !== 'stall') res.end();
  }

  async writeChunks(res: ServerResponse, bytes: Uint8Array): Promise<void> {
    const step = this.options.throttle?.chunkBytes ?? 64 * 1024;
    for (let at = 0; at < bytes.byteLength && !res.destroyed; at += step) {
      const chunk = bytes.subarray(at, at + step);
      await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
      if (this.options.throttle !== undefined) await sleep(this.options.throttle.delayMs);
    }
  }
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

function serve(peer: Peer, listener: 'hub' | 'cdn'): Server {
  return createServer((req, res) => {
    peer.handle(req, res, listener).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: `test peer failed: ${String(error)}` });
      else res.destroy();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

/** Starts the Hugging Face–shaped test peer on loopback (random ports). */
export async function startHfTestPeer(options: HfTestPeerOptions): Promise<HfTestPeer> {
  const peer = new Peer(options);
  const hub = serve(peer, 'hub');
  const cdn = serve(peer, 'cdn');
  peer.url = `http://127.0.0.1:${await listen(hub, '127.0.0.1')}`;
  // `localhost` is another host name for the client, so the redirect crosses hosts.
  peer.cdnUrl = `http://localhost:${await listen(cdn, 'localhost')}`;
  return {
    url: peer.url,
    cdnUrl: peer.cdnUrl,
    hits: peer.hits,
    setFault: (...faults) => peer.setFault(...faults),
    clearFaults: () => {
      peer.faults = [];
    },
    close: async () => {
      await Promise.all([closeServer(hub), closeServer(cdn)]);
    },
  };
}
