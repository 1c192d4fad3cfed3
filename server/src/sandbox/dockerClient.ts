/**
 * Connecting to the Docker Engine. dockerode (through docker-modem) already honours
 * `DOCKER_HOST` (unix, tcp and ssh) and `DOCKER_TLS_VERIFY`/`DOCKER_CERT_PATH`, so rollouts can use
 * a remote engine; this module adds a ping with a short deadline and an error that says what to do.
 */
import type Docker from 'dockerode';
import { withDeadline } from '../util/deadline.js';
import { SandboxError } from './sandbox.js';
import { errorMessage } from '../util/errors.js';

export interface DockerConnection {
  docker: Docker;
  /** Where the daemon was looked for, for messages: the socket path or the DOCKER_HOST URL. */
  where: string;
}

/**
 * A client; dockerode is loaded when a daemon is first wanted, not with the module: it and its
 * transports were a tenth of the language server's start, which needs no Docker to publish
 * diagnostics (docs/benchmarks.md).
 */
export async function newDocker(options: Docker.DockerOptions): Promise<Docker> {
  const { default: Dockerode } = await import('dockerode');
  return new Dockerode(options);
}

/** Where dockerode will look for the daemon, in the words a person would use. */
export function dockerLocation(env: NodeJS.ProcessEnv = process.env): string {
  const host = env['DOCKER_HOST'];
  return host && host.length > 0 ? host : 'unix:///var/run/docker.sock';
}

/**
 * Connect and ping. Fails with `daemon-unreachable` naming the address and the three ways out,
 * rather than the socket error a person would otherwise have to decode.
 */
export async function connectDocker(options: { timeoutMs?: number } = {}): Promise<DockerConnection> {
  const reached = await reachDocker(options);
  if (!reached.ok) throw unreachable(reached.where, reached.cause);
  return reached;
}

export type DockerReach = ({ readonly ok: true } & DockerConnection) | { readonly ok: false; readonly where: string; readonly cause: string };

/** Connect and ping, with the failure as a value: where the daemon was looked for and what went wrong. */
export async function reachDocker(options: { timeoutMs?: number } = {}): Promise<DockerReach> {
  const where = dockerLocation();
  let docker: Docker;
  try {
    docker = await newDocker({ timeout: options.timeoutMs ?? 120_000 });
    await withDeadline(docker.ping(), options.timeoutMs ?? 5_000);
  } catch (error) {
    return { ok: false, where, cause: errorMessage(error) };
  }
  return { ok: true, docker, where };
}

/** True when a daemon answers; never throws. */
export async function dockerAvailable(timeoutMs = 2_000): Promise<boolean> {
  try {
    await connectDocker({ timeoutMs });
    return true;
  } catch {
    return false;
  }
}

/** The error a sandbox raises when no daemon answers; the launch preflight says the same (taskReadiness.ts). */
export function unreachable(where: string, reason: string): SandboxError {
  return new SandboxError(`Docker daemon not reachable at ${where} (${reason}): start it, set DOCKER_HOST, or use --backend local.`, 'daemon-unreachable');
}
