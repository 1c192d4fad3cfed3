/**
 * The offline images of the sandbox runtime: `graph-planner/base` (Debian from the machine's own
 * mirror) and `graph-planner/repoenv-sample` (the sample task's repository on top of it). Each is
 * rebuilt only when what it is built from changes; every outcome is a result, never an exception.
 */
import type Docker from 'dockerode';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { imageNames, imageTags, type ImageBuildResult, type ImageName } from '../../protocol/images.js';
import { connectDocker } from '../dockerClient.js';
import { SandboxError } from '../sandbox.js';
import { buildBaseImage } from './baseImage.js';
import { buildContextImage } from './contextImage.js';
import type { BuildOutcome } from './existingImage.js';
import { ImageBuildError, errorMessage } from './imageError.js';

export { parseDeb822Sources, parseOneLineSources, pickMirror, readAptMirror, type AptMirror, type AptSource } from './aptMirror.js';
export { baseRecipeHash, importChanges, loadBaseRecipe, recipeFileNames, type BaseRecipe } from './baseImage.js';
export { buildContextImage, type ContextBuildOptions } from './contextImage.js';
export { packContext, readContextFiles } from './contextTar.js';
export { ImageBuildError } from './imageError.js';
export { hashInputs, type HashInput } from './recipeHash.js';

export interface BuildImagesOptions {
  /** The images to build, in any order; all of them when absent or empty. */
  only?: readonly ImageName[];
  /** Build even when the labels say the image is up to date. */
  force?: boolean;
  /** Build output, line by line. */
  onProgress?: (line: string) => void;
  /** The folder holding `base/` and `repoenv_sample/`; found next to this code when absent. */
  dockerDir?: string;
  /** A Debian mirror URL to use instead of the one in the machine's apt sources. */
  mirror?: string;
  /** A connection to reuse; otherwise one is opened. */
  docker?: Docker;
}

/**
 * The repository's `docker/` folder, looked for above this file: from the sources it is four
 * levels up, from the bundled `dist/cli.js` one.
 */
export function locateDockerDir(start: string = __dirname): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'docker', 'base', 'recipe.json'))) return join(dir, 'docker');
    if (dirname(dir) === dir) return undefined;
  }
}

/** Builds the images that need it, base before sample, and says what happened to each. */
export async function buildImages(options: BuildImagesOptions = {}): Promise<ImageBuildResult[]> {
  const wanted = imageNames.filter((name) => !options.only || options.only.length === 0 || options.only.includes(name));
  const failAll = (message: string) =>
    wanted.map((name): ImageBuildResult => ({ name, image: imageTags[name], status: 'failed', durationMs: 0, message }));
  const dockerDir = options.dockerDir ?? locateDockerDir() ?? locateDockerDir(process.cwd());
  if (dockerDir === undefined) return failAll('Cannot find the docker/ folder with the image recipes: run from the Graph Planner repository.');
  let docker: Docker;
  try {
    docker = options.docker ?? (await connectDocker()).docker;
  } catch (error) {
    return failAll(errorMessage(error));
  }
  const results: ImageBuildResult[] = [];
  for (const name of wanted) {
    const started = Date.now();
    try {
      const outcome = await buildOne(docker, name, dockerDir, options);
      results.push({ name, image: imageTags[name], durationMs: Date.now() - started, ...outcome });
    } catch (error) {
      if (!(error instanceof ImageBuildError || error instanceof SandboxError || isDaemonError(error))) throw error;
      results.push({ name, image: imageTags[name], status: 'failed', durationMs: Date.now() - started, message: errorMessage(error) });
    }
  }
  return results;
}

function buildOne(docker: Docker, name: ImageName, dockerDir: string, options: BuildImagesOptions): Promise<BuildOutcome> {
  const common = { force: options.force === true, ...(options.onProgress ? { onProgress: options.onProgress } : {}) };
  if (name === 'base') {
    return buildBaseImage(docker, { dir: join(dockerDir, 'base'), ...common, ...(options.mirror ? { mirror: options.mirror } : {}) });
  }
  return buildContextImage(docker, { dir: join(dockerDir, 'repoenv_sample'), tag: imageTags.sample, name, baseTag: imageTags.base, ...common });
}

/**
 * Errors from the daemon or the connection (docker-modem's HTTP errors, sockets that close) are
 * failures of the build, not bugs in this code, so they become results too.
 */
function isDaemonError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { statusCode?: unknown; code?: unknown };
  return typeof e.statusCode === 'number' || typeof e.code === 'string';
}
