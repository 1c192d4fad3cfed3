/**
 * The sandbox contract: what opening a sandbox needs, what a command returns, what a patch
 * application reports, and the labels every container carries. The engine (`server/src/sandbox/`),
 * the CLI and the extension's Containers view all read these definitions; nothing else declares
 * them.
 */
import { z } from 'zod';
import { legacyDockerBackendNames, sandboxBackendChoices, sandboxBackendNames } from './sandboxBackends.js';

/**
 * Labels put on every container we create. `run` and `task` group containers in the Containers
 * view, and `episode` names the one a container serves, since two attempts at a task run in two
 * containers that otherwise look the same (issue 27); `pid` and `host` say which process owns the container, so that `gp containers reap` can
 * tell a live run's container from an orphan left by a crash.
 */
export const sandboxLabels = {
  run: 'graph-planner.run',
  task: 'graph-planner.task',
  pid: 'graph-planner.pid',
  host: 'graph-planner.host',
  created: 'graph-planner.created',
  /** The Ray node whose sandbox host made the container (issue 22); absent outside a Ray cluster's hosts. */
  node: 'graph-planner.node',
  /** The episode the container serves (`protocol/episodeName.ts`); absent for a task's tests run alone and in containers of older versions. */
  episode: 'graph-planner.episode',
  /** The run folder, absolute, whose episodes the container serves (issue 37); absent outside a run and in containers of older versions. */
  runDir: 'graph-planner.run-dir',
} as const;

/** Backends a sandbox can be opened with; `auto` picks docker when the daemon answers. */
export const sandboxBackendSchema = z.enum(sandboxBackendChoices);
export type SandboxBackendName = z.infer<typeof sandboxBackendSchema>;

/** The backend a sandbox actually ran on (`auto` decided). */
export const openedBackendSchema = z.enum(sandboxBackendNames);

/** The original system's backend names that mean `docker` here (a task file may still use them). */
export const legacyDockerBackends: ReadonlySet<string> = new Set(legacyDockerBackendNames);

/** Resource limits applied to a sandbox; `null` leaves a limit to the engine's default (none). */
export const sandboxLimitsSchema = z.object({
  /** Memory limit in bytes (Docker `HostConfig.Memory`; the local backend uses `ulimit -v`). */
  memoryBytes: z.number().int().positive().nullable().default(null),
  /** CPUs the sandbox may use (Docker `NanoCpus`); Docker only. */
  cpus: z.number().positive().nullable().default(null),
  /** Most processes at once (Docker `PidsLimit`); Docker only. */
  pids: z.number().int().positive().nullable().default(null),
});
export type SandboxLimits = z.infer<typeof sandboxLimitsSchema>;

export const mountSpecSchema = z.object({
  host: z.string().min(1),
  container: z.string().min(1),
  mode: z.enum(['ro', 'rw']).default('rw'),
});
export type MountSpec = z.infer<typeof mountSpecSchema>;

/**
 * A task's Python environment as a sandbox needs it: what to build it from (`python`, `packages`,
 * the requirements file's absolute path) and which repository folders go first on PYTHONPATH
 * (absent: `src` when the repository keeps its packages there, else the root).
 */
export const pythonEnvRequestSchema = z.object({
  python: z.string().min(1).default('python3'),
  packages: z.array(z.string().min(1)).default([]),
  requirements: z.string().min(1).optional(),
  pythonpath: z.array(z.string()).optional(),
  /** The day unpinned packages are resolved as of (`YYYY-MM-DD`); absent: the day of the build. Part of the key. */
  asOf: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional(),
  /**
   * Commands the local backend runs in each working copy when it opens (the repository's own
   * install), in a venv of the working copy layered on the shared one; not part of the key.
   */
  setup: z.array(z.string().min(1)).optional(),
});
export type PythonEnvRequest = z.output<typeof pythonEnvRequestSchema>;

/** What `gp env build` recorded about one built environment (`gp-env.json` beside the venv). */
export const pythonEnvRecordSchema = z.object({
  schema: z.literal('graph-planner/python-env@2'),
  key: z.string(),
  interpreter: z.string(),
  pythonVersion: z.string(),
  packages: z.array(z.string()),
  requirementsSha256: z.string().optional(),
  /** The day every unpinned package was resolved as of (`YYYY-MM-DD`), and why that day. */
  asOf: z.string(),
  asOfWhy: z.string(),
  /** The resolver and its version, e.g. `uv 0.13.9`. */
  resolver: z.string(),
  /** pip, setuptools and wheel as the environment holds them (what the repository's install runs with). */
  toolchain: z.record(z.string(), z.string()),
  /** `name==version` of everything installed, from the environment's own metadata. */
  installed: z.array(z.string()),
  builtAt: z.string(),
  seconds: z.number(),
});
export type PythonEnvRecord = z.infer<typeof pythonEnvRecordSchema>;

/** Where Docker's socket lives on the hosts we run on; a mount of one, or of a folder holding one, is never allowed. */
export const dockerSocketPaths = ['/var/run/docker.sock', '/run/docker.sock'] as const;

/**
 * The capabilities Docker gives a container by default. A task container drops all of them; a user
 * may give back some of these (`sandbox.capabilities`), never one beyond Docker's defaults.
 */
export const containerCapabilities = [
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'SETGID',
  'SETUID',
  'SETPCAP',
  'NET_BIND_SERVICE',
  'NET_RAW',
  'SYS_CHROOT',
  'MKNOD',
  'AUDIT_WRITE',
  'SETFCAP',
] as const;
export const containerCapabilitySchema = z.enum(containerCapabilities);
export type ContainerCapability = z.infer<typeof containerCapabilitySchema>;

/** Everything needed to open one sandbox for one task. */
export const sandboxSpecSchema = z.object({
  backend: sandboxBackendSchema.default('auto'),
  /** Container image (docker backend). */
  image: z.string().min(1).optional(),
  /** A repository on the host (local backend); it is copied, never changed in place. */
  localRepo: z.string().min(1).optional(),
  /** Directory holding the repository inside the sandbox. */
  workdir: z.string().min(1),
  env: z.record(z.string(), z.string()).default({}),
  mounts: z.array(mountSpecSchema).default([]),
  /**
   * Host folders the mounts may come from (`sandbox.allowed_mount_roots`); a mount elsewhere, of
   * `/` or of the Docker socket is refused before any container starts (sandbox/mountPolicy.ts).
   */
  allowedMountRoots: z.array(z.string().min(1)).default([]),
  /** Network access; off unless the task asks for it. */
  network: z.boolean().default(false),
  /** Capabilities the container keeps (`sandbox.capabilities`); every other one is dropped. */
  capabilities: z.array(containerCapabilitySchema).default([]),
  /** Run name and task id, written into the container labels. */
  run: z.string().min(1).default('adhoc'),
  /** The Ray node of the sandbox host that opens it (issue 22), written into its `graph-planner.node` label. */
  node: z.string().min(1).optional(),
  task: z.string().min(1).default('adhoc'),
  /** The episode it is opened for, written into its `graph-planner.episode` label; absent outside an episode (a task's tests run alone). */
  episode: z.string().min(1).optional(),
  /** The run folder it serves, written into its `graph-planner.run-dir` label; absent outside a run. */
  runDir: z.string().min(1).optional(),
  limits: sandboxLimitsSchema.prefault({}),
  /**
   * Time limit of one command, git operations included, unless the command gives its own. No
   * default here: it is the config's `sandbox.command_timeout` (launch/sandboxOptions.ts).
   */
  commandTimeoutMs: z.number().int().positive(),
  /** Output kept per stream per command; the rest is dropped with a marker (`sandbox.output_limit`). */
  outputLimitBytes: z.number().int().positive(),
  /** The commit the task starts from; `HEAD` of the workdir at open time when absent. */
  baseCommit: z.string().min(1).optional(),
  /**
   * Commits the task names elsewhere (its test command's `git checkout <sha>`), for a task without
   * `baseCommit`: a working copy on another commit is refused or warned about (`unknownBase`).
   */
  namedCommits: z.array(z.string().regex(/^[0-9a-f]{7,40}$/)).default([]),
  /** What a working copy on none of `namedCommits` gets (`sandbox.unknown_base`). */
  unknownBase: z.enum(['refuse', 'warn']).default('refuse'),
  /** The task's Python environment; commands run with it first on PATH (see sandbox/pythonEnv.ts). */
  pythonEnv: pythonEnvRequestSchema.optional(),
  /**
   * The host folder of a Harbor task's verifier (the task's `verifier.tests`, made absolute), which
   * the grader places in the sandbox at submit (testing/harborVerifier.ts); absent for other tasks.
   */
  verifierTests: z.string().min(1).optional(),
});
export type SandboxSpec = z.output<typeof sandboxSpecSchema>;
export type SandboxSpecInput = z.input<typeof sandboxSpecSchema>;

/** What one command produced. `exitCode` is null when the command was killed by its time limit. */
export const execResultSchema = z.object({
  exitCode: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  durationMs: z.number().nonnegative(),
  timedOut: z.boolean(),
  /** True when either stream went over the output limit and was cut. */
  truncated: z.boolean(),
  /** Bytes the command wrote to each stream, counted in full even when cut. */
  stdoutBytes: z.number().int().nonnegative(),
  stderrBytes: z.number().int().nonnegative(),
});
export type ExecResult = z.infer<typeof execResultSchema>;

/** One hunk or file `git apply --check` refused, as far as git names it. */
export const rejectedHunkSchema = z.object({
  path: z.string(),
  /** The line in the original file where the hunk was expected, when git says it. */
  line: z.number().int().optional(),
  message: z.string(),
});
export type RejectedHunk = z.infer<typeof rejectedHunkSchema>;

/**
 * The outcome of applying a patch. When `applied` is false the repository is unchanged;
 * `refused` says the patch was stopped before git saw it (a path outside the repository).
 */
export const patchResultSchema = z.object({
  applied: z.boolean(),
  files: z.array(z.string()),
  rejected: z.array(rejectedHunkSchema),
  refused: z.string().optional(),
  message: z.string(),
});
export type PatchResult = z.infer<typeof patchResultSchema>;

/** One container of ours, as `gp containers list` and the Containers view show it. */
export const containerInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  image: z.string(),
  state: z.string(),
  status: z.string(),
  run: z.string(),
  task: z.string(),
  pid: z.number().int().nullable(),
  host: z.string(),
  /** The Ray node whose sandbox host made it (its `graph-planner.node` label); absent for a container made outside a cluster's hosts. */
  node: z.string().optional(),
  /** The episode it serves (its `graph-planner.episode` label); absent for a container made outside an episode or by an older version. */
  episode: z.string().optional(),
  /** The run folder it serves (its `graph-planner.run-dir` label); absent outside a run and in containers of older versions. */
  runDir: z.string().optional(),
  /**
   * Whether `runDir` lies under one of the workspace's run roots, as the language server sees them
   * (lsp/runRoots.ts); set by the server for the Containers view's filter, absent elsewhere.
   */
  inWorkspace: z.boolean().optional(),
  created: z.string(),
  /** Whether the process that created it still runs on this host. */
  ownerAlive: z.boolean(),
});
export type ContainerInfo = z.infer<typeof containerInfoSchema>;
