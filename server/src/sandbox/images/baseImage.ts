/**
 * The base image, built offline: `debootstrap --variant=minbase` into a temporary folder from the
 * machine's own Debian mirror, `docker/base/configure.sh` run inside it, then the tree imported
 * with the Engine's import endpoint. No registry is involved, and the image is rebuilt only when
 * its recipe (the files, the mirror, the suite) changes.
 */
import type Docker from 'dockerode';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { imageLabels, imageTags } from '../../protocol/images.js';
import { readAptMirror, type AptMirror } from './aptMirror.js';
import { followProgress } from './dockerProgress.js';
import { ImageBuildError, dockerErrorMessage } from './imageError.js';
import { findExecutable, runCommand } from './runCommand.js';
import { hashInputs, type HashInput } from './recipeHash.js';
import { existingImage, removeReplaced, splitTag, type BuildOutcome } from './existingImage.js';

const recipeSchema = z.object({
  suite: z.string().regex(/^[a-z][a-z0-9-]*$/),
  variant: z.enum(['minbase', 'buildd']),
  packages: z.array(z.string().regex(/^[a-z0-9][a-z0-9+.-]*$/)).min(1),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).default({}),
  cmd: z.array(z.string()).min(1),
});
export type BaseRecipe = z.infer<typeof recipeSchema>;

/** The files of `docker/base/` that shape the image; the README does not, so it is not hashed. */
export const recipeFileNames = ['recipe.json', 'configure.sh'] as const;

export interface LoadedRecipe {
  recipe: BaseRecipe;
  files: HashInput[];
}

/** Reads and checks `recipe.json` and `configure.sh` from the recipe folder. */
export async function loadBaseRecipe(dir: string): Promise<LoadedRecipe> {
  const files: HashInput[] = [];
  for (const name of recipeFileNames) {
    try {
      files.push({ name, content: await readFile(join(dir, name)) });
    } catch (error) {
      throw new ImageBuildError(`Cannot read the base recipe ${join(dir, name)}: ${dockerErrorMessage(error)}`, 'recipe');
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(String(files[0]?.content ?? ''));
  } catch (error) {
    throw new ImageBuildError(`${join(dir, 'recipe.json')} is not JSON: ${dockerErrorMessage(error)}`, 'recipe');
  }
  const parsed = recipeSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ImageBuildError(`${join(dir, 'recipe.json')}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}`.trim(), 'recipe');
  }
  return { recipe: parsed.data, files };
}

/** The recipe label: the recipe files, the mirror and the suite. */
export function baseRecipeHash(loaded: LoadedRecipe, mirror: string): string {
  return hashInputs(loaded.files, { mirror, suite: loaded.recipe.suite, variant: loaded.recipe.variant });
}

/** The Dockerfile instructions `docker import --change` applies: labels, environment and command. */
export function importChanges(recipe: BaseRecipe, labels: Readonly<Record<string, string>>): string[] {
  const quoted = (value: string) => JSON.stringify(value);
  const labelPairs = Object.entries(labels).map(([key, value]) => `${key}=${quoted(value)}`);
  return [
    `LABEL ${labelPairs.join(' ')}`,
    ...Object.entries(recipe.env).map(([key, value]) => `ENV ${key}=${quoted(value)}`),
    `CMD ${JSON.stringify(recipe.cmd)}`,
  ];
}

export interface BaseBuildOptions {
  /** The recipe folder, `docker/base`. */
  dir: string;
  force?: boolean;
  /** A mirror URL to use instead of the one in the apt sources. */
  mirror?: string;
  onProgress?: (line: string) => void;
}

/** Builds `graph-planner/base:latest` unless an image with the same recipe label exists. */
export async function buildBaseImage(docker: Docker, options: BaseBuildOptions): Promise<BuildOutcome> {
  const loaded = await loadBaseRecipe(options.dir);
  const mirror: AptMirror = options.mirror === undefined ? await readAptMirror(loaded.recipe.suite) : { uri: options.mirror, from: 'option' };
  const recipeHash = baseRecipeHash(loaded, mirror.uri);
  const tag = imageTags.base;
  const existing = await existingImage(docker, tag);
  if (!options.force && existing !== undefined && existing.labels[imageLabels.recipe] === recipeHash) {
    return { status: 'up-to-date', id: existing.id, message: `recipe ${recipeHash.slice(7, 19)} unchanged` };
  }
  const tools = preflight();
  const say = options.onProgress ?? (() => undefined);
  say(`Bootstrapping Debian ${loaded.recipe.suite} from ${mirror.uri} (read from ${mirror.from}).`);
  const work = await mkdtemp(join(tmpdir(), 'gp-base-'));
  try {
    const rootfs = join(work, 'rootfs');
    await bootstrap(tools, loaded.recipe, mirror, rootfs, say);
    await configure(tools, options.dir, rootfs, say);
    const tarPath = join(work, 'rootfs.tar');
    await archive(tools, rootfs, tarPath, say);
    const labels = {
      [imageLabels.image]: 'base',
      [imageLabels.recipe]: recipeHash,
      [imageLabels.mirror]: mirror.uri,
      [imageLabels.suite]: loaded.recipe.suite,
    };
    const { repo, tag: version } = splitTag(tag);
    say(`Importing the root file system as ${tag}.`);
    const stream = await docker.importImage(createReadStream(tarPath), {
      repo,
      tag: version,
      changes: importChanges(loaded.recipe, labels),
      message: `graph-planner base image, recipe ${recipeHash}`,
    });
    await followProgress(docker, stream, 'import', say);
    const built = await existingImage(docker, tag);
    if (built === undefined || built.labels[imageLabels.recipe] !== recipeHash) {
      throw new ImageBuildError(`The import finished but ${tag} does not carry the new recipe label.`, 'import');
    }
    if (existing !== undefined) await removeReplaced(docker, existing.id, built.id);
    return { status: 'built', id: built.id, message: `recipe ${recipeHash.slice(7, 19)} from ${mirror.uri}` };
  } finally {
    await cleanUp(tools, work);
  }
}

interface Tools {
  debootstrap: string;
  chroot: string;
  tar: string;
  umount: string | undefined;
}

/** Checks what a build needs before spending minutes on it. */
function preflight(): Tools {
  const debootstrap = findExecutable('debootstrap');
  if (debootstrap === undefined) {
    throw new ImageBuildError(
      'debootstrap is not installed: apt-get install debootstrap (the base image is built from Debian packages, not pulled).',
      'missing-tool',
    );
  }
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new ImageBuildError(
      'Building the base image needs root (debootstrap creates device nodes and runs chroot): run it as root, e.g. sudo npx gp images build base.',
      'needs-root',
    );
  }
  const chroot = findExecutable('chroot');
  const tar = findExecutable('tar');
  if (chroot === undefined || tar === undefined) {
    throw new ImageBuildError(`${chroot === undefined ? 'chroot' : 'tar'} is not installed: apt-get install coreutils tar.`, 'missing-tool');
  }
  return { debootstrap, chroot, tar, umount: findExecutable('umount') };
}

async function bootstrap(tools: Tools, recipe: BaseRecipe, mirror: AptMirror, rootfs: string, say: (line: string) => void): Promise<void> {
  const args = [
    `--variant=${recipe.variant}`,
    `--include=${recipe.packages.join(',')}`,
    ...(mirror.keyring === undefined ? [] : [`--keyring=${mirror.keyring}`]),
    recipe.suite,
    rootfs,
    mirror.uri,
  ];
  const result = await runCommand(tools.debootstrap, args, { onLine: say, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (result.code === 0) return;
  // debootstrap's own message is often just "see the log"; the log's end says what went wrong.
  const log = await readFile(join(rootfs, 'debootstrap', 'debootstrap.log'), 'utf8').catch(() => '');
  const logTail = log.trimEnd().split('\n').slice(-3).join(' | ');
  const reason = result.spawnError ?? result.tail.slice(-3).join(' | ');
  throw new ImageBuildError(`debootstrap failed (exit ${result.code ?? 'signal'}): ${reason}${logTail ? ` | log: ${logTail}` : ''}`, 'bootstrap');
}

/** Runs `configure.sh` inside the tree: git settings, cache cleanup and the check that the sandbox's tools are there. */
async function configure(tools: Tools, recipeDir: string, rootfs: string, say: (line: string) => void): Promise<void> {
  const inside = '/tmp/gp-configure.sh';
  await mkdir(join(rootfs, 'tmp'), { recursive: true });
  await copyFile(join(recipeDir, 'configure.sh'), join(rootfs, inside));
  const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/root', LANG: 'C.UTF-8' };
  const result = await runCommand(tools.chroot, [rootfs, '/bin/sh', inside], { onLine: say, env });
  await unlink(join(rootfs, inside));
  if (result.code !== 0) {
    throw new ImageBuildError(`configure.sh failed (exit ${result.code ?? 'signal'}): ${result.spawnError ?? result.tail.slice(-3).join(' | ')}`, 'bootstrap');
  }
}

/**
 * Packs the tree into a file first rather than streaming it into the import: a tar that stops
 * half way would otherwise become a half image. The contents of /dev, /proc and /sys are left
 * out; Docker provides them at run time.
 */
async function archive(tools: Tools, rootfs: string, tarPath: string, say: (line: string) => void): Promise<void> {
  say('Packing the root file system.');
  const args = ['--create', '--file', tarPath, '--numeric-owner', '--directory', rootfs, '--exclude=./dev/*', '--exclude=./proc/*', '--exclude=./sys/*', '.'];
  const result = await runCommand(tools.tar, args, { onLine: say });
  if (result.code !== 0) {
    throw new ImageBuildError(`tar failed (exit ${result.code ?? 'signal'}): ${result.spawnError ?? result.tail.slice(-3).join(' | ')}`, 'bootstrap');
  }
}

/**
 * Removes the work folder. A debootstrap that was interrupted can leave /proc or /sys mounted
 * inside the tree, and deleting through a mount would reach the host's files, so those are
 * unmounted first and the folder is kept when one will not go.
 */
async function cleanUp(tools: Tools, work: string): Promise<void> {
  const mounts = (await readFile('/proc/self/mounts', 'utf8').catch(() => ''))
    .split('\n')
    .map((line) => (line.split(' ')[1] ?? '').replace(/\\040/g, ' '))
    .filter((point) => point.startsWith(`${work}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) {
    if (tools.umount === undefined || (await runCommand(tools.umount, ['-l', point])).code !== 0) return;
  }
  await rm(work, { recursive: true, force: true });
}
