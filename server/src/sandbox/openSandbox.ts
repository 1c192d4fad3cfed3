/**
 * Opening a sandbox for a task: turning the task's `sandbox` block into a `SandboxSpec`, and
 * choosing the backend (`auto` means docker when a daemon answers and the task has an image,
 * else a local working copy when the task names one).
 */
import { isAbsolute, resolve } from 'node:path';
import { legacyDockerBackends, sandboxSpecSchema, type MountSpec, type SandboxBackendName, type SandboxLimits, type SandboxSpec } from '../protocol/sandbox.js';
// Only the task's type: the sandbox folder depends on protocol/ alone at run time (DESIGN §1).
import type { TaskEntry } from '../tasks/index.js';
import { connectDocker } from './dockerClient.js';
import { DockerSandbox } from './dockerSandbox.js';
import { LocalSandbox } from './localSandbox.js';
import { SandboxError, type Sandbox } from './sandbox.js';

export interface TaskSandboxOptions {
  /** Run name written into the container labels. */
  run?: string;
  /** Overrides the task's own backend (the `--backend` flag). */
  backend?: SandboxBackendName;
  limits?: Partial<SandboxLimits>;
  commandTimeoutMs?: number;
  outputLimitBytes?: number;
  /** Folder that relative `local_repo` and mount paths resolve against (the dataset file's folder). */
  baseDir?: string;
}

type TaskMounts = TaskEntry['sandbox']['mounts'];

/** The three mount forms a task may use (objects, `host:container[:mode]`, a map) as one list. */
export function normaliseMounts(mounts: TaskMounts, baseDir: string): MountSpec[] {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  if (!Array.isArray(mounts)) return Object.entries(mounts).map(([host, container]) => ({ host: abs(host), container, mode: 'rw' }));
  return mounts.map((m) => {
    if (typeof m !== 'string') return { host: abs(m.host), container: m.container, mode: m.mode };
    const [host = '', container = '', mode] = m.split(':');
    return { host: abs(host), container, mode: mode === 'ro' ? 'ro' : 'rw' };
  });
}

export function sandboxSpecForTask(task: TaskEntry, options: TaskSandboxOptions = {}): SandboxSpec {
  const box = task.sandbox;
  const baseDir = options.baseDir ?? process.cwd();
  const own = legacyDockerBackends.has(box.backend) ? 'docker' : (box.backend as SandboxBackendName);
  return sandboxSpecSchema.parse({
    backend: options.backend ?? own,
    image: box.docker_image,
    localRepo: box.local_repo === undefined ? undefined : resolve(baseDir, box.local_repo),
    workdir: box.workdir,
    env: box.env,
    mounts: normaliseMounts(box.mounts, baseDir),
    network: box.network,
    run: options.run ?? 'adhoc',
    task: task.task_id,
    limits: options.limits ?? {},
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
    ...(options.outputLimitBytes === undefined ? {} : { outputLimitBytes: options.outputLimitBytes }),
  });
}

/**
 * Which backend a spec will use. `auto` means docker when the daemon answers and has the task's
 * image; otherwise the local working copy when the task names one; otherwise docker's own error.
 */
export async function chooseBackend(spec: SandboxSpec): Promise<'docker' | 'local'> {
  if (spec.backend === 'docker' || spec.backend === 'local') return spec.backend;
  if (!spec.image && !spec.localRepo) {
    throw new SandboxError(`Task ${spec.task} has neither a docker_image nor a local_repo: give it one of them so a sandbox can be made.`, 'no-source');
  }
  if (!spec.image) return 'local';
  let docker;
  try {
    ({ docker } = await connectDocker({ timeoutMs: 3_000 }));
  } catch (error) {
    if (spec.localRepo) return 'local';
    throw error;
  }
  // A reachable daemon without the task's image cannot run it; the local copy can, if there is one.
  if (spec.localRepo) {
    try {
      await docker.getImage(spec.image).inspect();
    } catch {
      return 'local';
    }
  }
  return 'docker';
}

export async function openSandbox(spec: SandboxSpec): Promise<Sandbox> {
  const backend = await chooseBackend(spec);
  return backend === 'docker' ? DockerSandbox.open(spec) : LocalSandbox.open(spec);
}
