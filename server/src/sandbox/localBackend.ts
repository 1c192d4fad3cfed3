/**
 * The local backend as the registry (`backends.ts`) holds it: a working copy of the task's
 * repository on this machine, ready when the repository is there and its Python environment is
 * built. It has no containers. Its task instance counts on its node as a container's does
 * (`slots.ts`'s steady share): it too uses about one core steadily, and `ulimit -v` holds it to the
 * same memory limit.
 */
import { LocalSandbox, builtPythonEnv, localRepoProblem } from './localSandbox.js';
import type { SandboxBackend } from './backends.js';
import { steadyShare } from './slots.js';

export const localBackend: SandboxBackend = {
  name: 'local',
  open: (spec) => LocalSandbox.open(spec),
  async readiness(source, { envs }) {
    const repo = localRepoProblem(source);
    if (repo !== undefined) return { code: repo.code, reason: repo.error.message };
    if (source.pythonEnv === undefined) return null;
    const key = JSON.stringify(source.pythonEnv);
    let answer = envs.get(key);
    if (answer === undefined) {
      answer = builtPythonEnv(source.pythonEnv, source.task).then((built) => (built.ok ? undefined : built.error));
      envs.set(key, answer);
    }
    const error = await answer;
    // The message names the first task that asked; the environment is the same for each of them.
    return error === undefined ? null : { code: 'env-not-built', reason: error.message };
  },
  slotShare: steadyShare,
};
