/**
 * A task's image built from its own Dockerfile (`sandbox.image_recipe`, a converted Harbor task's
 * `environment/Dockerfile`, docs/field-formats.md "Running a Harbor task"). The Dockerfile's folder is
 * the build context. Two things are added at the end, because the sandbox needs them and Harbor's
 * images lack them: git, which must already be in the image (it is checked, never installed, since
 * the build may have no network), and a first commit of the working directory, which the sandbox
 * diffs the agent's work against. With `base_image`, every `FROM` that names an image starts from
 * that image instead (for a machine that cannot pull the original base). Goes through
 * `buildContextImage`, so the image is rebuilt only when its context or base changes.
 */
import type Docker from 'dockerode';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { dockerfileFacts, replaceBaseImages } from '../../util/dockerfile.js';
import { shellQuote } from '../commandScript.js';
import { buildContextImage } from './contextImage.js';
import { existingImage, type BuildOutcome } from './existingImage.js';
import { ImageBuildError } from './imageError.js';

export interface RecipeImageInput {
  /** The tag to build: the task's `docker_image`. */
  readonly tag: string;
  /** The task id, for the image's name label and messages. */
  readonly task: string;
  /** The Dockerfile, absolute. */
  readonly dockerfile: string;
  /** The sandbox's working directory (`workdir`), committed as the task's starting state. */
  readonly workdir: string;
  /** Replaces the images the Dockerfile starts `FROM`. */
  readonly baseImage?: string;
  readonly force?: boolean;
  readonly onProgress?: (line: string) => void;
}

/**
 * The lines added after the task's own Dockerfile. They run as root, as Harbor's verifier does,
 * and mark every folder safe for git, since files a Dockerfile copies may belong to another user.
 */
export function sandboxLayer(workdir: string): string {
  const dir = shellQuote(workdir);
  const noGit = shellQuote(
    "graph-planner: this image has no git, which the sandbox needs to diff the agent's work; install git in the Dockerfile, or prepare the task with --base-image graph-planner/base:latest",
  );
  return [
    '',
    "# Added by graph-planner (gp images build --tasks): git and a first commit of the working directory, which the sandbox diffs the agent's work against.",
    'USER root',
    `RUN command -v git >/dev/null 2>&1 || { echo ${noGit} >&2; exit 1; } \\`,
    "  && git config --system --add safe.directory '*' \\",
    `  && mkdir -p ${dir} && cd ${dir} \\`,
    '  && { git rev-parse --is-inside-work-tree >/dev/null 2>&1 || git init -q; } \\',
    '  && git add -A \\',
    '  && git -c user.name=graph-planner -c user.email=graph-planner@localhost commit -q --no-verify --allow-empty -m "graph-planner: the task\'s starting state"',
    `WORKDIR ${workdir}`,
    '',
  ].join('\n');
}

/** An image reference as Docker reads one, roughly: it is written into a `FROM` line. */
const imageReference = /^[a-z0-9][a-z0-9._/:@-]*$/i;

/** Builds the task's image from its recipe; the original Dockerfile is left as it is. */
export async function buildRecipeImage(docker: Docker, input: RecipeImageInput): Promise<BuildOutcome> {
  // Both go into lines of the Dockerfile, so a line break in either would add instructions of its own.
  // eslint-disable-next-line no-control-regex -- Matching control characters is the point here.
  if (!input.workdir.startsWith('/') || /[\u0000-\u001f\u007f]/.test(input.workdir)) {
    throw new ImageBuildError(
      `Task ${input.task}: its workdir ${JSON.stringify(input.workdir)} is not an absolute path without control characters, so it cannot go into a Dockerfile.`,
      'recipe',
    );
  }
  if (input.baseImage !== undefined && !imageReference.test(input.baseImage)) {
    throw new ImageBuildError(
      `Task ${input.task}: its image_recipe.base_image ${JSON.stringify(input.baseImage)} is not an image reference such as graph-planner/base:latest.`,
      'recipe',
    );
  }
  let original: string;
  try {
    original = await readFile(input.dockerfile, 'utf8');
  } catch (error) {
    throw new ImageBuildError(
      `Cannot read the Dockerfile ${input.dockerfile} of task ${input.task}: ${(error as Error).message}. Prepare the task again (gp dataset prepare harbor).`,
      'recipe',
    );
  }
  const bases = dockerfileFacts(original).bases;
  if (bases.length === 0) throw new ImageBuildError(`${input.dockerfile}: no FROM names an image, so there is nothing to build on.`, 'recipe');
  const recipe = `${input.baseImage === undefined ? original : replaceBaseImages(original, input.baseImage)}${original.endsWith('\n') ? '' : '\n'}${sandboxLayer(input.workdir)}`;
  const missing =
    input.baseImage === undefined
      ? await missingBases(
          docker,
          bases.map((b) => b.image),
        )
      : [];
  const context = await mkdtemp(join(tmpdir(), 'gp-recipe-image-'));
  try {
    const folder = join(context, basename(dirname(input.dockerfile)) || 'context');
    await cp(dirname(input.dockerfile), folder, { recursive: true, verbatimSymlinks: true });
    await writeFile(join(folder, 'Dockerfile'), recipe);
    return await buildContextImage(docker, {
      dir: folder,
      tag: input.tag,
      name: `task-${input.task}`,
      ...(input.baseImage === undefined ? {} : { baseTag: input.baseImage }),
      ...(input.force === undefined ? {} : { force: input.force }),
      ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }),
    });
  } catch (error) {
    // A base this engine lacks had to be pulled; say what to do where nothing can be.
    if (error instanceof ImageBuildError && missing.length > 0) {
      throw new ImageBuildError(
        `${error.message} (the Dockerfile starts FROM ${missing.join(', ')}, which this Docker engine does not have: pull it, or prepare the task with --base-image IMAGE to build on a local image such as graph-planner/base:latest)`,
        error.code,
      );
    }
    throw error;
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

async function missingBases(docker: Docker, images: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const image of new Set(images)) if (!image.includes('$') && (await existingImage(docker, image)) === undefined) missing.push(image);
  return missing;
}
