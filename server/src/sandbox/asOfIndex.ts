/**
 * A package index as it was on a day: a loopback server that answers pip's simple-API requests
 * (`/simple/<project>/`, PEP 503 HTML) with the upstream index's files uploaded before that day
 * (PEP 691's JSON with PEP 700's `upload-time`); the files themselves are fetched from where the
 * upstream index says, unchanged and checked by their hashes.
 *
 * Why: the repository's own install (`python_env.setup`, e.g. `python -m pip install -e .`) runs
 * with the environment's pip of that day, since the harness's result depends on that pip (legacy
 * `setup.py develop` installs, removed from pip since). That pip has no option to resolve as of a
 * day, and under build isolation it starts a second pip for the build requirements; both read
 * PIP_INDEX_URL, so pointing it here makes every requirement of the install, its build backend
 * included, resolve as the harness's did (docs/upstream-contracts.md#environments-as-of-a-date).
 *
 * One server per process and day, bound to 127.0.0.1, with a random path segment as its token,
 * and unreferenced so it never keeps a process alive.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface IndexFile {
  filename: string;
  url: string;
  hashes?: Record<string, string>;
  'requires-python'?: string | null;
  'upload-time'?: string | null;
  yanked?: boolean | string;
}

/** The upstream simple index: PIP_INDEX_URL when the user set one, else PyPI. */
export function upstreamIndex(env: NodeJS.ProcessEnv = process.env): string {
  const given = env['PIP_INDEX_URL'];
  return (given !== undefined && given !== '' ? given : 'https://pypi.org/simple').replace(/\/+$/, '');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** PEP 503's normalised project name. */
export function normaliseProject(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The files of a project uploaded before `cutoff` (an ISO instant), as PEP 503 HTML. */
export function projectPage(project: string, files: readonly IndexFile[], cutoff: string): string {
  const before = Date.parse(cutoff);
  const links = files
    // A file with no upload time cannot be shown to predate the day, so it is left out, as uv's
    // --exclude-newer does.
    .filter((f) => typeof f['upload-time'] === 'string' && Date.parse(f['upload-time']) < before)
    .map((f) => {
      const hash = f.hashes?.['sha256'];
      const href = hash === undefined ? f.url : `${f.url.split('#')[0] ?? f.url}#sha256=${hash}`;
      const requires =
        typeof f['requires-python'] === 'string' && f['requires-python'] !== '' ? ` data-requires-python="${escapeHtml(f['requires-python'])}"` : '';
      const yanked = f.yanked === undefined || f.yanked === false ? '' : ` data-yanked="${escapeHtml(typeof f.yanked === 'string' ? f.yanked : '')}"`;
      return `<a href="${escapeHtml(href)}"${requires}${yanked}>${escapeHtml(f.filename)}</a><br/>`;
    });
  return `<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.0"><title>Links for ${escapeHtml(project)}</title></head><body>\n${links.join('\n')}\n</body></html>\n`;
}

export interface AsOfIndex {
  /** The URL to give pip as PIP_INDEX_URL. */
  readonly url: string;
  readonly day: string;
}

const servers = new Map<string, Promise<AsOfIndex>>();

/** The index as it was at the start of `day` (UTC), started once per process and day. */
export function asOfIndex(day: string, upstream: string = upstreamIndex()): Promise<AsOfIndex> {
  const key = `${day} ${upstream}`;
  let found = servers.get(key);
  if (found === undefined) {
    found = startIndex(day, upstream);
    servers.set(key, found);
    found.catch(() => servers.delete(key));
  }
  return found;
}

function startIndex(day: string, upstream: string): Promise<AsOfIndex> {
  const cutoff = `${day}T00:00:00Z`;
  const token = randomBytes(16).toString('hex');
  const pages = new Map<string, Promise<{ status: number; body: string }>>();
  const page = (project: string): Promise<{ status: number; body: string }> => {
    let found = pages.get(project);
    if (found === undefined) {
      found = fetchPage(project, upstream, cutoff);
      pages.set(project, found);
      // A failure is not kept: the next request asks the upstream index again.
      found.then(
        (r) => {
          if (r.status >= 500) pages.delete(project);
        },
        () => pages.delete(project),
      );
    }
    return found;
  };
  const server: Server = createServer((request, response) => {
    const match = /^\/([0-9a-f]+)\/simple\/([^/?#]+)\/?$/.exec(request.url ?? '');
    if (match === null || match[1] !== token || request.method !== 'GET') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    page(normaliseProject(decodeURIComponent(match[2] ?? ''))).then(
      ({ status, body }) => response.writeHead(status, { 'content-type': status === 200 ? 'text/html; charset=utf-8' : 'text/plain' }).end(body),
      (error: unknown) => response.writeHead(502, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`),
    );
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      const { port } = server.address() as AddressInfo;
      done({ url: `http://127.0.0.1:${port}/${token}/simple`, day });
    });
  });
}

async function fetchPage(project: string, upstream: string, cutoff: string): Promise<{ status: number; body: string }> {
  const reply = await fetch(`${upstream}/${project}/`, { headers: { accept: 'application/vnd.pypi.simple.v1+json' }, signal: AbortSignal.timeout(60_000) });
  if (reply.status === 404) return { status: 404, body: `no project ${project} on ${upstream}\n` };
  if (!reply.ok) return { status: 502, body: `${upstream} answered ${reply.status} for ${project}\n` };
  const type = reply.headers.get('content-type') ?? '';
  if (!type.includes('json')) {
    return {
      status: 502,
      body: `${upstream} does not serve the JSON simple API (PEP 691) with upload times, so its files cannot be dated; use an index that does (PyPI does)\n`,
    };
  }
  const data = (await reply.json()) as { files?: IndexFile[] };
  return { status: 200, body: projectPage(project, data.files ?? [], cutoff) };
}
