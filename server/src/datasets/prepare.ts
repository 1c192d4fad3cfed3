/**
 * `gp dataset prepare`: source rows (parquet, JSONL or JSON files) → task JSONL per split,
 * `instances/<id>.json`, image manifests, SWE-bench gold predictions and `prepare_report.json`.
 * Rows stream through one at a time (parquet one row group at a time), so memory does not grow
 * with the dataset; only the ids are kept, to find duplicates and to draw the validation split.
 * Every output is staged and moved into place at the end (`staging.ts`).
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { prepareReportSchema, type ConversionNote, type PrepareReport, type SkipReason } from '../protocol/datasetPrepare.js';
import type { TaskEntryInput } from '../tasks/index.js';
import { schemaErrors } from '../tasks/index.js';
import type { ConvertContext } from './conversion.js';
import { writeManifest, rowImage } from './manifest.js';
import { rowConverter } from './converters.js';
import { formatSourcePlace, openRowSource, type RowSource } from './rowSource.js';
import { validationIds, type SplitRule } from './splits.js';
import { commitStaging, createStaging, LineWriter } from './staging.js';
import { idFraction } from './stableIds.js';
import type { SpecPythonEnv } from './swebenchEnv.js';
import type { RepoFileReader } from './swebenchTable.js';
import { PrepareTally } from './prepareTally.js';

/** A row format's name in the registry of converters (`converters.ts`). */
export type DatasetKind = string;

export interface PrepareProgress {
  readonly file: string;
  readonly rowsRead: number;
  readonly converted: number;
  readonly skipped: number;
  /** Rows in all sources when the formats say so up front (parquet). */
  readonly rowsTotal: number | undefined;
}

export interface PrepareOptions {
  readonly kind: DatasetKind;
  readonly dataset: string;
  readonly requestedSplit: string;
  /** The split actually read (after the fallbacks of docs/original-system.md#g5-split-fallbacks); names the outputs when there is no split rule. */
  readonly effectiveSplit: string;
  readonly sources: readonly string[];
  readonly outDir: string;
  readonly splitRule: SplitRule;
  /** Name of the validation output when a split rule is given (default `val`). */
  readonly valName?: string;
  /** Stop after this many converted tasks (in source order). */
  readonly limit?: number;
  readonly trainLimit?: number;
  readonly valLimit?: number;
  readonly maxSteps?: number;
  readonly imageNamespace?: string;
  /** Environments by repository and version for SWE-bench rows without a harness spec (`--env-specs`). */
  readonly envSpecs?: ReadonlyMap<string, SpecPythonEnv>;
  /** A folder of clones named by repository (`--repos`): each task's local_repo points at its clone. */
  readonly reposDir?: string;
  readonly onProgress?: (progress: PrepareProgress) => void;
  readonly signal?: AbortSignal;
}

/** A bad input that stops the run: the message names the file and what to do. Nothing is written. */
export class PrepareError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'PrepareError';
  }
}

function checkColumns(kind: DatasetKind, file: string, columns: readonly string[] | undefined): void {
  if (columns === undefined) return;
  const have = new Set(columns);
  const converter = rowConverter(kind);
  const missing = converter.requiredColumns.filter((group) => !group.some((c) => have.has(c)));
  if (missing.length === 0) return;
  const wanted = missing.map((g) => (g.length === 1 ? `\`${g[0]}\`` : `one of ${g.map((c) => `\`${c}\``).join(', ')}`)).join(' and ');
  throw new PrepareError(
    `${file}: this parquet file lacks ${wanted}; its columns are ${columns.map((c) => `\`${c}\``).join(', ')}. Is it a ${converter.title} file? Check the dataset id and the kind you asked for.`,
    'dataset/missing-columns',
  );
}

const problemReasons: Readonly<Record<string, SkipReason>> = {
  'dataset/invalid-json': 'invalid-json',
  'dataset/not-an-object': 'not-an-object',
  'dataset/non-utf8': 'non-utf8',
};

/** The common counts, and why tasks got no python_env (SWE-bench's specification tables). */
class Tally extends PrepareTally {
  /** Why tasks got no python_env, by message, with how many. */
  readonly envProblems = new Map<string, number>();
}

/**
 * Files of the clones under --repos at a commit (`git show <commit>:<path>`), each read once: the
 * requirement files SWE-bench's harness downloads from GitHub, which many rows of one repository
 * and version share.
 */
export function cloneFileReaders(reposDir: string | undefined): (repo: string) => RepoFileReader | undefined {
  const texts = new Map<string, string | undefined>();
  return (repo) => {
    const clone = reposDir === undefined ? undefined : cloneOf(reposDir, repo);
    if (clone === undefined) return undefined;
    return (commit, path) => {
      const key = `${clone}\0${commit}\0${path}`;
      if (!texts.has(key)) {
        try {
          texts.set(
            key,
            execFileSync('git', ['-C', clone, 'show', `${commit}:${path}`], {
              encoding: 'utf8',
              stdio: ['ignore', 'pipe', 'ignore'],
              maxBuffer: 16 * 1024 * 1024,
            }),
          );
        } catch {
          texts.set(key, undefined);
        }
      }
      return texts.get(key);
    };
  };
}

interface SplitOutput {
  readonly name: string;
  readonly rows: number;
  readonly images: string[];
  readonly buildOnly: string[];
  readonly ids: ReadonlySet<string>;
}

/** One task file per output split, with its images and its limit. */
class SplitWriters {
  private readonly outputs;

  constructor(staging: string, names: readonly string[], limits: readonly (number | undefined)[]) {
    this.outputs = names.map((name, i) => ({
      name,
      limit: limits[i] ?? Number.POSITIVE_INFINITY,
      writer: new LineWriter(join(staging, `${name}.jsonl`)),
      images: new Set<string>(),
      buildOnly: new Set<string>(),
      ids: new Set<string>(),
    }));
  }

  /** Writes the task to output `index`; false when that output is full (its limit reached). */
  async add(task: TaskEntryInput, index: number): Promise<boolean> {
    const out = this.outputs[index];
    if (out === undefined || out.ids.size >= out.limit) return false;
    const written: TaskEntryInput = { ...task, split: out.name };
    out.ids.add(task.task_id);
    const { image, buildOnly } = rowImage(written as unknown as Record<string, unknown>);
    if (image !== undefined) (buildOnly ? out.buildOnly : out.images).add(image);
    await out.writer.write(JSON.stringify(written));
    return true;
  }

  async close(): Promise<void> {
    for (const out of this.outputs) await out.writer.close();
  }

  result(): SplitOutput[] {
    return this.outputs.map((o) => ({ name: o.name, rows: o.ids.size, images: [...o.images, ...o.buildOnly], buildOnly: [...o.buildOnly], ids: o.ids }));
  }
}

interface Converted {
  readonly tally: Tally;
  /** Ids whose instance file was written to staging (kept or not). */
  readonly instanceIds: readonly string[];
  readonly splits: SplitOutput[];
  readonly sourceRows: { file: string; rows?: number }[];
  readonly gold: number;
}

async function openSources(options: PrepareOptions): Promise<RowSource[]> {
  const opened: RowSource[] = [];
  for (const file of options.sources) {
    const source = await openRowSource(file, options.signal === undefined ? {} : { signal: options.signal });
    checkColumns(options.kind, file, source.columns);
    opened.push(source);
  }
  return opened;
}

/**
 * Reads every source, converts each row and writes tasks, instance files and gold patches into
 * staging. With no split or a fraction, a task's split is known from its id alone and it is
 * written straight to its split's file; a validation size needs every id first, so tasks then go
 * to one file and are split in a second pass over it. Instance files are written synchronously:
 * through the promise API each of thousands of small files costs a file handle object and a
 * thread-pool round trip, which measured as a quarter of the run.
 */
async function convertSources(options: PrepareOptions, staging: string): Promise<Converted> {
  const tally = new Tally();
  const firstPlace = new Map<string, string>();
  const rule = options.splitRule;
  const names = rule.kind === 'none' ? [options.effectiveSplit] : ['train', options.valName ?? 'val'];
  const limits = rule.kind === 'none' ? [options.trainLimit] : [options.trainLimit, options.valLimit];
  const splits = new SplitWriters(staging, names, limits);
  const pending = rule.kind === 'size' ? new LineWriter(join(staging, 'all.jsonl')) : undefined;
  const pendingIds: string[] = [];
  const instanceIds: string[] = [];
  const gold = new LineWriter(join(staging, 'gold.jsonl'));
  const sourceRows: { file: string; rows?: number }[] = [];
  const opened = await openSources(options);
  const rowsTotal = opened.every((s) => s.rowCount !== undefined) ? opened.reduce((n, s) => n + (s.rowCount ?? 0), 0) : undefined;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const repoFiles = cloneFileReaders(options.reposDir);
  try {
    outer: for (const source of opened) {
      let rows = 0;
      for await (const item of source.rows()) {
        if (options.signal?.aborted) throw new PrepareError('Preparation was interrupted; nothing was written.', 'dataset/aborted');
        if (tally.converted >= limit) break outer;
        tally.rowsRead++;
        rows++;
        if (item.kind === 'problem') {
          tally.skip(formatSourcePlace(item.place, item.column), problemReasons[item.code] ?? 'unreadable-row', item.message);
        } else {
          await take(item.value, formatSourcePlace(item.place));
        }
        options.onProgress?.({ file: source.file, rowsRead: tally.rowsRead, converted: tally.converted, skipped: tally.skipped, rowsTotal });
      }
      sourceRows.push({ file: source.file, rows });
    }
    if (pending !== undefined) {
      await pending.close();
      await splitPending(join(staging, 'all.jsonl'), validationIds(pendingIds, rule), splits);
    }
  } finally {
    await pending?.close();
    await splits.close();
    await gold.close();
  }
  return { tally, instanceIds, splits: splits.result(), sourceRows, gold: gold.lines };

  async function take(row: Record<string, unknown>, place: string): Promise<void> {
    const convertContext: ConvertContext = {
      dataset: options.dataset,
      split: options.effectiveSplit,
      place,
      ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    };
    const result = rowConverter(options.kind).convert(row, convertContext, { options, repoFiles });
    if (result.kind === 'skip') {
      tally.skip(place, result.reason, result.message);
      return;
    }
    const id = result.task.task_id;
    const first = firstPlace.get(id);
    if (first !== undefined) {
      tally.skip(place, 'duplicate-id', `Task id ${id} was already taken by the row at ${first}; this row is left out.`);
      return;
    }
    const repoNotes: ConversionNote[] = [];
    if (options.reposDir !== undefined) {
      const clone = cloneOf(options.reposDir, result.task.repo);
      if (clone !== undefined) result.task.sandbox = { ...result.task.sandbox, local_repo: clone };
      repoNotes.push(clone === undefined ? 'local-repo-missing' : 'local-repo-from-repos');
    }
    // The same compiled schema as `gp dataset validate` and the editor, so what prepare writes validates there.
    const invalid = schemaErrors(result.task)?.[0];
    if (invalid !== undefined) {
      tally.skip(
        place,
        'invalid-task',
        `The converted task is not valid at ${invalid.instancePath || 'the top level'}: ${invalid.message ?? 'unknown problem'}.`,
      );
      return;
    }
    firstPlace.set(id, place);
    tally.converted++;
    tally.note(result.notes);
    tally.note(repoNotes);
    if (result.envProblem !== undefined) tally.envProblems.set(result.envProblem, (tally.envProblems.get(result.envProblem) ?? 0) + 1);
    if (pending !== undefined) {
      pendingIds.push(id);
      await pending.write(JSON.stringify(result.task));
    } else {
      const index = rule.kind === 'fraction' && idFraction(id, rule.salt ?? '') < rule.fraction ? 1 : 0;
      if (!(await splits.add(result.task, index))) return;
    }
    instanceIds.push(id);
    writeFileSync(join(staging, 'instances', `${id}.json`), `${JSON.stringify(result.instance, null, 2)}\n`);
    if (result.goldPatch !== undefined) await gold.write(JSON.stringify({ instance_id: id, model_name_or_path: 'gold', model_patch: result.goldPatch }));
  }
}

/**
 * The clone of `repo` (`owner/name`) under `dir`, as an absolute path: a folder named `owner__name`
 * (SWE-bench's own spelling), `name` or `owner/name` that holds a git repository.
 */
export function cloneOf(dir: string, repo: string | undefined): string | undefined {
  if (repo === undefined || !repo.includes('/')) return undefined;
  const [owner = '', name = ''] = repo.split('/');
  for (const candidate of [`${owner}__${name}`, name, join(owner, name)]) {
    const path = resolve(dir, candidate);
    if (existsSync(join(path, '.git'))) return path;
  }
  return undefined;
}

/** The second pass for a validation size: the staged tasks, each to its split. */
async function splitPending(file: string, val: ReadonlySet<string>, splits: SplitWriters): Promise<void> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line === '') continue;
    const task = JSON.parse(line) as TaskEntryInput;
    await splits.add(task, val.has(task.task_id) ? 1 : 0);
  }
}

/** Named after the split the tasks file has, so the two always pair up (the original named them apart, docs/original-system.md#g4-image-manifest). */
function manifestName(split: string): string {
  return `docker_images_${split}.txt`;
}

/** Runs the whole preparation and returns its report (also written as `prepare_report.json`). */
export async function prepareDataset(options: PrepareOptions): Promise<PrepareReport> {
  const started = Date.now();
  const staging = await createStaging(options.outDir);
  try {
    const converted = await convertSources(options, staging);
    const splits = converted.splits;
    const files: string[] = [];
    const kept = new Set<string>();
    for (const s of splits) for (const id of s.ids) kept.add(id);
    for (const id of kept) files.push(`instances/${id}.json`);
    // Tasks a split limit left out have no place in the outputs, so neither do their instance files.
    for (const id of converted.instanceIds) if (!kept.has(id)) rmSync(join(staging, 'instances', `${id}.json`));
    for (const s of splits) {
      await writeManifest(join(staging, manifestName(s.name)), s.images, { buildOnly: s.buildOnly });
      files.push(manifestName(s.name));
    }
    if (splits.length > 1) {
      const all = [...new Set(splits.flatMap((s) => s.images))];
      await writeManifest(join(staging, 'docker_images.txt'), all, { buildOnly: splits.flatMap((s) => s.buildOnly) });
      files.push('docker_images.txt');
    }
    const goldName = `gold_predictions_${options.effectiveSplit}.jsonl`;
    if (converted.gold > 0) {
      await rename(join(staging, 'gold.jsonl'), join(staging, goldName));
      files.push(goldName);
    }
    files.push(...splits.map((s) => `${s.name}.jsonl`));
    const { tally } = converted;
    const report: PrepareReport = prepareReportSchema.parse({
      schema: 'graph-planner/prepare-report@1',
      kind: options.kind,
      dataset: options.dataset,
      requested_split: options.requestedSplit,
      effective_split: options.effectiveSplit,
      sources: converted.sourceRows,
      ...tally.reportFields(),
      outputs: splits.map((s) => ({
        split: s.name,
        tasks: join(options.outDir, `${s.name}.jsonl`),
        manifest: join(options.outDir, manifestName(s.name)),
        rows: s.rows,
        images: s.images.length,
        build_only: s.buildOnly.length,
      })),
      instances: kept.size,
      ...(tally.envProblems.size > 0 ? { python_env_problems: [...tally.envProblems].map(([message, tasks]) => ({ message, tasks })) } : {}),
      ...(converted.gold > 0 ? { gold_predictions: join(options.outDir, goldName) } : {}),
      duration_ms: Date.now() - started,
    });
    await writeFile(join(staging, 'prepare_report.json'), `${JSON.stringify(report, null, 2)}\n`);
    files.push('prepare_report.json');
    await commitStaging(staging, options.outDir, files, { wholeDir: 'instances' });
    return report;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
