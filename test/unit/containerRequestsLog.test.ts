/**
 * What the Containers view's requests write to the server's log, at which level: a refresh that
 * changed the list at the default level, and the routine ones (the slow poll's, a list the view
 * asked for) at debug level, so the output channel is not filled with a line every 30 seconds.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { registerContainerRequests } from '../../server/src/lsp/containerRequests.js';
import type { ServerContext } from '../../server/src/lsp/context.js';
import type { ContainerBackend } from '../../server/src/sandbox/index.js';
import { containersListRequest, containersWatchRequest, type ContainersListResult } from '../../server/src/protocol/index.js';

const list: ContainersListResult = { daemon: { reachable: true }, containers: [] } as unknown as ContainersListResult;

/** Just the parts of the server context the container requests use, recording what they write. */
function fakeContext() {
  const lines: { level: 'log' | 'debug'; text: string }[] = [];
  const handlers = new Map<string, (params: unknown) => unknown>();
  const connection = {
    console: { log: (text: string) => lines.push({ level: 'log', text }), debug: (text: string) => lines.push({ level: 'debug', text }) },
    onRequest: (method: string, handler: (params: unknown) => unknown) => handlers.set(method, handler),
    sendNotification: () => Promise.resolve(),
  };
  return { server: { connection, isStopped: false } as unknown as ServerContext, lines, handlers };
}

async function until(what: string, ok: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('the slow poll that finds the list unchanged logs at debug level; the first list, which is news, at the default level', async () => {
  const { server, lines, handlers } = fakeContext();
  const stream = new PassThrough();
  const backend: ContainerBackend = {
    list: () => Promise.resolve(list),
    action: () => Promise.reject(new Error('not used')),
    reap: () => Promise.reject(new Error('not used')),
    openEvents: () => Promise.resolve(stream),
  };
  const requests = registerContainerRequests(server, { backend, follower: { pollMs: 20, debounceMs: 1 } });
  try {
    const watch = handlers.get(containersWatchRequest);
    assert.ok(watch !== undefined, `no watch request among ${[...handlers.keys()].join(', ')}`);
    watch({ watching: true });
    await until('two polls', () => lines.filter((l) => l.text.includes('poll:')).length >= 2);
    const polls = lines.filter((l) => l.text.includes('refresh (poll:'));
    assert.ok(
      polls.every((l) => l.level === 'debug' && l.text.endsWith(', unchanged')),
      JSON.stringify(polls),
    );
    const first = lines.find((l) => l.text.startsWith('Containers: refresh (event stream connected)'));
    assert.equal(first?.level, 'log', JSON.stringify(lines));
    const asked = lines.length;
    const listRequest = handlers.get(containersListRequest);
    await listRequest?.({});
    assert.deepEqual(
      lines
        .slice(asked)
        .filter((l) => l.text.includes('list requested'))
        .map((l) => l.level),
      ['debug'],
    );
  } finally {
    requests.stop();
    stream.destroy();
  }
});
