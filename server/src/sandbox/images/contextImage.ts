/**
 * Images built from a Dockerfile and a folder (the sample repository environments) through the
 * Engine's build endpoint. The image carries a hash of its context and the id of the base it was
 * built on, and is rebuilt only when either changes.
 */
import type Docker from 'dockerode';
import { Readable } from 'node:stream';
import { imageLabels } from '../../protocol/images.js';
import { packContext, readContextFiles } from './contextTar.js';
import { followProgress } from './dockerProgress.js';
import { existingImage, removeReplaced, type BuildOutcome } from './existingImage.js';
import { ImageBuildError } from './imageError.js';
import { hashInputs } from './recipeHash.js';

export interface ContextBuildOptions {
  /** The context folder, holding a `Dockerfile`. */
  dir: string;
  /**
   * The top-level entries of `dir` to send to the builder (the `Dockerfile` among them); all of
   * them when absent. Only what is sent is hashed.
   */
  include?: readonly string[];
  /** The tag to build, e.g. `graph-planner/repoenv-sample:latest`. */
  tag: string;
  /** The value of the `graph-planner.image` label. */
  name: string;
  /** The image the Dockerfile starts `FROM`; it must exist, and its id is part of what is checked. */
  baseTag?: string;
  force?: boolean;
  onProgress?: (line: string) => void;
}

/** Builds `tag` from `dir` unless an image with the same context hash and base exists. */
export async function buildContextImage(docker: Docker, options: ContextBuildOptions): Promise<BuildOutcome> {
  const files = await readContextFiles(options.dir, options.include).catch((error: unknown) => {
    throw new ImageBuildError(`Cannot read the build context ${options.dir}: ${String(error)}`, 'recipe');
  });
  if (!files.some((f) => f.name === 'Dockerfile')) throw new ImageBuildError(`${options.dir} has no Dockerfile.`, 'recipe');
  const contextHash = hashInputs(files);
  const labels: Record<string, string> = { [imageLabels.image]: options.name, [imageLabels.context]: contextHash };
  if (options.baseTag !== undefined) {
    const base = await existingImage(docker, options.baseTag);
    if (base === undefined) {
      throw new ImageBuildError(`${options.baseTag} is missing: build it first (gp images build base).`, 'base-missing');
    }
    labels[imageLabels.baseImage] = base.id;
  }
  const existing = await existingImage(docker, options.tag);
  const same = existing !== undefined && Object.entries(labels).every(([key, value]) => existing.labels[key] === value);
  if (!options.force && existing !== undefined && same) {
    return { status: 'up-to-date', id: existing.id, message: `context ${contextHash.slice(7, 19)} unchanged` };
  }
  const stream = await docker.buildImage(Readable.from([await packContext(files)]), {
    t: options.tag,
    labels,
    rm: true,
    forcerm: true,
    // A forced build should really run every step again, not replay them from the layer cache.
    nocache: options.force === true,
  });
  const outcome = await followProgress(docker, stream, 'build', options.onProgress);
  const built = await existingImage(docker, options.tag);
  if (built === undefined || built.labels[imageLabels.context] !== contextHash) {
    throw new ImageBuildError(`The build of ${options.tag} finished but the image does not carry the new context label.`, 'build');
  }
  if (outcome.id !== undefined && outcome.id !== built.id) {
    throw new ImageBuildError(`The build produced ${outcome.id}, but ${options.tag} names ${built.id}: another build replaced it meanwhile.`, 'build');
  }
  if (existing !== undefined) await removeReplaced(docker, existing.id, built.id);
  return { status: 'built', id: built.id, message: `context ${contextHash.slice(7, 19)}` };
}
