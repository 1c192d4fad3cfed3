/**
 * Whether a task can run on this machine before any sandbox opens: the launch review list and the
 * Tasks view ask it (issue 27), so a task that would fail at once with 0 steps is named first. Each
 * rule is the one opening a sandbox applies, called without opening anything: the backend choice
 * of `openSandbox.ts`, then the chosen backend's own rule from the registry (`backends.ts`: the
 * Docker backend's image, the local backend's repository and built Python environment). The
 * messages are theirs too.
 */
import type { OpenedBackendName } from '../protocol/sandboxBackends.js';
import type { TaskReadiness } from '../protocol/taskPreflight.js';
import { sandboxBackend } from './backends.js';
import { chooseBackend, type DockerEngineView, type SandboxSource } from './openSandbox.js';
import { SandboxError } from './sandbox.js';

/**
 * Where the task would run and what stops it there. `engine` is shared by the tasks of one
 * preflight, so the daemon is reached once and each image asked about once; `envs` likewise keeps
 * each Python environment's answer, since many tasks share one.
 */
export async function taskReadiness(
  source: SandboxSource,
  engine: DockerEngineView,
  envs: Map<string, Promise<SandboxError | undefined>> = new Map(),
): Promise<TaskReadiness> {
  const reached = source.image === undefined ? undefined : await engine.reach();
  const imagePresent = source.image === undefined || reached === undefined || !reached.ok ? null : await reached.hasImage(source.image);
  let backend: OpenedBackendName;
  try {
    backend = (await chooseBackend(source, engine)).backend;
  } catch (error) {
    if (error instanceof SandboxError) return { backend: null, imagePresent, problem: { code: 'no-source', reason: error.message } };
    throw error;
  }
  const problem = await sandboxBackend(backend).readiness(source, { engine, reached, imagePresent, envs });
  return { backend, imagePresent, problem };
}
