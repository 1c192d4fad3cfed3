/**
 * Images for tasks that name a Python environment, so a user without SWE-bench's prebuilt images
 * can still grade in containers:
 *
 * - `graph-planner/pyenv:<key>`: graph-planner/base with the environment at /opt/gp-env, installed
 *   from a wheelhouse of the local environment of that key (`ensureWheelhouse`: no network during
 *   the build, and the same versions as the local environment);
 * - the task's own image (its `docker_image`): that environment plus the task's repository, cloned
 *   from a git bundle of `local_repo`'s history up to the task's commit (`history.ts`: the base and
 *   its ancestors, nothing later), so the sandbox can check out the base and cannot find the fix, with the repository's folders first on PYTHONPATH.
 *
 * Both go through `buildContextImage`, so each is rebuilt only when its context or base changes.
 */
import type Docker from 'dockerode';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { imageTag } from '../../protocol/images.js';
import { shellQuote } from '../commandScript.js';
import { ensureWheelhouse, type BuiltEnv } from '../pythonEnvBuild.js';
import { historyUpTo } from '../history.js';
import { buildContextImage } from './contextImage.js';
import type { BuildOutcome } from './existingImage.js';
import { ImageBuildError } from './imageError.js';

const execFileAsync = promisify(execFile);

/** Where the environment lives inside the images. */
export const imageEnvDir = '/opt/gp-env';

export function pythonEnvImageTag(key: string): string {
  return `graph-planner/pyenv:${key}`;
}

/** Builds `graph-planner/pyenv:<key>` from the environment's wheelhouse. */
export async function buildPythonEnvImage(
  docker: Docker,
  env: BuiltEnv,
  options: { force?: boolean; onProgress?: (line: string) => void } = {},
): Promise<BuildOutcome & { tag: string }> {
  await ensureWheelhouse(env, {
    ...(options.force === undefined ? {} : { force: options.force }),
    ...(options.onProgress === undefined ? {} : { onLine: options.onProgress }),
  });
  const wheels = (await readdir(env.paths.wheels)).filter((n) => n.endsWith('.whl'));
  const pip = wheels.find((n) => /^pip-.*\.whl$/.test(n));
  if (pip === undefined) throw new ImageBuildError(`The wheelhouse of ${env.key} has no pip wheel: run \`gp env build --force\` for it.`, 'recipe');
  // The context is a folder of its own beside the environment: the wheels and a requirements list.
  const context = join(env.paths.dir, 'image');
  await rm(context, { recursive: true, force: true });
  await mkdir(join(context, 'wheels'), { recursive: true });
  for (const name of wheels) await copyFile(join(env.paths.wheels, name), join(context, 'wheels', name));
  // Every installed distribution pinned as the local environment has it, so both hold the same versions.
  await writeFile(join(context, 'wheels', 'pinned.txt'), `${env.record.installed.join('\n')}\n`);
  const dockerfile = [
    '# Written by gp env build: the Python environment of one specification, installed offline from its wheelhouse.',
    `FROM ${imageTag('base')}`,
    'COPY wheels/ /tmp/gp-wheels/',
    `RUN python3 -m venv --without-pip ${imageEnvDir} \\`,
    `  && ${imageEnvDir}/bin/python /tmp/gp-wheels/${pip}/pip install --no-index --find-links /tmp/gp-wheels --no-cache-dir --progress-bar off -r /tmp/gp-wheels/pinned.txt \\`,
    '  && rm -rf /tmp/gp-wheels',
    `ENV PATH=${imageEnvDir}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin VIRTUAL_ENV=${imageEnvDir} PYTHONNOUSERSITE=1`,
    '',
  ].join('\n');
  await writeFile(join(context, 'Dockerfile'), dockerfile);
  const tag = pythonEnvImageTag(env.key);
  const outcome = await buildContextImage(docker, {
    dir: context,
    tag,
    name: `pyenv-${env.key}`,
    baseTag: imageTag('base'),
    ...(options.force === undefined ? {} : { force: options.force }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  return { ...outcome, tag };
}

export interface TaskImageInput {
  /** The tag to build: the task's `docker_image`. */
  tag: string;
  envTag: string;
  /** The repository on the host (`local_repo`). */
  repo: string;
  /** Where the repository goes in the image (`workdir`). */
  workdir: string;
  /** Commit checked out in the image; the sandbox checks out the task's base again at open. */
  commit?: string;
  /** Repository folders first on PYTHONPATH, relative to the workdir. */
  pythonPath: readonly string[];
  force?: boolean;
  onProgress?: (line: string) => void;
}

/** Builds a task's image: its environment's image plus its repository. */
export async function buildTaskImage(docker: Docker, input: TaskImageInput): Promise<BuildOutcome> {
  const context = await mkdtemp(join(tmpdir(), 'gp-task-image-'));
  try {
    try {
      // From the repository's history up to the task's commit only (history.ts), so the image
      // holds no commit later than the task's base.
      const history = await historyUpTo(input.repo, input.commit === undefined ? [] : [input.commit]);
      await execFileAsync('git', ['-C', history, 'bundle', 'create', join(context, 'repo.bundle'), '--all'], { maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      throw new ImageBuildError(
        `Cannot bundle the repository ${input.repo} for ${input.tag}: ${(error as Error).message.split('\n')[0] ?? ''}. local_repo must be a git repository with at least one commit.`,
        'recipe',
      );
    }
    const workdir = input.workdir.replace(/\/+$/, '');
    const pythonPath = input.pythonPath.map((p) => posix.join(workdir, p)).join(':');
    const checkout = input.commit === undefined ? '' : ` && git -C ${shellQuote(workdir)} checkout -q ${shellQuote(input.commit)}`;
    const dockerfile = [
      "# Written by gp env build: a task's repository on top of its Python environment.",
      `FROM ${input.envTag}`,
      'COPY repo.bundle /tmp/repo.bundle',
      `RUN git clone -q /tmp/repo.bundle ${shellQuote(workdir)}${checkout} && git -C ${shellQuote(workdir)} remote remove origin && git -C ${shellQuote(workdir)} config core.logAllRefUpdates false && rm -rf ${shellQuote(posix.join(workdir, '.git', 'logs'))} /tmp/repo.bundle`,
      `ENV PYTHONPATH=${pythonPath}`,
      `WORKDIR ${workdir}`,
      'CMD ["bash"]',
      '',
    ].join('\n');
    await writeFile(join(context, 'Dockerfile'), dockerfile);
    return await buildContextImage(docker, {
      dir: context,
      tag: input.tag,
      name: `task-${input.tag}`,
      baseTag: input.envTag,
      ...(input.force === undefined ? {} : { force: input.force }),
      ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }),
    });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
