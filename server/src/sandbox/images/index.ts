/**
 * The offline images of the sandbox runtime: `graph-planner/base` (Debian from the machine's own
 * mirror), and on top of it `graph-planner/repoenv-sample` (the sample task's repository) and one
 * `graph-planner/sample-<folder>` for each folder of `docker/samples/`. Each is rebuilt only when
 * what it is built from changes; every outcome is a result, never an exception.
 */
import type Docker from 'dockerode';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { allSamplesSelector, imageNames, imageTag, imageTags, type ImageBuildResult, type ImageName, type ImageSelector } from '../../protocol/images.js';
import { connectDocker } from '../dockerClient.js';
import { SandboxError } from '../sandbox.js';
import { buildBaseImage } from './baseImage.js';
import { buildContextImage } from './contextImage.js';
import type { BuildOutcome } from './existingImage.js';
import { ImageBuildError, dockerErrorMessage } from './imageError.js';
import { discoverSamples, sampleContextEntries, samplesFolderName, type SampleImage } from './sampleImages.js';

export { parseDeb822Sources, parseOneLineSources, pickMirror, readAptMirror, type AptMirror, type AptSource } from './aptMirror.js';
export { baseRecipeHash, importChanges, loadBaseRecipe, recipeFileNames, type BaseRecipe } from './baseImage.js';
export { buildContextImage, type ContextBuildOptions } from './contextImage.js';
export { packContext, readContextFiles } from './contextTar.js';
export { ImageBuildError } from './imageError.js';
export { buildPythonEnvImage, buildTaskImage, imageEnvDir, pythonEnvImageTag, type TaskImageInput } from './pythonEnvImage.js';
export { discoverSamples, sampleContextEntries, samplesFolderName, type SampleDiscovery, type SampleImage } from './sampleImages.js';
export { hashInputs, type HashInput } from './recipeHash.js';
export { buildRecipeImage, sandboxLayer, type RecipeImageInput } from './recipeImage.js';

export interface BuildImagesOptions {
  /** The images to build, in any order (`samples` means every sample folder); all of them when absent or empty. */
  only?: readonly ImageSelector[];
  /** Build even when the labels say the image is up to date. */
  force?: boolean;
  /** Build output, line by line. */
  onProgress?: (line: string) => void;
  /** The folder holding `base/`, `repoenv_sample/` and `samples/`; found next to this code when absent. */
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

/** One image to build, or the reason it cannot be. */
interface PlannedBuild {
  name: ImageName;
  /** The sample's folder, for a sample image. */
  sample?: SampleImage;
  problem?: string;
}

/**
 * The images `only` asks for, in build order: the base, the sample, then the sample folders by
 * name. A `sample-<folder>` with no such folder is planned with its problem, so it fails as a result.
 */
export function planBuilds(only: readonly ImageSelector[] | undefined, samples: readonly SampleImage[]): PlannedBuild[] {
  const all = only === undefined || only.length === 0;
  const wants = (selector: ImageSelector) => all || only.includes(selector);
  const plan: PlannedBuild[] = imageNames.filter(wants).map((name) => ({ name }));
  plan.push(...samples.filter((s) => wants(allSamplesSelector) || wants(s.name)).map((sample) => ({ name: sample.name, sample })));
  const known = new Set(samples.map((s) => s.name));
  for (const selector of only ?? []) {
    if (selector === allSamplesSelector || selector === 'base' || selector === 'sample' || known.has(selector)) continue;
    const folder = `${samplesFolderName}/${selector.slice('sample-'.length)}`;
    const names = samples.map((s) => s.name).join(', ') || 'none';
    plan.push({ name: selector, problem: `There is no sample folder docker/${folder}/ with a Dockerfile and repo/ (samples: ${names}).` });
  }
  return plan;
}

/** Builds the images that need it, base first, and says what happened to each. */
export async function buildImages(options: BuildImagesOptions = {}): Promise<ImageBuildResult[]> {
  const dockerDir = options.dockerDir ?? locateDockerDir() ?? locateDockerDir(process.cwd());
  const discovery = dockerDir === undefined ? { samples: [], skipped: [] } : await discoverSamples(dockerDir);
  for (const line of discovery.skipped) options.onProgress?.(`Skipping ${line}`);
  const plan = planBuilds(options.only, discovery.samples);
  const failed = (name: ImageName, message: string, durationMs = 0): ImageBuildResult => ({
    name,
    image: imageTag(name),
    status: 'failed',
    durationMs,
    message,
  });
  if (dockerDir === undefined) {
    return plan.map((p) => failed(p.name, 'Cannot find the docker/ folder with the image recipes: run from the Graph Planner repository.'));
  }
  let docker: Docker;
  try {
    docker = options.docker ?? (await connectDocker()).docker;
  } catch (error) {
    return plan.map((p) => failed(p.name, dockerErrorMessage(error)));
  }
  const results: ImageBuildResult[] = [];
  for (const planned of plan) {
    if (planned.problem !== undefined) {
      results.push(failed(planned.name, planned.problem));
      continue;
    }
    const started = Date.now();
    try {
      const outcome = await buildOne(docker, planned, dockerDir, options);
      results.push({ name: planned.name, image: imageTag(planned.name), durationMs: Date.now() - started, ...outcome });
    } catch (error) {
      if (!(error instanceof ImageBuildError || error instanceof SandboxError || isDaemonError(error))) throw error;
      results.push(failed(planned.name, dockerErrorMessage(error), Date.now() - started));
    }
  }
  return results;
}

function buildOne(docker: Docker, planned: PlannedBuild, dockerDir: string, options: BuildImagesOptions): Promise<BuildOutcome> {
  const common = { force: options.force === true, ...(options.onProgress ? { onProgress: options.onProgress } : {}) };
  const { name, sample } = planned;
  if (name === 'base') {
    return buildBaseImage(docker, { dir: join(dockerDir, 'base'), ...common, ...(options.mirror ? { mirror: options.mirror } : {}) });
  }
  if (name === 'sample') {
    return buildContextImage(docker, { dir: join(dockerDir, 'repoenv_sample'), tag: imageTags.sample, name, baseTag: imageTags.base, ...common });
  }
  if (sample === undefined) throw new ImageBuildError(`${name} has no sample folder to build from.`, 'recipe');
  return buildContextImage(docker, { dir: sample.dir, include: sampleContextEntries, tag: sample.tag, name, baseTag: imageTags.base, ...common });
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
