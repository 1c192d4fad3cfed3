/**
 * One Harbor task (read by harborTask.ts) as a task entry and its instance file (docs/field-formats.md,
 * "Running a Harbor task"): the instruction is the issue, the environment's Dockerfile (or its
 * prebuilt `docker_image`) is the image recipe, `tests/` is the verifier, and task.toml's timeouts,
 * resources and network mode become the task's limits. Pure: the caller has copied the task folder
 * and decided where its files live in the prepared dataset.
 */
import { createHash } from 'node:crypto';
import type { ConversionNote, InstanceFile } from '../protocol/datasetPrepare.js';
import type { TaskEntryInput } from '../tasks/index.js';
import { suggestedTaskId, taskIdProblem } from '../tasks/index.js';
import type { DockerfileFacts } from '../util/dockerfile.js';
import { titleFromText } from './conversion.js';
import type { HarborTask } from './harborTask.js';

/** Harbor's own verifier timeout when task.toml names none ([H] `harbor/models/task/config.py`, docs/field-formats.md). */
export const harborDefaultVerifierTimeoutSec = 600;
/** Harbor's template's working directory, for a Dockerfile that sets none. */
const defaultWorkdir = '/app';

/** Why a task asks for something our sandboxes cannot give, or undefined. */
export function unsupportedFeature(task: HarborTask): string | undefined {
  const c = task.config;
  const environment = c.environment as Record<string, unknown> | undefined;
  if ((c.environment?.gpus ?? 0) > 0) return `[environment] gpus = ${c.environment?.gpus}: Graph Planner's sandboxes have no GPUs`;
  if (c.verifier?.environment_mode === 'separate')
    return '[verifier] environment_mode = "separate": the verifier runs in the agent\'s sandbox here, as in Harbor\'s shared mode';
  const os = environment?.['os'];
  if (os !== undefined && os !== 'linux') return `[environment] os = ${JSON.stringify(os)}: Graph Planner's sandboxes are Linux`;
  if (Array.isArray((c as Record<string, unknown>)['steps'])) return '[[steps]]: multi-step tasks are not supported; convert each step to a task of its own';
  return undefined;
}

const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An image reference as Docker reads one, roughly; it goes into a generated Dockerfile, so nothing else may. */
const imageReference = /^[a-z0-9][a-z0-9._/:@-]*$/i;

/**
 * Why a value of task.toml cannot be carried over as it is, or undefined: an image name that is no
 * image reference would be written into a Dockerfile line, and an environment variable whose name
 * is not a shell name cannot be exported to the sandbox's commands.
 */
export function invalidValue(task: HarborTask): string | undefined {
  const image = task.config.environment?.docker_image;
  if (image !== undefined && !imageReference.test(image))
    return `[environment] docker_image = ${JSON.stringify(image)} is not an image reference; name an image such as python:3.11-slim`;
  for (const [table, env] of [
    ['environment', (task.config.environment as Record<string, unknown> | undefined)?.['env']],
    ['verifier', (task.config.verifier as Record<string, unknown> | undefined)?.['env']],
  ] as const) {
    const bad = Object.keys(stringTable(env)).find((name) => !variableName.test(name));
    if (bad !== undefined)
      return `[${table}.env] ${JSON.stringify(bad)} is not a shell variable name (letters, digits and _, not starting with a digit); rename it`;
  }
  return undefined;
}

/** The task's id: `[task] name` with `/` as `__` (`harbor-test/simple-task` → `harbor-test__simple-task`), else its folder's name. */
export function harborTaskId(task: HarborTask, folderName: string): { id: string } | { problem: string } {
  const name = task.config.task?.name ?? folderName;
  if (taskIdProblem(name) === undefined) return { id: name };
  const suggested = suggestedTaskId(name);
  if (suggested !== undefined) return { id: suggested };
  return { problem: `neither [task] name nor the folder's name (${JSON.stringify(name)}) can be a task id: ${taskIdProblem(name) ?? ''}` };
}

/** An image name Docker accepts: lower case, `[a-z0-9._-]`, with a short hash when the id had to change. */
export function harborImageTag(taskId: string, namespace = 'graph-planner'): string {
  const slug =
    taskId
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[._-]+|[._-]+$/g, '')
      .slice(0, 80) || 'task';
  const hash = slug === taskId ? '' : `-${createHash('sha256').update(taskId).digest('hex').slice(0, 8)}`;
  return `${namespace}/harbor-${slug}${hash}:latest`;
}

/** The working directory: `[environment] workdir`, else the Dockerfile's last WORKDIR, else /app. */
export function harborWorkdir(task: HarborTask, facts: DockerfileFacts | undefined): { workdir: string; defaulted: boolean } {
  const configured = (task.config.environment as Record<string, unknown> | undefined)?.['workdir'];
  if (typeof configured === 'string' && configured.startsWith('/')) return { workdir: configured, defaulted: false };
  if (facts?.workdir !== undefined && facts.workdir !== '/') return { workdir: facts.workdir, defaulted: false };
  return { workdir: defaultWorkdir, defaulted: true };
}

/** Whether the sandbox gets the network, and the note when the task's policy could not be kept as it is. */
export function harborNetwork(task: HarborTask): { network: boolean; note?: ConversionNote } {
  const environment = task.config.environment;
  switch (environment?.network_mode) {
    case 'public':
      return { network: true };
    case 'no-network':
      return { network: false };
    case 'allowlist':
      return { network: false, note: 'harbor-network-allowlist-closed' };
    case undefined:
      if (environment?.allow_internet !== undefined) return { network: environment.allow_internet };
      return { network: false, note: 'harbor-network-default-off' };
  }
}

function stringTable(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export interface HarborPlaces {
  /** Paths relative to the task JSONL's folder. */
  readonly dockerfile: string;
  readonly tests: string;
  readonly workdir: string;
}

export interface HarborConvertInput {
  readonly task: HarborTask;
  readonly id: string;
  readonly facts: DockerfileFacts | undefined;
  readonly places: HarborPlaces;
  readonly dataset: string;
  readonly split: string;
  readonly maxSteps?: number;
  readonly imageNamespace?: string;
  readonly baseImage?: string;
  /** What the local working directory lacks (harborWorkdir.ts). */
  readonly localGaps: readonly string[];
}

export function convertHarborTask(input: HarborConvertInput): { task: TaskEntryInput; instance: InstanceFile; notes: ConversionNote[] } {
  const { task, id, facts } = input;
  const c = task.config;
  const notes: ConversionNote[] = [];
  if (task.dockerfile !== undefined && c.environment?.docker_image !== undefined) notes.push('harbor-docker-image-ignored');
  if (task.dockerfile === undefined) notes.push('harbor-prebuilt-image');
  if (input.baseImage !== undefined) notes.push('harbor-base-replaced');
  const { workdir, defaulted } = harborWorkdir(task, facts);
  if (defaulted) notes.push('harbor-workdir-default');
  if (input.localGaps.length > 0) notes.push('harbor-local-workdir-partial');
  const network = harborNetwork(task);
  if (network.note !== undefined) notes.push(network.note);
  const environment = c.environment;
  if (environment?.storage_mb !== undefined) notes.push('harbor-storage-not-enforced');
  const verifierTimeout = c.verifier?.timeout_sec ?? harborDefaultVerifierTimeoutSec;
  const agentTimeout = c.agent?.timeout_sec;
  const image = harborImageTag(id, input.imageNamespace);
  const resources = {
    ...(environment?.cpus === undefined ? {} : { cpus: environment.cpus }),
    ...(environment?.memory_mb === undefined ? {} : { memory_mb: environment.memory_mb }),
    ...(environment?.storage_mb === undefined ? {} : { storage_mb: environment.storage_mb }),
  };
  const instruction = task.instruction;
  const entry: TaskEntryInput = {
    task_id: id,
    sandbox: {
      docker_image: image,
      workdir,
      backend: 'auto',
      network: network.network,
      requires_build: true,
      local_repo: input.places.workdir,
      env: stringTable((environment as Record<string, unknown> | undefined)?.['env']),
      image_recipe: { dockerfile: input.places.dockerfile, ...(input.baseImage === undefined ? {} : { base_image: input.baseImage }) },
      ...(Object.keys(resources).length === 0 ? {} : { resources }),
    },
    issue: { title: titleFromText(instruction) || id, body: instruction },
    data_source: input.dataset,
    split: input.split,
    ...(input.maxSteps === undefined ? {} : { max_steps: input.maxSteps }),
    // The episode's clock covers the submit's verification, which Harbor times apart from the agent.
    ...(agentTimeout === undefined ? {} : { episode_timeout: agentTimeout + verifierTimeout }),
    verifier: { tests: input.places.tests, timeout_sec: verifierTimeout, env: stringTable((c.verifier as Record<string, unknown> | undefined)?.['env']) },
  };
  const instance: InstanceFile = {
    schema: 'graph-planner/instance@1',
    task_id: id,
    kind: 'harbor',
    source: { dataset: input.dataset, split: input.split, place: task.dir },
    docker_image: image,
    requires_build: true,
    workdir,
    test_command: 'bash /tests/test.sh',
    harbor: {
      folder: task.dir,
      ...(c.task?.name === undefined ? {} : { name: c.task.name }),
      ...(c.schema_version === undefined ? {} : { schema_version: c.schema_version }),
      from_images: facts === undefined ? (environment?.docker_image === undefined ? [] : [environment.docker_image]) : facts.bases.map((b) => b.image),
      ...(agentTimeout === undefined ? {} : { agent_timeout_sec: agentTimeout }),
      verifier_timeout_sec: verifierTimeout,
      ...(environment?.build_timeout_sec === undefined ? {} : { build_timeout_sec: environment.build_timeout_sec }),
      ...(environment?.network_mode === undefined ? {} : { network_mode: environment.network_mode }),
      has_solution: task.solution !== undefined,
      local_gaps: [...input.localGaps],
    },
  };
  return { task: entry, instance, notes };
}
