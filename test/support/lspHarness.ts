/**
 * A real LSP connection in memory: the server's `startServer` on one side of two PassThrough
 * streams, a JSON-RPC client on the other. Requests and notifications are real protocol messages;
 * only the transport is in memory.
 */
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import {
  createConnection,
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type MessageConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver/node';
import { checkConfigText, ConfigCheckWorker, preflightDisk, renderConfigYaml } from '../../server/src/config/index.js';
import { startServer, type ServerServices } from '../../server/src/lsp/index.js';
import { validateJsonlFile, validateLine } from '../../server/src/tasks/index.js';
import { EpisodeGoldFinder } from '../../server/src/launch/episodeGold.js';

export interface Harness {
  readonly client: MessageConnection;
  readonly notifications: { method: string; params: unknown }[];
  open(uri: string, text: string, languageId?: string): Promise<Diagnostic[]>;
  change(uri: string, version: number, text: string): Promise<Diagnostic[]>;
  diagnosticsFor(uri: string, version?: number, timeoutMs?: number): Promise<Diagnostic[]>;
  notification(method: string, timeoutMs?: number): Promise<unknown>;
  close(): Promise<void>;
}

/** The harnesses' one worker thread for large configs, as the server process has one. */
const checkWorker = new ConfigCheckWorker();

/** The engine services as `server/src/main.ts` builds them; a test replaces parts with doubles. */
export function engineServices(): ServerServices {
  return {
    config: {
      check: checkConfigText,
      checkDisk: preflightDisk,
      render: renderConfigYaml,
      checkOffThread: (key, text, options) => checkWorker.check(key, text, options),
    },
    datasets: { validateLine, validateFile: validateJsonlFile },
    readText: (path) => readFileSync(path, 'utf8'),
    codeGraph: {
      goldFinder: () => {
        const finder = new EpisodeGoldFinder();
        return (trajectory, start) => finder.find(trajectory, start);
      },
    },
  };
}

export async function startHarness(settings: Record<string, unknown> = {}, rootPath = process.cwd(), services = engineServices()): Promise<Harness> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const serverConnection = createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
  startServer(serverConnection, services);
  const client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  const notifications: { method: string; params: unknown }[] = [];
  const published: PublishDiagnosticsParams[] = [];
  const waiters: (() => void)[] = [];
  client.onNotification((method, params) => {
    notifications.push({ method, params });
    if (method === 'textDocument/publishDiagnostics') published.push(params as PublishDiagnosticsParams);
    for (const w of waiters.splice(0)) w();
  });
  client.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => settings));
  client.onRequest('client/registerCapability', () => null);
  client.listen();
  await client.sendRequest('initialize', {
    // No processId: the server would otherwise poll for this process and keep the test alive.
    processId: null,
    rootUri: `file://${rootPath}`,
    workspaceFolders: [{ uri: `file://${rootPath}`, name: 'root' }],
    capabilities: { workspace: { configuration: true } },
  });
  await client.sendNotification('initialized', {});

  const diagnosticsFor = (uri: string, version?: number, timeoutMs = 5000): Promise<Diagnostic[]> =>
    new Promise((resolve, reject) => {
      const deadline = setTimeout(
        () => reject(new Error(`No diagnostics for ${uri}${version === undefined ? '' : ` v${version}`} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const check = () => {
        const hit = [...published].reverse().find((p) => p.uri === uri && (version === undefined || p.version === version));
        if (hit) {
          clearTimeout(deadline);
          resolve(hit.diagnostics);
        } else waiters.push(check);
      };
      check();
    });

  const notification = (method: string, timeoutMs = 5000): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`No ${method} notification within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        const hit = notifications.find((n) => n.method === method);
        if (hit) {
          clearTimeout(deadline);
          resolve(hit.params);
        } else waiters.push(check);
      };
      check();
    });

  return {
    client,
    notifications,
    diagnosticsFor,
    notification,
    async open(uri, text, languageId = uri.endsWith('.jsonl') ? 'jsonl' : 'yaml') {
      await client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
      return diagnosticsFor(uri, 1);
    },
    async change(uri, version, text) {
      await client.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
      return diagnosticsFor(uri, version);
    },
    async close() {
      // A polite shutdown lets the server stop its timers before the streams go away.
      await client.sendRequest('shutdown');
      client.dispose();
      serverConnection.dispose();
      toServer.destroy();
      toClient.destroy();
    },
  };
}
