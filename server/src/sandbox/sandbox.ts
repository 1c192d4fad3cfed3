/**
 * The `Sandbox` interface: where a task's repository lives and commands run. Two backends
 * implement it (`dockerSandbox.ts`, `localSandbox.ts`); everything above this folder (testing,
 * graph, env, rollouts) talks to this interface only.
 */
import type { BackendChoice } from '../protocol/backendChoice.js';
import type { ExecResult, PatchResult, SandboxSpec } from '../protocol/sandbox.js';
import type { OpenedBackendName } from '../protocol/sandboxBackends.js';

/** A chunk of output as it arrives, for callers that show progress. */
export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface ExecOptions {
  /** Working directory; the sandbox's workdir when absent. Relative paths resolve against it. */
  cwd?: string;
  /** Extra environment variables for this command only. */
  env?: Record<string, string>;
  /** Time limit in milliseconds; the sandbox's default when absent. */
  timeoutMs?: number;
  /** Bytes kept per stream; the sandbox's default when absent. */
  maxOutputBytes?: number;
  /** Called with output as it arrives (only the part that is kept). */
  onOutput?: (chunk: OutputChunk) => void;
}

/** A command: an argv list run without a shell, or a string run by `bash -c`. */
export type Command = readonly string[] | string;

export interface TreeFile {
  /** Path relative to the root that was read, with `/` separators. */
  path: string;
  content: Buffer;
  mode: number;
}

export interface ReadTreeOptions {
  /** Skip files larger than this many bytes (default 1 MiB). */
  maxFileBytes?: number;
  /** Keep only paths for which this returns true (paths relative to the root). */
  include?: (path: string) => boolean;
}

export interface Sandbox {
  readonly backend: OpenedBackendName;
  /** How `openSandbox` chose the backend (and why `auto` fell back); absent when a backend was opened directly. */
  readonly choice?: BackendChoice;
  /** The container id (docker) or the working copy's path (local). */
  readonly id: string;
  readonly spec: SandboxSpec;
  /** The repository root inside the sandbox. */
  readonly workdir: string;
  /** The commit the task started from; `diff` and `reset` are relative to it. */
  readonly baseCommit: string;
  /**
   * What the task's commands run with, in words, for a verdict or a report to name: the Python
   * environment on the local backend (key, interpreter, the day it resolved as of, resolver), the
   * image on docker; absent when the commands run with the host's tools.
   */
  readonly environment?: string;
  /**
   * Whether a command's script reaches the sandbox through a long-lived session's standard input
   * (the docker backend's shell session, the local backend's bubblewrap session), never on a
   * command line or in an environment that a process of the sandbox can read. A one-time secret in
   * such a script is then no easier to read than one in a file the engine writes, and costs no
   * round trip of its own (testing/runnerWitness.ts writes the witness's key this way).
   */
  readonly privateScripts?: boolean;

  exec(command: Command, options?: ExecOptions): Promise<ExecResult>;
  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, content: Buffer | string, mode?: number): Promise<void>;
  /** Files (not directories) under `dir`, relative to it, sorted. */
  listFiles(dir?: string): Promise<string[]>;
  /** Every file under `dir` in one transfer (a tar stream for docker). `.git` is left out. */
  readTree(dir?: string, options?: ReadTreeOptions): Promise<TreeFile[]>;
  /** Apply a unified diff atomically: all of it or nothing. */
  applyPatch(diff: string): Promise<PatchResult>;
  /** Everything changed since the base commit, new files included, as a unified diff. */
  diff(): Promise<string>;
  /** Back to the base commit; untracked files removed. */
  reset(): Promise<void>;
  /**
   * An absolute path for the engine's own files, outside the repository so it never shows in a
   * diff: under `/tmp` in a container, in the working copy's scratch folder on the local backend.
   */
  scratchPath(name: string): string;
  /** Stop and remove the sandbox; calling it again does nothing. */
  close(): Promise<void>;
}

/** A failure of the sandbox itself (not of a command run in it), with what to do about it. */
export class SandboxError extends Error {
  constructor(
    message: string,
    readonly code:
      | 'daemon-unreachable'
      | 'image-missing'
      | 'no-source'
      | 'base-missing'
      | 'base-unknown'
      | 'env-missing'
      | 'container-gone'
      | 'closed'
      | 'io'
      | 'invalid'
      | 'mount-refused',
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

/** A sandbox's backend choice; one opened without `openSandbox` (a test, the image builder) ran where it was asked to. */
export function backendChoiceOf(sandbox: Sandbox): BackendChoice {
  return sandbox.choice ?? { requested: sandbox.backend, backend: sandbox.backend };
}
