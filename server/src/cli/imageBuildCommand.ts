/**
 * `gp images build [base|sample|samples|sample-<name>]... [--force] [--json] [--mirror URL]`: builds the offline images
 * of the sandbox runtime, each only when what it is built from changed. Build output goes to
 * stderr as it comes; stdout gets one line per image (or the JSON results). Exit codes: 0 when
 * every image is built or up to date, 1 when one failed, 2 for a usage error.
 */
import { parseArgs } from 'node:util';
import { imageSelectorSchema, type ImageBuildResult, type ImageSelector } from '../protocol/images.js';
import { buildImages } from '../sandbox/index.js';
import { usageError } from './args.js';
import { taskImagesBuild } from './taskImagesCommand.js';
import type { Io } from './output.js';
import { errorMessage } from '../util/errors.js';

export const imagesBuildUsage = `gp images build [base|sample|samples|sample-<name>]... [--force] [--json] [--mirror URL]
  gp images build --tasks FILE [--task ID]... [--force]
      Build the offline images: graph-planner/base from the machine's Debian mirror (needs root
      and debootstrap), and on top of it graph-planner/repoenv-sample and one
      graph-planner/sample-<name> for each folder docker/samples/<name>/ ('samples' names them
      all). With no names, all of them. Each is rebuilt only when its recipe or context changed;
      --force rebuilds anyway. With --tasks, the images the tasks of FILE need: a task with an
      image recipe (a converted Harbor task) from its own Dockerfile, with git and a first
      commit of its workdir added (and its FROM replaced when it was prepared with
      --base-image); the tasks' Python environments and their own images as gp env build
      FILE --docker builds them.`;

interface BuildRequest {
  only: ImageSelector[];
  force: boolean;
  json: boolean;
  mirror?: string;
}

export const imagesBuildOptions = { force: { type: 'boolean' }, json: { type: 'boolean' }, mirror: { type: 'string' } } as const;

/** The options of both forms: the image names' own, and --tasks with the --task that gp env build takes after it. */
export const imagesBuildFormsOptions = { ...imagesBuildOptions, tasks: { type: 'string' }, task: { type: 'string', multiple: true } } as const;

function parseBuildArgs(args: readonly string[]): BuildRequest | string {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: imagesBuildOptions,
    });
  } catch (error) {
    return errorMessage(error);
  }
  const only: ImageSelector[] = [];
  for (const positional of parsed.positionals) {
    const name = imageSelectorSchema.safeParse(positional);
    if (!name.success)
      return `unknown image '${positional}'; choose from base, sample, samples (every folder of docker/samples/) or sample-<name> (one of them).`;
    if (!only.includes(name.data)) only.push(name.data);
  }
  const mirror = parsed.values.mirror;
  if (mirror !== undefined && !/^(https?|ftp|file):/.test(mirror)) return `--mirror needs a URL (http://…), got '${mirror}'.`;
  const request: BuildRequest = { only, force: parsed.values.force === true, json: parsed.values.json === true };
  if (mirror !== undefined) request.mirror = mirror;
  return request;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** One line per image, as a person reads it. */
export function formatBuildResult(r: ImageBuildResult): string {
  const id = r.id === undefined ? '' : ` [${r.id.replace(/^sha256:/, '').slice(0, 12)}]`;
  switch (r.status) {
    case 'built':
      return `${r.image}: built in ${seconds(r.durationMs)}${id} (${r.message})`;
    case 'up-to-date':
      return `${r.image}: up to date${id} (${r.message})`;
    case 'failed':
      return `${r.image}: failed: ${r.message}`;
  }
}

/** `gp images build`; `args` are the words after `images build`. */
export async function imagesBuild(args: readonly string[], io: Io, cwd: string = process.cwd()): Promise<number> {
  // Task environment images are built by gp env build, which owns the environments they come from.
  const tasksAt = args.findIndex((a) => a === '--tasks' || a.startsWith('--tasks='));
  if (tasksAt >= 0) {
    const rest = [...args];
    const [flag] = rest.splice(tasksAt, 1);
    const file = flag?.startsWith('--tasks=') ? flag.slice('--tasks='.length) : rest.splice(tasksAt, 1)[0];
    if (file === undefined || file === '') return usageError({ name: 'images build', usage: imagesBuildUsage }, io, ['--tasks needs a dataset file.']);
    return taskImagesBuild({ name: 'images build', usage: imagesBuildUsage }, file, rest, io, cwd);
  }
  const request = parseBuildArgs(args);
  if (typeof request === 'string') {
    return usageError({ name: 'images build', usage: imagesBuildUsage }, io, [request]);
  }
  const results = await buildImages({
    only: request.only,
    force: request.force,
    onProgress: (line) => io.err(line),
    ...(request.mirror === undefined ? {} : { mirror: request.mirror }),
  });
  if (request.json) io.out(JSON.stringify({ results }, null, 2));
  else for (const result of results) io.out(formatBuildResult(result));
  return results.some((r) => r.status === 'failed') ? 1 : 0;
}
