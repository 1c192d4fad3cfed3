/**
 * The client settings: the part of the `graphPlanner.*` settings that the extension itself acts
 * on, parsed from whatever the editor hands us. This file has no `vscode` import so that unit
 * tests run it directly; `readClientSettings.ts` reads the values from the editor. The server
 * reads the full set per resource through `workspace/configuration`; here we only need what
 * decides how the client is built.
 */
import { isAbsolute, join, resolve } from 'node:path';
import type { Settings } from '../../server/src/protocol/settings.js';

export const settingsSection = 'graphPlanner';

export type ClientSettings = Pick<Settings, 'experimentGlobs' | 'datasetGlobs' | 'serverPath' | 'trace'>;
export type TraceSetting = ClientSettings['trace'];

/**
 * The defaults of `server/src/protocol/settings.ts`, repeated so the bundle stays free of zod;
 * `test/unit/extensionClientSettings.test.ts` fails when they drift. They apply only when the editor
 * returns a value of the wrong type, since the manifest carries the same defaults.
 */
export const defaultClientSettings: ClientSettings = {
  experimentGlobs: ['**/configs/**/*.{yaml,yml}', '**/*.gp.yaml'],
  datasetGlobs: ['**/datasets/**/*.jsonl'],
  serverPath: null,
  trace: 'off',
};

/** Settings whose change means the client must be rebuilt: they shape the selector or the process. */
export const restartSettingKeys = ['experimentGlobs', 'datasetGlobs', 'serverPath'] as const;

const traceValues: readonly TraceSetting[] = ['off', 'messages', 'verbose'];

/** Turns raw setting values into typed ones, falling back to the default for each bad value. */
export function parseClientSettings(read: (key: keyof ClientSettings) => unknown): ClientSettings {
  const trace = read('trace');
  const serverPath = read('serverPath');
  return {
    experimentGlobs: stringArray(read('experimentGlobs')) ?? defaultClientSettings.experimentGlobs,
    datasetGlobs: stringArray(read('datasetGlobs')) ?? defaultClientSettings.datasetGlobs,
    serverPath: typeof serverPath === 'string' && serverPath.trim() !== '' ? serverPath.trim() : null,
    trace: traceValues.find((value) => value === trace) ?? defaultClientSettings.trace,
  };
}

function stringArray(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const strings = value.filter((item): item is string => typeof item === 'string' && item.trim() !== '');
  return strings.map((item) => item.trim());
}

/**
 * The server bundle to run: the `serverPath` setting when set (a relative path is taken from the
 * first workspace folder, where a developer's checkout usually is), else the shipped bundle.
 */
export function resolveServerModule(serverPath: string | null, extensionPath: string, workspacePath: string | undefined): string {
  if (serverPath === null) return join(extensionPath, 'dist', 'server.js');
  if (isAbsolute(serverPath)) return serverPath;
  return resolve(workspacePath ?? extensionPath, serverPath);
}
