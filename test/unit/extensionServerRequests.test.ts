/**
 * Our requests are sent by method name (`extension/src/serverMessages.ts`), since the language
 * client library loads only when a server starts. These tests send them over a real
 * vscode-jsonrpc connection, the library the language client sends through, and check that the
 * server receives exactly what a `RequestType` of one parameter would have sent.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import {
  CancellationTokenSource,
  createMessageConnection,
  RequestType,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import { runEpisodes, runsList, sendRequest } from '../../extension/src/serverMessages.js';

/** Two ends of one connection; the server end answers every request with the params it received. */
function connectionPair(): { client: MessageConnection; received: unknown[]; close: () => void } {
  const up = new PassThrough();
  const down = new PassThrough();
  const client = createMessageConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
  const server = createMessageConnection(new StreamMessageReader(up), new StreamMessageWriter(down));
  const received: unknown[] = [];
  server.onRequest((method: string, params: unknown) => {
    received.push({ method, params });
    return { ok: true };
  });
  client.listen();
  server.listen();
  return {
    client,
    received,
    close: () => {
      client.dispose();
      server.dispose();
    },
  };
}

/**
 * The connection stands in for the client: without middleware, `LanguageClient.sendRequest` hands
 * its arguments to its connection's `sendRequest` as they are (vscode-languageclient 11,
 * lib/common/client.js), so the connection sees what the client would pass on.
 */
function asClient(connection: MessageConnection): LanguageClient {
  return connection as unknown as LanguageClient;
}

describe('sending our requests by method name', () => {
  test('the params arrive as the one object, as with a RequestType of one parameter', async () => {
    const pair = connectionPair();
    try {
      const params = { dir: '/runs/a' };
      await sendRequest(asClient(pair.client), runEpisodes, params);
      await pair.client.sendRequest(new RequestType<typeof params, unknown, void>(runEpisodes.method), params);
      assert.deepEqual(pair.received, [
        { method: runEpisodes.method, params },
        { method: runEpisodes.method, params },
      ]);
    } finally {
      pair.close();
    }
  });

  test('an empty params object stays an object', async () => {
    const pair = connectionPair();
    try {
      await sendRequest(asClient(pair.client), runsList, {});
      assert.deepEqual(pair.received, [{ method: runsList.method, params: {} }]);
    } finally {
      pair.close();
    }
  });

  test('a cancellation token is passed as a token, never as a second parameter', async () => {
    const pair = connectionPair();
    const source = new CancellationTokenSource();
    try {
      await sendRequest(asClient(pair.client), runEpisodes, { dir: '/runs/b' }, source.token);
      // No token: an undefined last argument would make the params a two-element array.
      await sendRequest(asClient(pair.client), runEpisodes, { dir: '/runs/c' }, undefined);
      assert.deepEqual(pair.received, [
        { method: runEpisodes.method, params: { dir: '/runs/b' } },
        { method: runEpisodes.method, params: { dir: '/runs/c' } },
      ]);
    } finally {
      source.dispose();
      pair.close();
    }
  });
});
