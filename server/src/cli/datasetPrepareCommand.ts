/**
 * `gp dataset prepare r2e-gym|swebench` (each row format of the registry, `datasets/converters.ts`): download a dataset's parquet files from Hugging Face (or
 * take local files with --from), convert them, and print what was written and what was skipped.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  datasetConverter,
  datasetConverters,
  DatasetInputError,
  downloadParquetFiles,
  envSpecsFrom,
  HubError,
  listParquetFiles,
  pickSplit,
  prepareDataset,
  PrepareError,
  rowConverter,
  type DatasetKind,
  type PrepareOptions,
  type SpecPythonEnv,
  type SplitRule,
} from '../datasets/index.js';
import type { PrepareReport } from '../protocol/datasetPrepare.js';
import { errorMessage } from '../util/errors.js';
import { usageError } from './args.js';
import { harborPrepare, harborPrepareUsage } from './harborPrepareCommand.js';
import { formatBytes, LineProgress } from './lineProgress.js';
import { intFlag, plural, type Io } from './output.js';
import { bar, type ProgressSink } from './progress.js';

/** The formats whose tasks are rows, as the usage names them. */
const rowKinds = datasetConverters().flatMap((c) => (c.source === 'rows' ? [c.kind] : []));

export const datasetPrepareUsage = `gp dataset prepare ${rowKinds.join('|')} [--dataset ID] [--split S] [--config C]
               [--from FILE...] [--out DIR] [--val-size N | --val-fraction F | --no-val]
               [--limit N] [--train-limit N] [--val-limit N] [--max-steps N]
               [--image-namespace NS] [--env-specs FILE] [--repos DIR] [--cache-dir DIR] [--json]
      Download the dataset's parquet files from Hugging Face (HF_TOKEN when set; partial
      downloads resume) or read local parquet/JSONL/JSON files, and write <split>.jsonl,
      instances/<id>.json, docker_images_<split>.txt and prepare_report.json to DIR.
      Rows that cannot become tasks are skipped and counted by reason. SWE-bench rows without
      a harness spec (SWE-bench Lite, the full test set) get their python_env from SWE-bench's
      own specification tables (resources/swebench/specs.json, swebench 4.1.0) by repository
      and version: Python, packages, and the repository's own install (python_env.setup),
      which the local backend runs per working copy; the summary says per repository and
      version what could not be made, e.g. a requirements file that needs --repos. --env-specs
      names a JSONL whose rows carry SWE-bench's harness spec (swebench_spec, e.g. converted
      Verified tasks) and wins over the tables; a warning says when it matches no row. Rows read with --from are
      labelled (data_source) local/<first file's name> unless --dataset says what they are.
      --repos DIR points each task's local_repo at its repository's clone in DIR (a folder
      named owner__name, name or owner/name), so the local backend runs it; the summary
      counts the rows whose clone is missing. The specification tables read requirement
      files from these clones at each row's environment_setup_commit.
${harborPrepareUsage}`;

interface Parsed {
  readonly kind: DatasetKind;
  readonly dataset: string;
  readonly split: string;
  readonly config: string | undefined;
  readonly from: string[];
  readonly out: string;
  readonly splitRule: SplitRule;
  readonly limit: number | undefined;
  readonly trainLimit: number | undefined;
  readonly valLimit: number | undefined;
  readonly maxSteps: number | undefined;
  readonly imageNamespace: string | undefined;
  readonly envSpecs: string | undefined;
  readonly reposDir: string | undefined;
  readonly cacheDir: string;
  readonly json: boolean;
}

export const datasetPrepareOptions = {
  dataset: { type: 'string' },
  split: { type: 'string' },
  config: { type: 'string' },
  from: { type: 'string', multiple: true },
  out: { type: 'string' },
  'val-size': { type: 'string' },
  'val-fraction': { type: 'string' },
  'no-val': { type: 'boolean' },
  limit: { type: 'string' },
  'train-limit': { type: 'string' },
  'val-limit': { type: 'string' },
  'max-steps': { type: 'string' },
  'image-namespace': { type: 'string' },
  'env-specs': { type: 'string' },
  repos: { type: 'string' },
  'cache-dir': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Every format's name, as a sentence lists them: `r2e-gym, swebench or harbor`. */
function kindList(): string {
  const kinds = datasetConverters().map((c) => c.kind);
  return kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1) ?? ''}` : kinds.join('');
}

function parse(argv: readonly string[], cwd: string): { ok: true; value: Parsed } | { ok: false; errors: string[] } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: datasetPrepareOptions,
    });
  } catch (error) {
    return { ok: false, errors: [(error as Error).message.replace(/\. To specify a positional argument.*$/s, '.')] };
  }
  const errors: string[] = [];
  const [kindArg, ...extra] = parsed.positionals;
  if (kindArg === undefined || datasetConverter(kindArg)?.source !== 'rows') {
    return { ok: false, errors: [`name the dataset kind: ${kindList()}${kindArg === undefined ? '' : `, not ${JSON.stringify(kindArg)}`}.`] };
  }
  // Files after the kind are taken as --from files, so `gp dataset prepare swebench a.parquet` works.
  const kind: DatasetKind = kindArg;
  const v = parsed.values;
  const d = rowConverter(kind).defaults;
  let splitRule = d.splitRule;
  const given = [v['val-size'], v['val-fraction'], v['no-val']].filter((x) => x !== undefined).length;
  if (given > 1) errors.push('give one of --val-size, --val-fraction and --no-val.');
  const valSize = intFlag('--val-size', v['val-size'], errors, 0);
  if (valSize !== undefined) splitRule = { kind: 'size', size: valSize };
  if (v['val-fraction'] !== undefined) {
    const f = Number(v['val-fraction']);
    if (!(f >= 0 && f < 1)) errors.push(`--val-fraction needs a number in [0, 1), not ${JSON.stringify(v['val-fraction'])}.`);
    else splitRule = { kind: 'fraction', fraction: f };
  }
  if (v['no-val'] === true) splitRule = { kind: 'none' };
  const value: Parsed = {
    kind,
    // Rows read from files are labelled by the files unless --dataset says what they are: the
    // default hub id would claim, say, SWE-bench Verified for rows of any origin.
    dataset:
      v.dataset ??
      (v.from !== undefined || extra.length > 0
        ? `local/${basename([...(v.from ?? []), ...extra][0] ?? 'rows').replace(/\.(parquet|jsonl?)$/i, '')}`
        : d.dataset),
    split: v.split ?? d.split,
    config: v.config,
    from: [...(v.from ?? []), ...extra].map((f) => resolve(cwd, f)),
    out: resolve(cwd, v.out ?? d.out),
    splitRule,
    limit: intFlag('--limit', v.limit, errors),
    trainLimit: intFlag('--train-limit', v['train-limit'], errors, 0),
    valLimit: intFlag('--val-limit', v['val-limit'], errors, 0),
    maxSteps: intFlag('--max-steps', v['max-steps'], errors),
    imageNamespace: v['image-namespace'],
    envSpecs: v['env-specs'] === undefined ? undefined : resolve(cwd, v['env-specs']),
    reposDir: v.repos === undefined ? undefined : resolve(cwd, v.repos),
    cacheDir: resolve(cwd, v['cache-dir'] ?? process.env['GP_CACHE_DIR'] ?? join(homedir(), '.cache', 'graph-planner', 'hf')),
    json: v.json === true,
  };
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
}

/** Lists and downloads the requested split's parquet files; returns local paths and the split read. */
async function download(p: Parsed, progress: LineProgress, io: Io, signal: AbortSignal | undefined): Promise<{ files: string[]; split: string }> {
  // HF_ENDPOINT (read by the hub client) and HF_DATASETS_SERVER point at a mirror of the hub and of its dataset viewer.
  const viewer = process.env['HF_DATASETS_SERVER'];
  const listing = await listParquetFiles(p.dataset, {
    ...(p.config !== undefined ? { config: p.config } : {}),
    ...(viewer !== undefined && viewer !== '' ? { datasetsServer: viewer } : {}),
    ...(signal ? { signal } : {}),
  });
  const config = p.config ?? (listing.splits.has('default') ? 'default' : [...listing.splits.keys()][0]);
  const available = config === undefined ? [] : (listing.splits.get(config) ?? []);
  const picked = pickSplit(p.split, available);
  if (config === undefined || picked === undefined) {
    throw new PrepareError(
      `${p.dataset} has no split ${JSON.stringify(p.split)}${config === undefined ? '' : ` in config ${config}`}; it has ${available.join(', ') || 'no parquet files'}. Pass --split.`,
      'dataset/no-split',
    );
  }
  if (picked.fellBack) io.err(`gp dataset prepare: ${p.dataset} has no split ${p.split}; using ${picked.split} instead.`);
  if (listing.partial) io.err(`gp dataset prepare: Hugging Face converted ${p.dataset} only partially to parquet; some rows are missing from what it serves.`);
  const refs = listing.files.filter((f) => f.config === config && f.split === picked.split);
  const total = refs.reduce((n, f) => n + f.size, 0);
  const doneBytes = new Map<string, number>();
  const downloaded = await downloadParquetFiles(refs, join(p.cacheDir, p.dataset), {
    ...(signal ? { signal } : {}),
    onProgress: (d) => {
      doneBytes.set(d.file.url, d.received);
      const got = [...doneBytes.values()].reduce((a, b) => a + b, 0);
      progress.update(`${bar(total > 0 ? got / total : 1)} downloading ${d.filesDone}/${d.filesTotal} files, ${formatBytes(got)} of ${formatBytes(total)}`);
    },
  });
  progress.done();
  const resumed = downloaded.filter((f) => f.resumedFrom > 0).length;
  const cached = downloaded.filter((f) => f.alreadyComplete).length;
  io.err(
    `gp dataset prepare: ${plural(downloaded.length, 'parquet file')} of ${p.dataset}/${picked.split} in ${join(p.cacheDir, p.dataset)} (${cached} already there, ${resumed} resumed).`,
  );
  return { files: downloaded.map((f) => f.path), split: picked.split };
}

function summary(report: PrepareReport): string[] {
  const lines = [`Read ${plural(report.rows_read, 'row')}: ${report.converted} converted, ${report.skipped} skipped.`];
  for (const [reason, n] of Object.entries(report.skipped_by_reason)) {
    const example = report.skipped_examples.find((e) => e.reason === reason);
    lines.push(`  skipped ${n} × ${reason}${example === undefined ? '' : `, e.g. ${example.place}: ${example.message}`}`);
  }
  for (const [note, n] of Object.entries(report.notes)) lines.push(`  note ${n} × ${note}`);
  for (const problem of report.python_env_problems ?? []) lines.push(`  no python_env for ${plural(problem.tasks, 'task')}: ${problem.message}`);
  for (const o of report.outputs)
    lines.push(`Wrote ${o.tasks} (${plural(o.rows, 'task')}) and ${o.manifest} (${plural(o.images, 'image')}, ${o.build_only} build-only).`);
  lines.push(
    `Wrote ${plural(report.instances, 'instance file')}${report.gold_predictions === undefined ? '' : ` and the gold patches to ${report.gold_predictions} (for evaluation only)`}.`,
  );
  return lines;
}

/** Environments by repository and version from a JSONL of rows with harness specs; a bad file is an error naming its line. */
function readEnvSpecs(file: string): Map<string, SpecPythonEnv> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PrepareError(`--env-specs ${file}: ${errorMessage(error)}.`, 'dataset/env-specs');
  }
  const rows = text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch (error) {
      throw new PrepareError(`${file}:${i + 1}:1 invalid JSON: ${errorMessage(error)}; --env-specs needs one JSON row per line.`, 'dataset/env-specs');
    }
  });
  const specs = envSpecsFrom(rows);
  if (specs.size === 0)
    throw new PrepareError(
      `${file} has no row with a swebench_spec holding repo, version and env_script_list; --env-specs needs converted SWE-bench tasks or harness rows.`,
      'dataset/env-specs',
    );
  return specs;
}

export async function datasetPrepare(argv: readonly string[], io: Io, cwd: string, sink?: ProgressSink, signal?: AbortSignal): Promise<number> {
  // Harbor tasks are folders, not rows: their own command, with its own flags. It is the one folder
  // format, so a second one would add its command here.
  if (argv[0] !== undefined && datasetConverter(argv[0])?.source === 'folders') return harborPrepare(argv.slice(1), io, cwd, signal);
  const parsed = parse(argv, cwd);
  if (!parsed.ok) {
    return usageError({ name: 'dataset prepare', usage: datasetPrepareUsage }, io, parsed.errors);
  }
  const p = parsed.value;
  const progress = new LineProgress(sink ?? { isTTY: false, write: (t) => io.err(t.replace(/\n$/, '')) });
  try {
    const envSpecs = p.envSpecs === undefined ? undefined : readEnvSpecs(p.envSpecs);
    if (envSpecs !== undefined) io.err(`gp dataset prepare: ${plural(envSpecs.size, 'environment')} by repository and version from ${p.envSpecs ?? ''}.`);
    const source = p.from.length > 0 ? { files: p.from, split: p.split } : await download(p, progress, io, signal);
    const options: PrepareOptions = {
      kind: p.kind,
      dataset: p.dataset,
      requestedSplit: p.split,
      effectiveSplit: source.split,
      sources: source.files,
      outDir: p.out,
      splitRule: p.splitRule,
      ...(p.limit !== undefined ? { limit: p.limit } : {}),
      ...(p.trainLimit !== undefined ? { trainLimit: p.trainLimit } : {}),
      ...(p.valLimit !== undefined ? { valLimit: p.valLimit } : {}),
      ...(p.maxSteps !== undefined ? { maxSteps: p.maxSteps } : {}),
      ...(p.imageNamespace !== undefined ? { imageNamespace: p.imageNamespace } : {}),
      ...(envSpecs !== undefined ? { envSpecs } : {}),
      ...(p.reposDir !== undefined ? { reposDir: p.reposDir } : {}),
      ...(signal ? { signal } : {}),
      onProgress: (s) => {
        const fraction = s.rowsTotal ? s.rowsRead / s.rowsTotal : undefined;
        progress.update(
          `${fraction === undefined ? '' : `${bar(fraction)} `}converting: ${s.rowsRead}${s.rowsTotal ? `/${s.rowsTotal}` : ''} rows, ${s.converted} tasks, ${s.skipped} skipped`,
        );
      },
    };
    const report = await prepareDataset(options);
    progress.done();
    if (p.json) io.out(JSON.stringify(report, null, 2));
    else for (const line of summary(report)) io.out(line);
    // A specification file that fits none of the rows leaves every environment to be written by hand: say so.
    if (envSpecs !== undefined && report.converted > 0 && (report.notes['python-env-from-specs'] ?? 0) === 0) {
      io.err(
        `warning: --env-specs ${p.envSpecs ?? ''} matched none of the ${plural(report.converted, 'converted row')} (by repository and version); their tasks have no python_env from it. Check that the file covers these repositories and versions.`,
      );
    }
    return report.converted === 0 ? 1 : 0;
  } catch (error) {
    progress.done();
    if (error instanceof PrepareError || error instanceof DatasetInputError || error instanceof HubError) {
      io.err(`gp dataset prepare: ${error.message}`);
      io.err('Nothing was written; earlier outputs in the output folder are unchanged.');
      return 1;
    }
    throw error;
  }
}
