/**
 * `gp env build FILE [--task ID]... [--docker] [--force] [--json]`: builds the Python environment
 * of every task of a dataset file that names one (`sandbox.python_env`), once per distinct
 * specification, and with `--docker` the images that carry them (`graph-planner/pyenv:<key>`, then
 * each task's `docker_image` with its repository). One line per environment and per image on
 * stdout, with how long it took; pip's output on stderr. Exit 0 when everything was built or was
 * already there, 1 when something failed, 2 for a usage error.
 */
import type Docker from 'dockerode';
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
  type BuiltEnv,
  type ResolvedPythonEnv,
} from '../sandbox/index.js';
import { loadTasks, taskFileProblem, type TaskEntry } from '../tasks/index.js';
import { errorMessage } from '../util/errors.js';
import { parseCommandArgs, usageError } from './args.js';
import { plural, type Io } from './output.js';

export const envBuildUsage = `gp env build FILE [--task ID]... [--docker] [--force] [--json]
      Build the Python environment of each task of FILE that names one (sandbox.python_env): a
      venv per distinct specification under $GP_PYTHON_ENVS (default ~/.cache/graph-planner/
      python-envs), installed from the package index through a wheelhouse. The local backend runs
      the task's commands with it first on PATH and the repository first on PYTHONPATH.
      --docker also builds graph-planner/pyenv:<key> on graph-planner/base from the same wheels,
      and each task's docker_image from it and the task's local_repo. An environment or image
      that exists is reused; --force builds again.`;

const command = { name: 'env build', usage: envBuildUsage };

export const envBuildOptions = { task: { type: 'string', multiple: true }, docker: { type: 'boolean' }, force: { type: 'boolean' }, json: { type: 'boolean' } } as const;

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
  for (const plan of plans.values()) {
    const label = `${plan.env.key} (Python ${plan.env.interpreter.version}, ${plural(plan.env.packages.length, 'package')}${plan.env.requirements ? ' and a requirements file' : ''}; ${plural(plan.tasks.length, 'task')})`;
    let built: BuiltEnv;
    try {
      built = await buildPythonEnv(plan.env, { root, force: values.force === true, onLine: (line) => io.err(`  ${line}`) });
    } catch (error) {
      io.err(`${label}: failed: ${errorMessage(error)}`);
      results.push({ key: plan.env.key, status: 'failed', message: errorMessage(error) });
      failed++;
      continue;
    }
    io.out(`${label}: ${built.status === 'built' ? `built in ${built.seconds.toFixed(1)} s` : `already built (${built.seconds.toFixed(2)} s)`}, ${plural(built.record.installed.length, 'distribution')} in ${built.paths.venv}`);
    results.push({ key: built.key, status: built.status, seconds: built.seconds, venv: built.paths.venv, installed: built.record.installed });
    if (docker === undefined) continue;
    try {
      const image = await buildPythonEnvImage(docker, built, { force: values.force === true, onProgress: (line) => io.err(`  ${line}`) });
      io.out(`  ${image.tag}: ${image.status} (${image.message})`);
      results.push({ image: image.tag, status: image.status });
      for (const task of plan.tasks) failed += await taskImage(docker, task, image.tag, baseDir, values.force === true, io, results);
    } catch (error) {
      io.err(`  image for ${built.key}: failed: ${errorMessage(error)}`);
      results.push({ image: built.key, status: 'failed', message: errorMessage(error) });
      failed++;
    }
  }
  if (values.json === true) io.out(JSON.stringify({ results }, null, 2));
  return failed > 0 ? 1 : 0;
}

async function taskImage(docker: Docker, task: TaskEntry, envTag: string, baseDir: string, force: boolean, io: Io, results: Array<Record<string, unknown>>): Promise<number> {
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
