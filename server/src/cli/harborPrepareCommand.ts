/**
 * `gp dataset prepare harbor DIR`: converts a folder of Harbor task folders into task entries and
 * prints what was written and what was skipped (docs/field-formats.md, "Running a Harbor task").
 */
import { basename, resolve } from 'node:path';
import { PrepareError, prepareHarborDataset } from '../datasets/index.js';
import type { PrepareReport } from '../protocol/datasetPrepare.js';
import { visibleLine } from '../protocol/terminalText.js';
import { parseCommandArgs, usageError } from './args.js';
import { intFlag, plural, type Io } from './output.js';

export const harborPrepareUsage = `gp dataset prepare harbor DIR [--out DIR] [--dataset NAME] [--split S] [--limit N]
               [--max-steps N] [--image-namespace NS] [--base-image IMAGE] [--json]
      Convert a folder of Harbor task folders (or one task folder) into task entries:
      the instruction as the issue, environment/Dockerfile (or [environment] docker_image)
      as the image recipe, tests/test.sh as the verifier whose reward grades the episode,
      and task.toml's timeouts, cpus, memory and network mode as the task's limits. Writes
      <split>.jsonl (default test), instances/<id>.json, docker_images_<split>.txt,
      prepare_report.json and harbor/<id>/ (the checked copy of each task folder and the
      local backend's starting working directory) to DIR (default datasets/harbor).
      --base-image replaces the images the Dockerfiles start FROM, for machines that cannot
      pull them (e.g. graph-planner/base:latest, built offline by gp images build base).
      Build the images with gp images build --tasks DIR/<split>.jsonl.`;

const command = { name: 'dataset prepare harbor', usage: harborPrepareUsage };

/** An image reference Docker would accept, roughly: no spaces or control characters, no leading dash. */
const imageReference = /^[a-z0-9][a-z0-9._/:@-]*$/i;

function summary(report: PrepareReport): string[] {
  const lines = [`Read ${plural(report.rows_read, 'task folder')}: ${report.converted} converted, ${report.skipped} skipped.`];
  for (const example of report.skipped_examples) lines.push(`  skipped ${example.reason}: ${visibleLine(example.message)}`);
  const shown = report.skipped_examples.length;
  if (report.skipped > shown) lines.push(`  … and ${report.skipped - shown} more (prepare_report.json counts them by reason)`);
  for (const [note, n] of Object.entries(report.notes)) lines.push(`  note ${n} × ${note}`);
  for (const o of report.outputs)
    lines.push(`Wrote ${o.tasks} (${plural(o.rows, 'task')}) and ${o.manifest} (${plural(o.images, 'image')} to build: gp images build --tasks ${o.tasks}).`);
  return lines;
}

export async function harborPrepare(argv: readonly string[], io: Io, cwd: string, signal?: AbortSignal): Promise<number> {
  const parsed = parseCommandArgs(
    command,
    argv,
    {
      out: { type: 'string' },
      dataset: { type: 'string' },
      split: { type: 'string' },
      limit: { type: 'string' },
      'max-steps': { type: 'string' },
      'image-namespace': { type: 'string' },
      'base-image': { type: 'string' },
      json: { type: 'boolean' },
    },
    io,
  );
  if (!parsed.ok) return parsed.exit;
  const { values, positionals, errors } = parsed;
  const [dir, ...extra] = positionals;
  if (dir === undefined) errors.push('name the folder of Harbor task folders.');
  if (extra.length > 0) errors.push(`one folder, not ${positionals.length}: ${extra.join(' ')}.`);
  const split = values.split ?? 'test';
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(split)) errors.push(`--split names a file; use letters, digits, '_', '.' or '-', not ${JSON.stringify(split)}.`);
  const namespace = values['image-namespace'];
  if (namespace !== undefined && !/^[a-z0-9]+(?:[._/-][a-z0-9]+)*$/.test(namespace))
    errors.push(`--image-namespace must be lower case letters, digits and . _ / -, not ${JSON.stringify(namespace)}.`);
  const baseImage = values['base-image'];
  if (baseImage !== undefined && !imageReference.test(baseImage))
    errors.push(`--base-image needs an image reference such as graph-planner/base:latest, not ${JSON.stringify(baseImage)}.`);
  const limit = intFlag('--limit', values.limit, errors);
  const maxSteps = intFlag('--max-steps', values['max-steps'], errors);
  if (errors.length > 0 || dir === undefined) return usageError(command, io, errors);
  const folder = resolve(cwd, dir);
  try {
    const report = await prepareHarborDataset({
      dir: folder,
      outDir: resolve(cwd, values.out ?? 'datasets/harbor'),
      dataset: values.dataset ?? `harbor/${basename(folder)}`,
      split,
      ...(limit === undefined ? {} : { limit }),
      ...(maxSteps === undefined ? {} : { maxSteps }),
      ...(namespace === undefined ? {} : { imageNamespace: namespace }),
      ...(baseImage === undefined ? {} : { baseImage }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (values.json === true) io.out(JSON.stringify(report, null, 2));
    else for (const line of summary(report)) io.out(line);
    return report.converted === 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof PrepareError) {
      io.err(`gp dataset prepare harbor: ${visibleLine(error.message)}`);
      io.err('Nothing was written; earlier outputs in the output folder are unchanged.');
      return 1;
    }
    throw error;
  }
}
