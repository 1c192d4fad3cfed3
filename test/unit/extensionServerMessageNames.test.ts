/**
 * The extension mirrors the server's message names to keep zod out of its bundle; these tests fail
 * when the mirror drifts from `server/src/protocol/lsp.ts`.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as server from '../../server/src/protocol/lsp.js';
import * as mirror from '../../extension/src/serverMessageNames.js';

test('every message name the extension mirrors equals the server constant', () => {
  assert.equal(mirror.resolvedConfigRequest, server.resolvedConfigRequest);
  assert.equal(mirror.checkDocumentRequest, server.checkDocumentRequest);
  assert.equal(mirror.experimentOverviewRequest, server.experimentOverviewRequest);
  assert.equal(mirror.serverStatusNotification, server.serverStatusNotification);
  assert.equal(mirror.datasetSummaryNotification, server.datasetSummaryNotification);
  // The workbench's messages, checked name by name against the server's declarations.
  for (const [key, value] of Object.entries(mirror)) assert.equal(value, (server as Record<string, unknown>)[key], key);
});

test('the mirror declares every custom message the server declares, and nothing else', () => {
  const messageNames = (module: object): string[] =>
    Object.entries(module)
      .filter(([key, value]) => typeof value === 'string' && /(Request|Notification)$/.test(key))
      .map(([key]) => key)
      .sort();
  assert.deepEqual(messageNames(mirror), messageNames(server));
});
