/**
 * A test peer between `gp` and the real Docker Engine: a Unix socket that forwards every
 * connection to the engine's own socket, byte for byte, until the test cuts it. Cutting destroys
 * every open connection and removes the socket, which is what `gp` sees when the daemon goes away
 * (a refused or vanished socket, streams that end mid-request), without stopping the engine other
 * tests share. The containers live on the real engine, so what a lost connection leaves behind can
 * be checked there.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface DockerSocketProxy {
  /** `unix://<socket>`, for `DOCKER_HOST`. */
  readonly host: string;
  /** Ends every connection and stops listening: the daemon is gone. */
  cut(): Promise<void>;
  /** Listens again: the daemon is back. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startDockerSocketProxy(socketPath: string, engineSocket = '/var/run/docker.sock'): Promise<DockerSocketProxy> {
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  let server: Server | undefined;
  const listen = async () => {
    const s = createServer((client) => {
      const engine = createConnection(engineSocket);
      track(client);
      track(engine);
      client.pipe(engine);
      engine.pipe(client);
      client.on('error', () => engine.destroy());
      engine.on('error', () => client.destroy());
    });
    await new Promise<void>((done, fail) => {
      s.once('error', fail);
      s.listen(socketPath, () => done());
    });
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const socket of open) socket.destroy();
    if (s !== undefined) await new Promise<void>((done) => s.close(() => done()));
  };
  await listen();
  return { host: `unix://${socketPath}`, cut: stop, restore: listen, close: stop };
}
