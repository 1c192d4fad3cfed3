/**
 * Telling an infrastructure failure from a task's outcome. An episode that ended because the
 * Docker daemon went away, its container was lost, the disk filled up or memory ran out says
 * nothing about the task or the agent: recording it as the task's result would lower the resolved
 * rate without a word, and a resume would never run it again. The classifier errs on the side of
 * "infrastructure": an episode wrongly called one is run again, one wrongly called a result is a
 * silently wrong number.
 */
import type { InfrastructureFailure } from '../protocol/runs.js';
import { ModelClientError } from '../agents/index.js';
import { SandboxError } from '../sandbox/index.js';
import { errorChain, ioFailure } from '../util/ioFailure.js';
import { errorMessage } from '../util/errors.js';

/** Errno codes of a connection to the Docker daemon that was refused, reset or cut. */
const connectionCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']);

/** Whether a message is what dockerode or Node say when the daemon's socket is gone or stops answering. */
function daemonGoneText(message: string): boolean {
  return /docker\.sock|socket hang up|ECONNREFUSED|ECONNRESET|EPIPE|Docker daemon not reachable/i.test(message);
}

/**
 * Whether a refused or cut connection was the daemon's: its socket, or the `DOCKER_HOST` address.
 * A model server's refused connection is the agent's failure, not the sandbox's.
 */
function toDaemon(error: unknown): boolean {
  const address = String((error as { address?: unknown }).address ?? '');
  const text = `${errorMessage(error)} ${address}`;
  if (/docker/i.test(text)) return true;
  const host = process.env['DOCKER_HOST'];
  if (host === undefined || address === '') return false;
  return host.includes(address);
}

/**
 * A model endpoint that cannot be reached, times out, keeps answering 5xx or keeps refusing with
 * 429 after every retry is the serving machinery failing (a server killed mid-run, a node gone),
 * not the agent's choice: the model agent lets such errors end the episode, and they land here.
 */
const modelServerGone = new Set(['network', 'timeout', 'http-5xx', 'rate-limited']);

export function infrastructureFailure(error: unknown): InfrastructureFailure | undefined {
  const cause = errorMessage(error);
  for (const e of errorChain(error)) {
    if (e instanceof ModelClientError && modelServerGone.has(e.code)) return { code: 'model-unreachable', cause };
    if (e instanceof SandboxError) {
      if (e.code === 'daemon-unreachable') return { code: 'daemon-lost', cause };
      if (e.code === 'container-gone') return { code: /memory limit|out of memory|OOM/i.test(e.message) ? 'out-of-memory' : 'sandbox-lost', cause };
      if (e.code === 'io' && daemonGoneText(e.message)) return { code: 'daemon-lost', cause };
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && connectionCodes.has(code) && toDaemon(e)) return { code: 'daemon-lost', cause };
  }
  const io = ioFailure(error);
  if (io !== undefined) return { code: io.kind, cause };
  return undefined;
}

/** One line for a person: what failed and that a resume runs the episode again. */
export function describeInfrastructure(failure: InfrastructureFailure): string {
  const what: Record<InfrastructureFailure['code'], string> = {
    'daemon-lost': 'the Docker daemon could not be reached',
    'sandbox-lost': 'the sandbox was lost',
    'disk-full': 'the disk is full',
    'out-of-memory': 'memory ran out',
    io: 'the file system failed',
    'model-unreachable': 'the model server did not answer',
    'not-gradable': 'the tests could not be graded',
    'host-lost': 'the sandbox host running it was lost',
  };
  return `${what[failure.code]} (${failure.cause})`;
}
