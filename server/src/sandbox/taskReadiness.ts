/**
 * Whether a task can run on this machine before any sandbox opens: the launch review list and the
 * Tasks view ask it (issue 27), so a task that would fail at once with 0 steps is named first. Each
 * rule is the one opening a sandbox applies, called without opening anything: the backend choice
 * of `openSandbox.ts`, the Docker backend's image (`dockerSandbox.ts`), the local backend's
 * repository and built Python environment (`localSandbox.ts`). The messages are theirs too.
 */
import type { TaskReadiness } from '../protocol/taskPreflight.js';
import { unreachable } from './dockerClient.js';
import { imageMissingError, noImageError } from './dockerSandbox.js';
import { builtPythonEnv, localRepoProblem } from './localSandbox.js';
import { chooseBackend, type DockerEngineView, type SandboxSource } from './openSandbox.js';
import { SandboxError } from './sandbox.js';

/**
 * Where the task would run and what stops it there. `engine` is shared by the tasks of one
 * preflight, so the daemon is reached once and each image asked about once; `envs` likewise keeps
 * each Python environment's answer, since many tasks share one.
 */
export async function taskReadiness(source: SandboxSource, engine: DockerEngineView, envs: Map<string, Promise<SandboxError | undefined>> = new Map()): Promise<TaskReadiness> {
  const reached = source.image === undefined ? undefined : await engine.reach();
  const imagePresent = source.image === undefined || reached === undefined || !reached.ok ? null : await reached.hasImage(source.image);
  let backend: 'docker' | 'local';
  try {
    backend = (await chooseBackend(source, engine)).backend;
  } catch (error) {
    if (error instanceof SandboxError) return { backend: null, imagePresent, problem: { code: 'no-source', reason: error.message } };
    throw error;
  }
  if (backend === 'docker') {
    if (source.image === undefined) return { backend, imagePresent, problem: { code: 'no-image', reason: noImageError(source.task).message } };
    const engineNow = reached ?? (await engine.reach());
    if (!engineNow.ok) return { backend, imagePresent, problem: { code: 'daemon-unreachable', reason: unreachable(engineNow.where, engineNow.cause).message } };
    if (imagePresent === false) return { backend, imagePresent, problem: { code: 'image-missing', reason: imageMissingError(source.image).message } };
    return { backend, imagePresent, problem: null };
  }
  const repo = localRepoProblem(source);
  if (repo !== undefined) return { backend, imagePresent, problem: { code: repo.code, reason: repo.error.message } };
  if (source.pythonEnv !== undefined) {
    const key = JSON.stringify(source.pythonEnv);
    let answer = envs.get(key);
    if (answer === undefined) {
      answer = builtPythonEnv(source.pythonEnv, source.task).then((built) => (built.ok ? undefined : built.error));
      envs.set(key, answer);
    }
    const error = await answer;
    // The message names the first task that asked; the environment is the same for each of them.
    if (error !== undefined) return { backend, imagePresent, problem: { code: 'env-not-built', reason: error.message } };
  }
  return { backend, imagePresent, problem: null };
}
