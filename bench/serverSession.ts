/**
 * A fresh `node dist/server.js --stdio` on a workspace folder, initialised, answering every
 * settings request with the defaults, for the figures that talk to the server as the extension
 * does. Notifications go to `onNotification` (all of them, by method).
 */
import { spawn } from 'node:child_process';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { withDeadline } from '../server/src/util/deadline.js';
import { ourServerBundle, repoRoot } from './yamlServers.js';

export interface ServerSession {
  readonly connection: MessageConnection;
  readonly pid: number;
  stop(): Promise<void>;
}

export async function startServerSession(root: string, onNotification: (method: string, params: unknown) => void = () => undefined): Promise<ServerSession> {
  const child = spawn(process.execPath, [ourServerBundle, '--stdio'], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.on('error', () => undefined);
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  connection.onRequest('workspace/configuration', (params: { items: unknown[] }) => params.items.map(() => ({})));
  connection.onRequest(() => null);
  connection.onNotification((method, params) => onNotification(method, params));
  connection.listen();
  const rootUri = `file://${root}`;
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: 'bench' }],
    capabilities: { workspace: { configuration: true } },
  });
  await connection.sendNotification('initialized', {});
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    connection,
    pid: child.pid ?? -1,
    async stop() {
      try {
        await withDeadline(connection.sendRequest('shutdown'), 2000, 'no shutdown answer');
        await connection.sendNotification('exit');
      } catch {
        child.kill('SIGKILL');
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
      connection.dispose();
    },
  };
}
