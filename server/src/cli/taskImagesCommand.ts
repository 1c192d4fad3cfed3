/**
 * `gp images build --tasks FILE [--task ID]... [--force] [--json]`: the images a dataset's tasks
 * need. A task with an image recipe (`sandbox.image_recipe`, a converted Harbor task) gets its
 * `docker_image` built from its own Dockerfile (sandbox/images/recipeImage.ts); tasks that name a
 * Python environment get theirs from `gp env build FILE --docker`. One line per image on stdout;
 * exit 0 when every image was built or up to date, 1 when one failed, 2 for a usage error.
 */
import { dirname, resolve } from 'node:path';
import type Docker from 'dockerode';
import { buildRecipeImage, connectDocker } from '../sandbox/index.js';
import { loadTasks, taskFileProblem, type TaskEntry } from '../tasks/index.js';
import { visibleLine } from '../protocol/terminalText.js';
import { errorMessage } from '../util/errors.js';
import { parseCommandArgs, usageError, type CommandUsage } from './args.js';
import { envBuild } from './envCommands.js';
import type { Io } from './output.js';

interface RecipeResult {
  readonly image: string;
  readonly task: string;
  readonly status: 'built' | 'up-to-date' | 'failed';
  readonly message: string;
}

async function buildRecipes(docker: Docker, tasks: readonly TaskEntry[], baseDir: string, force: boolean, io: Io): Promise<RecipeResult[]> {
  const results: RecipeResult[] = [];
  for (const task of tasks) {
    const recipe = task.sandbox.image_recipe;
    const image = task.sandbox.docker_image;
    if (recipe === undefined) continue;
    const id = visibleLine(task.task_id);
    if (image === undefined) {
      results.push({ image: '(none)', task: task.task_id, status: 'failed', message: 'the task has an image_recipe but no docker_image to build it as' });
      io.err(`${id}: failed: the task has an image_recipe but no docker_image to build it as.`);
      continue;
    }
    try {
      const outcome = await buildRecipeImage(docker, {
        tag: image,
        task: task.task_id,
        dockerfile: resolve(baseDir, recipe.dockerfile),
        workdir: task.sandbox.workdir,
        ...(recipe.base_image === undefined ? {} : { baseImage: recipe.base_image }),
        force,
        onProgress: (line) => io.err(`  ${visibleLine(line)}`),
      });
      io.out(`${image} (${id}): ${outcome.status} (${outcome.message})`);
      results.push({ image, task: task.task_id, status: outcome.status, message: outcome.message });
    } catch (error) {
      const message = errorMessage(error);
      io.err(`${image} (${id}): failed: ${visibleLine(message)}`);
      results.push({ image, task: task.task_id, status: 'failed', message });
    }
  }
  return results;
}

/** `args` are the words after `--tasks` was taken out: the file first. */
export async function taskImagesBuild(command: CommandUsage, file: string, rest: readonly string[], io: Io, cwd: string): Promise<number> {
  const parsed = parseCommandArgs(command, rest, { task: { type: 'string', multiple: true }, force: { type: 'boolean' }, json: { type: 'boolean' } }, io);
  if (!parsed.ok) return parsed.exit;
  if (parsed.positionals.length > 0)
    return usageError(command, io, [`unexpected ${parsed.positionals.join(' ')}; --tasks builds the images of one dataset file.`]);
  const path = resolve(cwd, file);
  const fileProblem = taskFileProblem(path, file);
  if (fileProblem !== undefined) {
    io.err(`gp ${command.name}: ${fileProblem}`);
    return 2;
  }
  const loaded = await loadTasks(path);
  for (const problem of loaded.problems) io.err(problem);
  const wanted = parsed.values.task ?? [];
  const unknown = wanted.filter((id) => !loaded.tasks.some((t) => t.task.task_id === id));
  if (unknown.length > 0) {
    io.err(`gp ${command.name}: ${file} has no task ${unknown.map(visibleLine).join(', ')}.`);
    return 2;
  }
  const tasks = loaded.tasks.map((t) => t.task).filter((t) => wanted.length === 0 || wanted.includes(t.task_id));
  const recipes = tasks.filter((t) => t.sandbox.image_recipe !== undefined);
  const withEnv = tasks.filter((t) => t.sandbox.python_env !== undefined && t.sandbox.image_recipe === undefined);
  if (recipes.length === 0) return envBuild([file, ...rest, '--docker'], io, cwd);
  let docker: Docker;
  try {
    docker = (await connectDocker()).docker;
  } catch (error) {
    io.err(`gp ${command.name}: ${errorMessage(error)}`);
    return 1;
  }
  const results = await buildRecipes(docker, recipes, dirname(path), parsed.values.force === true, io);
  if (parsed.values.json === true) io.out(JSON.stringify({ results }, null, 2));
  const failed = results.some((r) => r.status === 'failed') || loaded.problems.length > 0;
  // Tasks with a Python environment and no recipe of their own are gp env build's, as before.
  const envExit = withEnv.length === 0 ? 0 : await envBuild([file, ...rest, '--docker'], io, cwd);
  return failed || envExit !== 0 ? 1 : 0;
}
