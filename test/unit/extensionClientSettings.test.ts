/**
 * The client's view of the settings: its defaults match the server's schema, bad values fall back
 * to them, and the server bundle path is resolved the way the setting's description promises.
 */

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { defaultSettings } from '../../server/src/protocol/settings.js';
import {
  defaultClientSettings,
  parseClientSettings,
  resolveServerModule,
  restartSettingKeys,
  type ClientSettings,
} from '../../extension/src/clientSettings.js';

function parse(values: Partial<Record<keyof ClientSettings, unknown>>): ClientSettings {
  return parseClientSettings((key) => values[key]);
}

describe('client settings', () => {
  test('defaults equal the server schema defaults', () => {
    assert.deepEqual(defaultClientSettings, {
      experimentGlobs: defaultSettings.experimentGlobs,
      datasetGlobs: defaultSettings.datasetGlobs,
      serverPath: defaultSettings.serverPath,
      trace: defaultSettings.trace,
    });
  });

  test('restart keys are settings the server schema knows', () => {
    for (const key of restartSettingKeys) assert.ok(key in defaultSettings, key);
  });

  test('keeps well-formed values', () => {
    const settings = parse({ experimentGlobs: ['exp/*.yaml'], datasetGlobs: [], serverPath: '/opt/server.js', trace: 'verbose' });
    assert.deepEqual(settings, { experimentGlobs: ['exp/*.yaml'], datasetGlobs: [], serverPath: '/opt/server.js', trace: 'verbose' });
  });

  test('falls back to the default for each missing or mistyped value', () => {
    assert.deepEqual(parse({}), defaultClientSettings);
    assert.deepEqual(parse({ experimentGlobs: 'configs/*.yaml', datasetGlobs: 3, serverPath: 7, trace: 'loud' }), defaultClientSettings);
  });

  test('drops blank globs and treats a blank server path as unset', () => {
    const settings = parse({ experimentGlobs: [' a.yaml ', '', 4], serverPath: '   ' });
    assert.deepEqual(settings.experimentGlobs, ['a.yaml']);
    assert.equal(settings.serverPath, null);
  });
});

describe('server module', () => {
  test('is the shipped bundle when serverPath is unset', () => {
    assert.equal(resolveServerModule(null, '/ext', '/ws'), join('/ext', 'dist', 'server.js'));
  });

  test('is taken as is when serverPath is absolute', () => {
    assert.equal(resolveServerModule('/dev/server.js', '/ext', '/ws'), '/dev/server.js');
  });

  test('is resolved from the first workspace folder when serverPath is relative', () => {
    assert.equal(resolveServerModule('dist/server.js', '/ext', '/ws'), resolve('/ws', 'dist/server.js'));
    assert.equal(resolveServerModule('dist/server.js', '/ext', undefined), resolve('/ext', 'dist/server.js'));
  });
});
