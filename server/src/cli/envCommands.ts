/**
 * `gp env build FILE [--task ID]... [--parallel N] [--docker] [--force] [--json]`: builds the
 * Python environment of every task of a dataset file that names one (`sandbox.python_env`), once
 * per distinct specification, N at once, and with `--docker` the images that carry them
 * (`graph-planner/pyenv:<key>`, then each task's `docker_image` with its repository). Per
 * environment on stdout: its interpreter, the day it resolved as of, the resolver, its toolchain,
 * every distribution installed and how long it took; the resolver's output on stderr, each line
 * led by the environment's key. A build that stops half-way leaves nothing that counts as built,
 * so running the command again resumes with what is missing. Exit 0 when everything was built or
 * was already there, 1 when something failed, 2 for a usage error.
 */
import type Docker from 'dockerode';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import {
  buildPythonEnv,
  buildPythonEnvImage,
  buildTaskImage,
  connectDocker,
  pythonEnvRequestOf,
  pythonEnvsRoot,
  pythonPathFolders,
  resolvePythonEnv,
  SandboxError,
  type ResolvedPythonEnv,
} from '../sandbox/index.js';
import { loadTasks, taskFileProblem, type TaskEntry } from '../tasks/index.js';
import { errorMessage } from '../util/errors.js';
import { parseCommandArgs, usageError } from './args.js';
import { envReport, inPool } from './envReport.js';
import { intFlag, plural, type Io } from './output.js';

export const envBuildUsage = `gp env build FILE [--task ID]... [--parallel N] [--docker] [--force] [--json]
      Build the Python environment of each task of FILE that names one (sandbox.python_env): a
      venv per distinct specification under $GP_PYTHON_ENVS (default ~/.cache/graph-planner/
      python-envs), resolved by uv as of the day python_env.as_of names (pip, setuptools, wheel
      and build requirements included), with one wheel cache shared by all of them. Each line
      says the interpreter, the day, the resolver and what was installed. The local backend runs
      the task's commands with it first on PATH and the repository first on PYTHONPATH.
      --parallel N builds N environments at once (default 1; at most the number of CPUs).
      Built environments are kept, so running it again resumes where it stopped.
      --docker also builds graph-planner/pyenv:<key> on graph-planner/base from a wheelhouse of
      the same versions, and each task's docker_image from it and the task's local_repo. An
      environment or image that exists is reused; --force builds again.`;

const command = { name: 'env build', usage: envBuildUsage };

export const envBuildOptions = {
  task: { type: 'string', multiple: true },
  parallel: { type: 'string' },
  docker: { type: 'boolean' },
  force: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

interface Planned {
  env: ResolvedPythonEnv;
  tasks: TaskEntry[];
}

export async function envBuild(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const parsed = parseCommandArgs(command, argv, envBuildOptions, io);
  if (!parsed.ok) return parsed.exit;
  const { values, positionals, errors } = parsed;
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) errors.push('name one dataset file.');
  const parallel = intFlag('--parallel', values.parallel, errors, 1) ?? 1;
  if (parallel > availableParallelism())
    errors.push(`--parallel ${parallel} is more than this machine's ${availableParallelism()} CPUs; builds compile and unpack, so more at once only contend.`);
  if (errors.length > 0 || file === undefined) return usageError(command, io, errors);
  const path = resolve(cwd, file);
  const fileProblem = taskFileProblem(path, file);
  if (fileProblem !== undefined) {
    io.err(`gp env build: ${fileProblem}`);
    return 2;
  }
  const loaded = await loadTasks(path);
  for (const problem of loaded.problems) io.err(problem);
  const wanted = values.task ?? [];
  const unknown = wanted.filter((id) => !loaded.tasks.some((t) => t.task.task_id === id));
  if (unknown.length > 0) {
    io.err(`gp env build: ${file} has no task ${unknown.join(', ')}.`);
    return 2;
  }
  const tasks = loaded.tasks.map((t) => t.task).filter((t) => wanted.length === 0 || wanted.includes(t.task_id));
  const withEnv = tasks.filter((t) => t.sandbox.python_env !== undefined);
  if (withEnv.length === 0) {
    io.err(`gp env build: no task of ${file} names a python_env; nothing to build.`);
    return loaded.problems.length > 0 ? 1 : 0;
  }

  let failed = loaded.problems.length;
  const baseDir = dirname(path);
  // One environment per distinct specification: the key is the hash of what it is built from.
  const plans = new Map<string, Planned>();
  for (const task of withEnv) {
    const request = task.sandbox.python_env;
    if (request === undefined) continue;
    try {
      const env = await resolvePythonEnv(pythonEnvRequestOf(request, baseDir));
      const plan = plans.get(env.key) ?? { env, tasks: [] };
      plan.tasks.push(task);
      plans.set(env.key, plan);
    } catch (error) {
      io.err(`${task.task_id}: ${errorMessage(error)}`);
      failed++;
    }
  }
  const root = pythonEnvsRoot();
  const results: Array<Record<string, unknown>> = [];
  let docker: Docker | undefined;
  if (values.docker === true) {
    try {
      docker = (await connectDocker()).docker;
    } catch (error) {
      io.err(`gp env build: ${errorMessage(error)}`);
      return 1;
    }
  }
  // Environments build N at once; images (one Docker engine) and their lines follow, in plan order.
  const built = await inPool([...plans.values()], parallel, async (plan) => {
    try {
      return await buildPythonEnv(plan.env, { root, force: values.force === true, onLine: (line) => io.err(`  ${plan.env.key}: ${line}`) });
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  });
  for (const [i, plan] of [...plans.values()].entries()) {
    const label = `${plan.env.key} (${plural(plan.tasks.length, 'task')})`;
    const outcome = built[i];
    if (outcome === undefined || outcome instanceof Error) {
      io.err(`${label}: failed: ${errorMessage(outcome)}`);
      results.push({ key: plan.env.key, status: 'failed', message: errorMessage(outcome) });
      failed++;
      continue;
    }
    for (const line of envReport(outcome)) io.out(line === '' ? line : `${line.startsWith('  ') ? '' : `${label}: `}${line}`);
    results.push({ key: outcome.key, status: outcome.status, seconds: outcome.seconds, venv: outcome.paths.venv, record: outcome.record });
    if (docker === undefined) continue;
    try {
      const image = await buildPythonEnvImage(docker, outcome, { force: values.force === true, onProgress: (line) => io.err(`  ${line}`) });
      io.out(`  ${image.tag}: ${image.status} (${image.message})`);
      results.push({ image: image.tag, status: image.status });
      for (const task of plan.tasks) failed += await taskImage(docker, task, image.tag, baseDir, values.force === true, io, results);
    } catch (error) {
      io.err(`  image for ${outcome.key}: failed: ${errorMessage(error)}`);
      results.push({ image: outcome.key, status: 'failed', message: errorMessage(error) });
      failed++;
    }
  }
  if (values.json === true) io.out(JSON.stringify({ results }, null, 2));
  return failed > 0 ? 1 : 0;
}

async function taskImage(
  docker: Docker,
  task: TaskEntry,
  envTag: string,
  baseDir: string,
  force: boolean,
  io: Io,
  results: Array<Record<string, unknown>>,
): Promise<number> {
  const box = task.sandbox;
  if (box.docker_image === undefined || box.local_repo === undefined) {
    io.out(`  ${task.task_id}: no task image (it needs both docker_image and local_repo); ${envTag} has its environment`);
    return 0;
  }
  const repo = resolve(baseDir, box.local_repo);
  try {
    const outcome = await buildTaskImage(docker, {
      tag: box.docker_image,
      envTag,
      repo,
      workdir: box.workdir,
      ...(box.base_commit === undefined ? {} : { commit: box.base_commit }),
      pythonPath: box.python_env === undefined ? ['.'] : pythonPathFolders(pythonEnvRequestOf(box.python_env, baseDir), repo),
      force,
      onProgress: (line) => io.err(`  ${line}`),
    });
    io.out(`  ${box.docker_image} (${task.task_id}): ${outcome.status} (${outcome.message})`);
    results.push({ image: box.docker_image, task: task.task_id, status: outcome.status });
    return 0;
  } catch (error) {
    const message = error instanceof SandboxError || error instanceof Error ? error.message : String(error);
    io.err(`  ${box.docker_image} (${task.task_id}): failed: ${message}`);
    results.push({ image: box.docker_image, task: task.task_id, status: 'failed', message });
    return 1;
  }
}
