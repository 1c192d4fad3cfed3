/**
 * `registerDataset`: turns a task file into the `<root>/<name>/<split>_verl.parquet` that rLLM and
 * Verl train from, records it in `<root>/registry.json` (rLLM's layout, docs/upstream-contracts.md#rllm-dataset-registration,
 * docs/original-system.md#g6-registration), and reads every row back before anything becomes visible. Either the whole
 * registration happens or nothing is written: the parquet goes to a temporary file that is checked
 * and only then renamed, and the registry is written the same way.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  datasetRegistrySchema,
  isDatasetName,
  registryFileName,
  verlFileName,
  type DatasetRegistry,
  type RegisteredSplit,
  type VerlRow,
} from '../protocol/datasetRegistry.js';
import { findSyntaxError, locate, loadTasks, type LoadedTask, type TaskEntry } from '../tasks/index.js';
import { withAbsolutePaths } from './taskPaths.js';
import { readVerlRows, VerlParquetError, writeVerlParquet } from './verlParquet.js';
import { fileSha256 } from '../util/fileHash.js';
import { processAlive } from '../util/processAlive.js';
import { isRecord } from '../util/isRecord.js';
import { isoTimestamp } from '../util/time.js';

export { readVerlRows, VerlParquetError } from './verlParquet.js';
export type { VerlRow } from '../protocol/datasetRegistry.js';

export interface RegisterOptions {
  /** Task JSONL (or `.json`) in our task format. */
  readonly file: string;
  /** Dataset name, e.g. `graph_planner_repoenv`; a folder under `root`. */
  readonly name: string;
  /** Split, e.g. `train`, `val` or `eval`; the file is `<split>_verl.parquet`. */
  readonly split: string;
  /** Registry root folder (rLLM's `$RLLM_HOME/datasets`); the caller chooses the default. */
  readonly root: string;
  /** Provenance recorded in the registry's metadata, e.g. the Hugging Face dataset id. */
  readonly source?: string;
  readonly description?: string;
  /** Rows per parquet row group; tests lower it, everyone else keeps the default. */
  readonly rowGroupSize?: number;
}

export interface RegisterResult {
  readonly verlPath: string;
  readonly registryPath: string;
  readonly rows: number;
  readonly sha256: string;
}

export type RegisterErrorCode =
  | 'dataset/invalid-name'
  | 'dataset/unreadable-file'
  | 'dataset/invalid-tasks'
  | 'dataset/duplicate-task-id'
  | 'dataset/empty'
  | 'dataset/registry-malformed'
  | 'dataset/roundtrip-mismatch'
  | 'dataset/write-failed';

/** Why a registration did not happen. `problems` are `file:line:col message` strings. */
export class RegisterError extends Error {
  constructor(
    readonly code: RegisterErrorCode,
    message: string,
    readonly problems: readonly string[] = [],
  ) {
    super(message);
    this.name = 'RegisterError';
  }
}

// ---------------------------------------------------------------------------------------------
// Rows.

const promptSummaryLength = 200;

/** Lone UTF-16 surrogates cannot be stored as UTF-8; parquet writers replace them with U+FFFD. */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

function firstLine(text: string | undefined): string | undefined {
  const line = text
    ?.split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (line === undefined) return undefined;
  return line.length > promptSummaryLength ? `${line.slice(0, promptSummaryLength - 1)}…` : line;
}

/**
 * The one user message of the `prompt` column. rLLM writes the literal "placeholder" there because
 * its agent's real prompt is the environment's first observation; Verl only reads this column to
 * filter over-long prompts and to show samples. A short line that names the repository and the
 * issue costs nothing and makes the file readable in any parquet viewer. SWE-bench titles are the
 * whole problem statement (docs/original-system.md#g3-swe-bench-conversion), so only its first line is used, clipped.
 */
export function promptFor(task: TaskEntry): string {
  const where = task.repo ?? task.task_id;
  const summary = firstLine(task.issue?.title) ?? firstLine(task.issue?.body) ?? firstLine(task.issue?.description);
  return wellFormed(summary === undefined ? `Fix the issue in ${where} (task ${task.task_id}).` : `Fix the issue in ${where}: ${summary}`);
}

/** The `_verl.parquet` row of the task at position `index` of a split. */
export function verlRowFor(task: TaskEntry, index: number, split: string): VerlRow {
  return {
    prompt: [{ role: 'user', content: promptFor(task) }],
    reward_model: { style: 'rule', ground_truth: null },
    extra_info: { task_id: task.task_id, split, index, data_source: task.data_source ?? null, task: JSON.stringify(task) },
  };
}

function* verlRows(tasks: readonly LoadedTask[], split: string): Generator<VerlRow> {
  for (const [index, { task }] of tasks.entries()) yield verlRowFor(task, index, split);
}

// ---------------------------------------------------------------------------------------------
// Reading the inputs.

function checkNames(options: RegisterOptions): void {
  const bad = (['name', 'split'] as const).filter((key) => !isDatasetName(options[key]));
  if (bad.length === 0) return;
  throw new RegisterError(
    'dataset/invalid-name',
    bad
      .map(
        (key) =>
          `The ${key} ${JSON.stringify(options[key])} cannot be used: it becomes part of a path under ${options.root}, so use only letters, digits, "_", "." and "-" (e.g. graph_planner_repoenv, train).`,
      )
      .join(' '),
  );
}

function duplicateProblems(file: string, tasks: readonly LoadedTask[]): string[] {
  const firstLineOf = new Map<string, number>();
  const problems: string[] = [];
  for (const { task, line } of tasks) {
    const first = firstLineOf.get(task.task_id);
    if (first === undefined) firstLineOf.set(task.task_id, line);
    else
      problems.push(
        `${file}:${line}:1 task_id ${JSON.stringify(task.task_id)} is also the id of line ${first}; every task_id must be unique, because rLLM and the run reports name episodes by it.`,
      );
  }
  return problems;
}

function lineOf(problem: string): number {
  return Number(/:(\d+):\d+ /.exec(problem)?.[1] ?? 0);
}

/** Loads the task file and refuses it unless every row is a valid task with a unique id. */
async function readTasks(file: string): Promise<LoadedTask[]> {
  let loaded;
  try {
    loaded = await loadTasks(file);
  } catch (error) {
    throw new RegisterError('dataset/unreadable-file', `Cannot read the task file: ${(error as Error).message}`, [`${file}:1:1 ${(error as Error).message}`]);
  }
  const duplicates = duplicateProblems(file, loaded.tasks);
  const problems = [...loaded.problems, ...duplicates].sort((a, b) => lineOf(a) - lineOf(b));
  if (loaded.problems.length > 0) {
    const n = loaded.problems.length;
    throw new RegisterError(
      'dataset/invalid-tasks',
      `${file} has ${n} invalid row${n === 1 ? '' : 's'}; fix ${n === 1 ? 'it' : 'them'} (gp dataset validate ${file} lists every problem) and register again.`,
      problems,
    );
  }
  if (duplicates.length > 0) {
    throw new RegisterError(
      'dataset/duplicate-task-id',
      `${file} uses ${duplicates.length} task_id${duplicates.length === 1 ? '' : 's'} more than once; give each task its own id and register again.`,
      problems,
    );
  }
  if (loaded.tasks.length === 0) {
    throw new RegisterError('dataset/empty', `${file} holds no tasks, so there is nothing to register.`, [`${file}:1:1 no tasks`]);
  }
  return loaded.tasks.map((t) => ({ ...t, task: withAbsolutePaths(t.task, dirname(file)) }));
}

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}:${offset - before.lastIndexOf('\n')}`;
}

function malformedRegistry(path: string, problems: string[], hint = ''): RegisterError {
  return new RegisterError(
    'dataset/registry-malformed',
    `${path} is not a registry this tool can update (rLLM's v2 registry.json): fix it, or move it away to start a new one, then register again.${hint}`,
    problems,
  );
}

const migrateHint =
  ' An older rLLM registry ({name: {split: path}}) is migrated in place by rLLM itself: python -c "from rllm.data.dataset import DatasetRegistry; DatasetRegistry.get_dataset_names()".';

/** The registry at `path`, or undefined when there is none yet. */
async function readRegistry(path: string): Promise<DatasetRegistry | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RegisterError('dataset/registry-malformed', `Cannot read ${path}: ${(error as Error).message}`, [`${path}:1:1 ${(error as Error).message}`]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const syntax = findSyntaxError(text);
    throw malformedRegistry(path, [`${path}:${lineCol(text, syntax?.offset ?? 0)} invalid JSON: ${syntax?.message ?? (error as Error).message}`]);
  }
  const parsed = datasetRegistrySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 20).map((issue) => {
    const found = locate(
      text,
      issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    );
    const where = issue.path.length > 0 ? issue.path.join('.') : 'the registry';
    return `${path}:${lineCol(text, found.key?.start ?? found.value.start)} ${where}: ${issue.message}`;
  });
  throw malformedRegistry(path, problems, isRecord(value) && value['version'] !== 2 ? migrateHint : '');
}

function mergeRegistry(existing: DatasetRegistry | undefined, options: RegisterOptions, entry: RegisteredSplit): DatasetRegistry {
  const registry = existing ?? { version: 2, datasets: {} };
  // Own-property lookups only: a dataset may be called `__proto__` or `constructor`.
  const dataset = Object.hasOwn(registry.datasets, options.name) ? registry.datasets[options.name] : undefined;
  const metadata = {
    ...dataset?.metadata,
    ...(options.source !== undefined ? { source: options.source } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
  };
  return {
    ...registry,
    datasets: { ...registry.datasets, [options.name]: { ...dataset, metadata, splits: { ...dataset?.splits, [options.split]: entry } } },
  };
}

// ---------------------------------------------------------------------------------------------
// Checking what was written.

interface Mismatch {
  readonly row: number;
  readonly what: string;
}

function rowDifference(actual: VerlRow, expected: VerlRow, task: TaskEntry): string | undefined {
  if (!isDeepStrictEqual(actual.prompt, expected.prompt)) return 'prompt differs';
  if (!isDeepStrictEqual(actual.reward_model, expected.reward_model)) return 'reward_model differs';
  for (const key of ['task_id', 'split', 'index', 'data_source'] as const) {
    if (actual.extra_info[key] !== expected.extra_info[key]) return `extra_info.${key} differs`;
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(actual.extra_info.task);
  } catch {
    return 'extra_info.task is not valid JSON';
  }
  return isDeepStrictEqual(decoded, task) ? undefined : 'extra_info.task does not decode to the source task';
}

/** Reads `path` back and compares every row with the row the task should have become. */
async function firstMismatch(path: string, tasks: readonly LoadedTask[], split: string): Promise<Mismatch | undefined> {
  let row = 0;
  try {
    for await (const actual of readVerlRows(path)) {
      const source = tasks[row];
      if (source === undefined) return { row, what: `is extra: ${tasks.length} rows were written` };
      const what = rowDifference(actual, verlRowFor(source.task, row, split), source.task);
      if (what !== undefined) return { row, what };
      row++;
    }
  } catch (error) {
    if (!(error instanceof VerlParquetError)) throw error;
    return { row: error.row ?? row, what: `cannot be read back: ${error.message}` };
  }
  return row < tasks.length ? { row, what: `is missing: only ${row} of ${tasks.length} rows were read back` } : undefined;
}

function mismatchError(file: string, verlPath: string, tasks: readonly LoadedTask[], mismatch: Mismatch): RegisterError {
  const source = tasks[mismatch.row];
  const which = source === undefined ? `Row ${mismatch.row}` : `Row ${mismatch.row} (task_id ${JSON.stringify(source.task.task_id)})`;
  return new RegisterError(
    'dataset/roundtrip-mismatch',
    `${which} of ${verlPath} did not read back as written: ${mismatch.what}. The file was removed and the registry left as it was. A value parquet cannot store as UTF-8 (such as a lone surrogate escape \\udXXX in a string) causes this; otherwise please report it with the row.`,
    [`${file}:${source?.line ?? 1}:1 row ${mismatch.row} ${mismatch.what}`],
  );
}

// ---------------------------------------------------------------------------------------------
// Files.

function tempPathFor(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Removes temporary files next to `path` left by registrations that crashed. */
async function removeStaleTemps(path: string): Promise<void> {
  const base = `${path.slice(dirname(path).length + 1)}.tmp-`;
  for (const name of await readdir(dirname(path)).catch(() => [])) {
    const pid = name.startsWith(base) ? Number(/^(\d+)-[0-9a-f]+$/.exec(name.slice(base.length))?.[1]) : Number.NaN;
    if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) await rm(join(dirname(path), name), { force: true });
  }
}

async function writeSynced(path: string, data: string): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes the folders `mkdir` created, deepest first, stopping at the first that is not empty. */
async function removeCreated(created: string | undefined, dir: string): Promise<void> {
  if (created === undefined) return;
  const depth = relative(created, dir)
    .split(sep)
    .filter((part) => part !== '').length;
  let current = dir;
  for (let i = 0; i <= depth; i++) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
    current = dirname(current);
  }
}

/** File-system failures (a full disk, a read-only root) become a RegisterError; anything else is a bug and is rethrown. */
function asRegisterError(error: unknown, verlPath: string): RegisterError {
  if (error instanceof RegisterError) return error;
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno.code === 'string' && typeof errno.syscall === 'string') {
    return new RegisterError('dataset/write-failed', `Could not write ${verlPath} or the registry: ${errno.message}`, [
      `${errno.path ?? verlPath}:1:1 ${errno.code}`,
    ]);
  }
  throw error;
}

// ---------------------------------------------------------------------------------------------

/**
 * Registers `options.file` as `options.name`/`options.split` under `options.root`. Throws a
 * RegisterError, having written nothing, when the names, the tasks or the existing registry are
 * unusable or when the written file does not read back row for row.
 */
export async function registerDataset(options: RegisterOptions): Promise<RegisterResult> {
  checkNames(options);
  const root = resolve(options.root);
  const dir = join(root, options.name);
  const verlPath = join(dir, verlFileName(options.split));
  const registryPath = join(root, registryFileName);
  // The registry is checked first: it is cheap, and a broken one must be fixed whatever the tasks say.
  await readRegistry(registryPath);
  const tasks = await readTasks(options.file);

  let created: string | undefined;
  const tmp = tempPathFor(verlPath);
  const registryTmp = tempPathFor(registryPath);
  try {
    created = await mkdir(dir, { recursive: true });
    await removeStaleTemps(verlPath);
    await removeStaleTemps(registryPath);
    await writeVerlParquet(tmp, verlRows(tasks, options.split), options.rowGroupSize !== undefined ? { rowGroupSize: options.rowGroupSize } : {});
    const mismatch = await firstMismatch(tmp, tasks, options.split);
    if (mismatch !== undefined) throw mismatchError(options.file, verlPath, tasks, mismatch);
    const sha256 = await fileSha256(tmp);
    // Read again rather than reuse the first read: another registration may have finished while
    // this one wrote its rows, and its entry must survive the merge.
    const entry: RegisteredSplit = { path: verlPath, verl_path: verlPath, rows: tasks.length, sha256, registered_at: isoTimestamp() };
    const registry = mergeRegistry(await readRegistry(registryPath), options, entry);
    // Both files are complete on disk before either is renamed, so only a failing rename (which
    // within one folder does not happen short of a dying disk) could separate them.
    await writeSynced(registryTmp, `${JSON.stringify(registry, null, 2)}\n`);
    await rename(tmp, verlPath);
    await rename(registryTmp, registryPath);
    return { verlPath, registryPath, rows: tasks.length, sha256 };
  } catch (error) {
    await rm(tmp, { force: true });
    await rm(registryTmp, { force: true });
    await removeCreated(created, dir);
    throw asRegisterError(error, verlPath);
  }
}
