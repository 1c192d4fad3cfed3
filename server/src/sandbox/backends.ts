/**
 * The registry of sandbox backends: each backend of the one list (`protocol/sandboxBackends.ts`)
 * with how it opens, what stops a task on it before anything opens, and its containers. Opening
 * (`openSandbox.ts`), the launch preflight's readiness (`taskReadiness.ts`), the Containers view
 * (`lsp/containerRequests.ts`), a run's container reaper (`launch/episodeDeps.ts`) and a node's
 * sandbox slots (`slots.ts`, through `slotShareFor`) consult it and name no backend themselves. A new backend is its module (as `dockerBackend.ts`) and one line
 * in `builtInBackends` below, its name added to the protocol's list; tests add their own through
 * `registerSandboxBackend`, which hands back the call that removes it.
 */
import type { SandboxLimits, SandboxSpec } from '../protocol/sandbox.js';
import type { OpenedBackendName } from '../protocol/sandboxBackends.js';
import type { ReadinessCode } from '../protocol/taskPreflight.js';
import type { ContainerBackend } from './containerService.js';
import { dockerBackend } from './dockerBackend.js';
import { localBackend } from './localBackend.js';
import type { DockerEngineView, EngineReach, SandboxSource } from './openSandbox.js';
import type { Sandbox, SandboxError } from './sandbox.js';
import { widerShare, type SlotShare } from './slots.js';

/** What the preflight of one task has already learnt, shared with the backend's readiness rule. */
export interface ReadinessProbe {
  /** The Docker engine, shared by the tasks of one preflight. */
  readonly engine: DockerEngineView;
  /** The engine as reached for this task; undefined when the task names no image. */
  readonly reached: EngineReach | undefined;
  /** Whether the engine holds the task's image; null when it names none or no engine answers. */
  readonly imagePresent: boolean | null;
  /** Each Python environment's answer, shared by the tasks of one preflight. */
  readonly envs: Map<string, Promise<SandboxError | undefined>>;
}

/** What stops a task on a backend, in the words opening its sandbox would use. */
export interface ReadinessProblem {
  readonly code: ReadinessCode;
  readonly reason: string;
}

/** The containers a backend runs its tasks in. */
export interface BackendContainers {
  /** The Containers view's side of them. */
  view(): ContainerBackend;
  /** Removes a run's containers (with `includeLive` false only those whose process is gone) and says how many. */
  reap(run: string, includeLive: boolean): Promise<number>;
}

/** One backend as the registry holds it. */
export interface SandboxBackend {
  /** Its name in configs and task files. */
  readonly name: string;
  /** Opens a sandbox for a spec once this backend was chosen for it. */
  open(spec: SandboxSpec): Promise<Sandbox>;
  /** What stops the task on this backend here, without opening anything; null when nothing does. */
  readiness(source: SandboxSource, probe: ReadinessProbe): Promise<ReadinessProblem | null>;
  /** What one of its sandboxes counts as on a node under the config's limits, for the node's slots. */
  slotShare(limits: SandboxLimits): SlotShare;
  /** Its containers, for a backend that runs tasks in containers. */
  readonly containers?: BackendContainers;
}

/** Every backend of the protocol's list, each registered once; the type refuses a name left out. */
const builtInBackends: { readonly [name in OpenedBackendName]: SandboxBackend } = {
  docker: dockerBackend,
  local: localBackend,
};

const registered = new Map<string, SandboxBackend>(Object.values(builtInBackends).map((backend) => [backend.name, backend]));

/** Adds a backend (a test's fake, say) and returns the call that removes it again. */
export function registerSandboxBackend(backend: SandboxBackend): () => void {
  if (registered.has(backend.name)) throw new Error(`A sandbox backend named ${backend.name} is already registered.`);
  registered.set(backend.name, backend);
  return () => {
    // Only its own entry: a later registration under the same name is not this call's to remove.
    if (registered.get(backend.name) === backend) registered.delete(backend.name);
  };
}

/** The backend of a name the schemas accepted; an unknown name is a bug. */
export function sandboxBackend(name: string): SandboxBackend {
  const backend = registered.get(name);
  if (backend === undefined) throw new Error(`No sandbox backend is registered as ${name}.`);
  return backend;
}

/** The backends a config's `sandbox.backend` may use: all of them for `auto`, else the one named. */
export function backendsFor(name: string): SandboxBackend[] {
  return name === 'auto' ? [...registered.values()] : [sandboxBackend(name)];
}

/** The containers of every backend that runs tasks in containers, in registration order. */
export function containerBackends(): BackendContainers[] {
  return [...registered.values()].flatMap((backend) => (backend.containers === undefined ? [] : [backend.containers]));
}

/**
 * What one sandbox counts as on a node for a config's `sandbox.backend`: the backend's own share,
 * or for `auto` the widest of them all, since any of them may open a task's sandbox there.
 */
export function slotShareFor(name: string, limits: SandboxLimits): SlotShare {
  const [first, ...rest] = backendsFor(name).map((backend) => backend.slotShare(limits));
  if (first === undefined) throw new Error('No sandbox backend is registered.');
  return rest.reduce(widerShare, first);
}
