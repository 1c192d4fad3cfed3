/**
 * Opening a sandbox for a task: turning the task's `sandbox` block into a `SandboxSpec`, and
 * choosing the backend (`auto` means docker when a daemon answers and the task has an image,
 * else a local working copy when the task names one), as a value that says why.
 */
import { isAbsolute, resolve } from 'node:path';
import type { BackendChoice, BackendFallback } from '../protocol/backendChoice.js';
import {
  legacyDockerBackends,
  sandboxSpecSchema,
  type ContainerCapability,
  type MountSpec,
  type PythonEnvRequest,
  type SandboxBackendName,
  type SandboxLimits,
  type SandboxSpec,
} from '../protocol/sandbox.js';
// Only the task's type: the sandbox folder depends on protocol/ alone at run time (ARCHITECTURE.md §2).
import type { TaskEntry } from '../tasks/index.js';
import { sandboxBackend } from './backends.js';
import { reachDocker } from './dockerClient.js';
import { SandboxError, type Sandbox } from './sandbox.js';
import { assertMountsAllowed } from './mountPolicy.js';

export interface TaskSandboxOptions {
  /** Run name written into the container labels. */
  run?: string;
  /** The Ray node of the sandbox host opening it, for its container's label; absent outside a cluster's hosts. */
  node?: string;
  /** The episode it is opened for, for its container's label; absent outside an episode. */
  episode?: string;
  /** The run folder it serves, for its container's label; absent outside a run. */
  runDir?: string;
  /** Overrides the task's own backend (the `--backend` flag). */
  backend?: SandboxBackendName;
  limits?: Partial<SandboxLimits>;
  /** From the config's `sandbox` section (launch/sandboxOptions.ts), which declares the defaults. */
  commandTimeoutMs: number;
  outputLimitBytes: number;
  /** Folder that relative `local_repo` and mount paths resolve against (the dataset file's folder). */
  baseDir?: string;
  /** Host folders the task's mounts may come from (`sandbox.allowed_mount_roots`); none when absent. */
  allowedMountRoots?: readonly string[];
  /** Capabilities a container keeps (`sandbox.capabilities`); none when absent. */
  capabilities?: readonly ContainerCapability[];
  /** What a working copy on none of the commits the task names gets (`sandbox.unknown_base`); refuse when absent. */
  unknownBase?: 'refuse' | 'warn';
}

/**
 * Commits a task's test command checks files out at (`git checkout <sha> <paths>`, as SWE-bench's
 * eval scripts restore the test files): the commit the task starts from, said where the task
 * names no `base_commit`.
 */
export function commitsNamedBy(task: TaskEntry): string[] {
  const command = task.sandbox.test_command ?? '';
  return [...new Set([...command.matchAll(/\bgit\s+checkout\s+([0-9a-f]{40})\b/g)].map((m) => m[1] ?? ''))].filter((c) => c !== '');
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

/** The task's `python_env` as a sandbox needs it: the requirements file as an absolute path. */
export function pythonEnvRequestOf(env: NonNullable<TaskEntry['sandbox']['python_env']>, baseDir: string): PythonEnvRequest {
  return {
    python: env.python,
    packages: env.packages,
    ...(env.requirements === undefined ? {} : { requirements: isAbsolute(env.requirements) ? env.requirements : resolve(baseDir, env.requirements) }),
    ...(env.pythonpath === undefined ? {} : { pythonpath: env.pythonpath }),
    ...(env.as_of === undefined ? {} : { asOf: env.as_of }),
    ...(env.setup === undefined || env.setup.length === 0 ? {} : { setup: env.setup }),
  };
}

/**
 * The sandbox limits for a task: the config's, with the task's own `sandbox.resources` (a Harbor
 * task's `[environment]` cpus and memory) in their place, since they are the more specific
 * statement. Its `storage_mb` is not a limit Docker can apply everywhere, so it is not applied.
 */
export function taskLimits(task: TaskEntry, limits: Partial<SandboxLimits> = {}): Partial<SandboxLimits> {
  const asked = task.sandbox.resources;
  if (asked === undefined) return limits;
  return {
    ...limits,
    ...(asked.cpus === undefined ? {} : { cpus: asked.cpus }),
    ...(asked.memory_mb === undefined ? {} : { memoryBytes: asked.memory_mb * 1024 * 1024 }),
  };
}

/** The fields of a task's `sandbox` block that say where it can run. */
export type TaskSourceFields = Pick<TaskEntry['sandbox'], 'backend' | 'docker_image' | 'local_repo' | 'python_env'>;

/**
 * Where a task's repository comes from, as a sandbox spec names it: the backend (the flag's, else
 * the task's own, `repoenv` and `r2e` meaning docker), the image, the local repository resolved
 * against the dataset's folder and the Python environment. The spec of a sandbox and the launch
 * preflight (taskReadiness.ts) are both built from it.
 */
export function taskSource(
  taskId: string,
  box: TaskSourceFields,
  options: { readonly backend?: SandboxBackendName | undefined; readonly baseDir?: string | undefined },
): SandboxSource {
  const baseDir = options.baseDir ?? process.cwd();
  const own = legacyDockerBackends.has(box.backend) ? 'docker' : (box.backend as SandboxBackendName);
  return {
    task: taskId,
    backend: options.backend ?? own,
    ...(box.docker_image === undefined ? {} : { image: box.docker_image }),
    ...(box.local_repo === undefined ? {} : { localRepo: resolve(baseDir, box.local_repo) }),
    ...(box.python_env === undefined ? {} : { pythonEnv: pythonEnvRequestOf(box.python_env, baseDir) }),
  };
}

/** The part of a sandbox spec that decides which backend can run it. */
export type SandboxSource = Pick<SandboxSpec, 'task' | 'backend' | 'image' | 'localRepo' | 'pythonEnv'>;

export function sandboxSpecForTask(task: TaskEntry, options: TaskSandboxOptions): SandboxSpec {
  const box = task.sandbox;
  const baseDir = options.baseDir ?? process.cwd();
  const verifierTests = task.verifier === undefined ? undefined : resolve(baseDir, task.verifier.tests);
  const source = taskSource(task.task_id, box, { backend: options.backend, baseDir });
  return sandboxSpecSchema.parse({
    backend: source.backend,
    image: source.image,
    localRepo: source.localRepo,
    workdir: box.workdir,
    env: box.env,
    mounts: normaliseMounts(box.mounts, baseDir),
    allowedMountRoots: options.allowedMountRoots ?? [],
    capabilities: options.capabilities ?? [],
    network: box.network,
    run: options.run ?? 'adhoc',
    ...(options.node === undefined ? {} : { node: options.node }),
    task: task.task_id,
    ...(options.episode === undefined ? {} : { episode: options.episode }),
    ...(options.runDir === undefined ? {} : { runDir: options.runDir }),
    limits: taskLimits(task, options.limits),
    commandTimeoutMs: options.commandTimeoutMs,
    outputLimitBytes: options.outputLimitBytes,
    ...(box.base_commit === undefined ? { namedCommits: commitsNamedBy(task) } : { baseCommit: box.base_commit }),
    unknownBase: options.unknownBase ?? 'refuse',
    ...(source.pythonEnv === undefined ? {} : { pythonEnv: source.pythonEnv }),
    ...(verifierTests === undefined ? {} : { verifierTests }),
  });
}

/**
 * The Docker engine as the backend choice and the launch preflight see it: reached once, each
 * image asked about once. `liveEngine` is the real one; tests hand in their own.
 */
export interface DockerEngineView {
  reach(): Promise<EngineReach>;
}
export type EngineReach =
  | { readonly ok: true; readonly where: string; hasImage(image: string): Promise<boolean> }
  | { readonly ok: false; readonly where: string; readonly cause: string };

/** The engine at DOCKER_HOST (or the default socket), pinged with a 3 s deadline on first use. */
export function liveEngine(): DockerEngineView {
  let reached: Promise<EngineReach> | undefined;
  return {
    reach() {
      reached ??= reachDocker({ timeoutMs: 3_000 }).then((r): EngineReach => {
        if (!r.ok) return r;
        // One listing answers every tag: a page of 500 SWE-bench tasks names 500 images, and one
        // inspect each would cost a round trip apiece. A digest or an id is asked of the engine itself.
        let tags: Promise<ReadonlySet<string>> | undefined;
        const inspected = new Map<string, Promise<boolean>>();
        const hasImage = async (image: string): Promise<boolean> => {
          if (image.includes('@') || image.startsWith('sha256:')) {
            let held = inspected.get(image);
            if (held === undefined)
              inspected.set(
                image,
                (held = r.docker
                  .getImage(image)
                  .inspect()
                  .then(
                    () => true,
                    () => false,
                  )),
              );
            return held;
          }
          tags ??= r.docker.listImages().then(
            (list) => new Set(list.flatMap((i) => i.RepoTags ?? [])),
            () => new Set<string>(),
          );
          return (await tags).has(imageReference(image));
        };
        return { ok: true, where: r.where, hasImage };
      });
      return reached;
    },
  };
}

/**
 * An image name as the engine lists its tags: `:latest` when no tag is given, and without the
 * `docker.io/library/` or `docker.io/` prefix the engine leaves out.
 */
export function imageReference(image: string): string {
  const bare = image.replace(/^docker\.io\/library\//, '').replace(/^docker\.io\//, '');
  const lastSlash = bare.lastIndexOf('/');
  return bare.slice(lastSlash + 1).includes(':') ? bare : `${bare}:latest`;
}

/**
 * Which backend a spec will use, and why. `auto` means docker when the daemon answers and has the
 * task's image; otherwise the local working copy when the task names one, with the reason it fell
 * back; otherwise docker, whose own error then says what is missing.
 */
export async function chooseBackend(spec: SandboxSource, engine: DockerEngineView = liveEngine()): Promise<BackendChoice> {
  if (spec.backend !== 'auto') return { requested: spec.backend, backend: spec.backend };
  if (!spec.image && !spec.localRepo) {
    throw new SandboxError(`Task ${spec.task} has neither a docker_image nor a local_repo: give it one of them so a sandbox can be made.`, 'no-source');
  }
  const local = (fallback: BackendFallback): BackendChoice => ({ requested: 'auto', backend: 'local', fallback });
  if (!spec.image) return local({ code: 'no-image', reason: `task ${spec.task} names no docker_image` });
  const docker: BackendChoice = { requested: 'auto', backend: 'docker' };
  const reached = await engine.reach();
  if (!reached.ok) return spec.localRepo ? local({ code: 'daemon-unreachable', reason: `no Docker daemon at ${reached.where} (${reached.cause})` }) : docker;
  // A reachable daemon without the task's image cannot run it; the local copy can, if there is one.
  if (spec.localRepo && !(await reached.hasImage(spec.image)))
    return local({ code: 'image-missing', reason: `the Docker daemon at ${reached.where} has no image ${spec.image}` });
  return docker;
}

/** Opens the sandbox on the chosen backend, as the registry (`backends.ts`) opens it; the sandbox carries the choice (`Sandbox.choice`). */
export async function openSandbox(spec: SandboxSpec): Promise<Sandbox> {
  // Before the backend is chosen, so a refused mount never reaches the daemon.
  assertMountsAllowed(spec);
  const choice = await chooseBackend(spec);
  const sandbox = await sandboxBackend(choice.backend).open(spec);
  // The choice is set here, not by the backends, because only this function knows what was asked for.
  return Object.assign(sandbox, { choice });
}
