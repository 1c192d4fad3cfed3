/**
 * `gp dataset prepare harbor DIR`: a folder of Harbor task folders (or one task folder) → the same
 * outputs as the other sources (`<split>.jsonl`, `instances/<id>.json`, `docker_images_<split>.txt`,
 * `prepare_report.json`) plus `harbor/<id>/`, which holds each task folder's checked copy (`task/`:
 * the Dockerfile's build context and the verifier's tests) and the local backend's starting
 * working directory (`workdir/`). A folder that cannot become a task is skipped with its reason and
 * the file, line and column where that is known. Everything is staged and moved into place at the
 * end (`staging.ts`), `harbor/` as a whole, so a failed run leaves the previous outputs.
 */
import { existsSync, renameSync, statSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { prepareReportSchema, type ConversionNote, type PrepareReport, type SkipReason } from '../protocol/datasetPrepare.js';
import { PrepareTally } from './prepareTally.js';
import { schemaErrors } from '../tasks/index.js';
import { dockerfileFacts, type DockerfileFacts } from '../util/dockerfile.js';
import { checkTaskFolder, copyTaskFiles, defaultCopyLimits, type CopyLimits } from './harborCopy.js';
import { convertHarborTask, harborTaskId, harborWorkdir, invalidValue, unsupportedFeature } from './harborConvert.js';
import { readHarborTask, type HarborTask } from './harborTask.js';
import { mirrorWorkdir } from './harborWorkdir.js';
import { writeManifest } from './manifest.js';
import { PrepareError } from './prepare.js';
import { commitStaging, createStaging, LineWriter } from './staging.js';

export interface HarborPrepareOptions {
  /** A folder of task folders, or one task folder (it holds a task.toml). */
  readonly dir: string;
  readonly outDir: string;
  /** The tasks' `data_source`. */
  readonly dataset: string;
  /** Names the tasks file (`<split>.jsonl`) and each task's `split`. */
  readonly split: string;
  readonly limit?: number;
  readonly maxSteps?: number;
  readonly imageNamespace?: string;
  /** Replaces the images the tasks' Dockerfiles start FROM (`--base-image`). */
  readonly baseImage?: string;
  readonly copyLimits?: CopyLimits;
  readonly signal?: AbortSignal;
}

/** The task folders of `dir`: itself when it holds a task.toml, else its folders (hidden ones left out), by name. */
export async function harborTaskFolders(dir: string): Promise<string[]> {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new PrepareError(
      `${dir} is not a folder; name a folder of Harbor task folders (each with task.toml, instruction.md, environment/ and tests/).`,
      'dataset/no-folder',
    );
  if (existsSync(join(dir, 'task.toml'))) return [dir];
  const entries = await readdir(dir, { withFileTypes: true });
  const folders = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => join(dir, e.name));
  if (folders.length === 0)
    throw new PrepareError(`${dir} holds no task folders; a Harbor dataset is a folder of task folders, each with a task.toml.`, 'dataset/no-tasks');
  return folders.sort();
}

type Read = { ok: true; task: HarborTask; files: readonly string[] } | { ok: false; reason: SkipReason; message: string };

/** Checks the folder (no link leading out, not too large), then reads it as a Harbor task. */
async function readFolder(folder: string, limits: CopyLimits): Promise<Read> {
  const checked = await checkTaskFolder(folder, limits);
  if (!checked.ok) return { ok: false, reason: 'unsafe-harbor-task', message: checked.problem };
  if (!checked.files.includes('task.toml'))
    return {
      ok: false,
      reason: 'invalid-harbor-task',
      message: `${join(folder, 'task.toml')}: missing; a Harbor task folder has a task.toml beside its instruction.md`,
    };
  const read = await readHarborTask(folder);
  if (!read.ok) return { ok: false, reason: 'invalid-harbor-task', message: read.problems.join('; ') };
  const invalid = invalidValue(read.task);
  if (invalid !== undefined) return { ok: false, reason: 'invalid-harbor-task', message: `${join(folder, 'task.toml')}: ${invalid}` };
  const unsupported = unsupportedFeature(read.task);
  if (unsupported !== undefined) return { ok: false, reason: 'unsupported-harbor-task', message: `${join(folder, 'task.toml')}: ${unsupported}` };
  return { ok: true, task: read.task, files: checked.files };
}

/** Runs the whole preparation and returns its report (also written as `prepare_report.json`). */
export async function prepareHarborDataset(options: HarborPrepareOptions): Promise<PrepareReport> {
  const started = Date.now();
  const folders = await harborTaskFolders(options.dir);
  const staging = await createStaging(options.outDir);
  try {
    const tally = new PrepareTally();
    const tasksFile = `${options.split}.jsonl`;
    const writer = new LineWriter(join(staging, tasksFile));
    const ids = new Map<string, string>();
    const images: string[] = [];
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    try {
      for (const folder of folders) {
        if (options.signal?.aborted) throw new PrepareError('Preparation was interrupted; nothing was written.', 'dataset/aborted');
        if (tally.converted >= limit) break;
        tally.rowsRead++;
        const read = await readFolder(folder, options.copyLimits ?? defaultCopyLimits);
        if (!read.ok) {
          tally.skip(folder, read.reason, read.message);
          continue;
        }
        const named = harborTaskId(read.task, basename(folder));
        if ('problem' in named) {
          tally.skip(folder, 'invalid-harbor-task', `${join(folder, 'task.toml')}: ${named.problem}; set [task] name`);
          continue;
        }
        const first = ids.get(named.id);
        if (first !== undefined) {
          tally.skip(folder, 'duplicate-id', `Task id ${named.id} was already taken by ${first}; this folder is left out.`);
          continue;
        }
        const converted = await stageTask(staging, folder, read.task, read.files, named.id, options);
        const invalid = schemaErrors(converted.task)?.[0];
        if (invalid !== undefined) {
          await rm(join(staging, 'harbor', named.id), { recursive: true, force: true });
          tally.skip(
            folder,
            'invalid-task',
            `The converted task is not valid at ${invalid.instancePath || 'the top level'}: ${invalid.message ?? 'unknown problem'}.`,
          );
          continue;
        }
        ids.set(named.id, folder);
        tally.converted++;
        tally.note(converted.notes);
        images.push(converted.image);
        await writer.write(JSON.stringify(converted.task));
        await writeFile(join(staging, 'instances', `${named.id}.json`), `${JSON.stringify(converted.instance, null, 2)}\n`);
      }
    } finally {
      await writer.close();
    }
    const manifest = `docker_images_${options.split}.txt`;
    await writeManifest(join(staging, manifest), images, { buildOnly: images });
    const report: PrepareReport = prepareReportSchema.parse({
      schema: 'graph-planner/prepare-report@1',
      kind: 'harbor',
      dataset: options.dataset,
      requested_split: options.split,
      effective_split: options.split,
      sources: [{ file: options.dir, rows: tally.rowsRead }],
      ...tally.reportFields(),
      outputs: [
        {
          split: options.split,
          tasks: join(options.outDir, tasksFile),
          manifest: join(options.outDir, manifest),
          rows: tally.converted,
          images: images.length,
          build_only: images.length,
        },
      ],
      instances: tally.converted,
      duration_ms: Date.now() - started,
    });
    await writeFile(join(staging, 'prepare_report.json'), `${JSON.stringify(report, null, 2)}\n`);
    await commitHarbor(staging, options.outDir);
    const files = [tasksFile, manifest, ...[...ids.keys()].map((id) => `instances/${id}.json`), 'prepare_report.json'];
    await commitStaging(staging, options.outDir, files, { wholeDir: 'instances' });
    return report;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

interface Staged {
  readonly task: ReturnType<typeof convertHarborTask>['task'];
  readonly instance: ReturnType<typeof convertHarborTask>['instance'];
  readonly notes: readonly ConversionNote[];
  readonly image: string;
}

/** Copies the task folder into staging, makes its local working directory and converts it. */
async function stageTask(
  staging: string,
  folder: string,
  task: HarborTask,
  files: readonly string[],
  id: string,
  options: HarborPrepareOptions,
): Promise<Staged> {
  const base = join(staging, 'harbor', id);
  await copyTaskFiles(folder, join(base, 'task'), files);
  const workdirFolder = join(base, 'workdir');
  await mkdir(workdirFolder, { recursive: true });
  const relative = (...parts: string[]) => ['harbor', id, ...parts].join('/');
  let facts: DockerfileFacts | undefined;
  let dockerfile = relative('task', 'environment', 'Dockerfile');
  if (task.dockerfile !== undefined) {
    facts = dockerfileFacts(await readFile(join(base, 'task', 'environment', 'Dockerfile'), 'utf8'));
  } else {
    // A prebuilt image only: its recipe is that image, with the sandbox's layer added when it is built.
    dockerfile = relative('image', 'Dockerfile');
    await mkdir(join(base, 'image'), { recursive: true });
    await writeFile(
      join(base, 'image', 'Dockerfile'),
      `# Written by gp dataset prepare harbor: the task's prebuilt [environment] docker_image.\nFROM ${task.config.environment?.docker_image ?? ''}\n`,
    );
  }
  const { workdir } = harborWorkdir(task, facts);
  const mirrored =
    facts === undefined ? { missing: ["the prebuilt image's files"] } : await mirrorWorkdir(facts, join(base, 'task', 'environment'), workdir, workdirFolder);
  const final = convertHarborTask({
    task,
    id,
    facts,
    places: { dockerfile, tests: relative('task', 'tests'), workdir: relative('workdir') },
    dataset: options.dataset,
    split: options.split,
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    ...(options.imageNamespace === undefined ? {} : { imageNamespace: options.imageNamespace }),
    ...(options.baseImage === undefined ? {} : { baseImage: options.baseImage }),
    localGaps: mirrored.missing,
  });
  return { task: final.task, instance: final.instance, notes: final.notes, image: final.instance.docker_image };
}

/**
 * Puts the staged `harbor/` in place of the previous one: the old folder is moved into staging
 * first (removed with it), so task folders of an earlier run that this run did not convert do not
 * linger beside the new ones.
 */
async function commitHarbor(staging: string, outDir: string): Promise<void> {
  const staged = join(staging, 'harbor');
  const target = resolve(outDir, 'harbor');
  if (existsSync(target)) renameSync(target, join(staging, 'replaced-harbor'));
  if (existsSync(staged)) renameSync(staged, target);
  else await mkdir(target, { recursive: true });
}
