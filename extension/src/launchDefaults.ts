/**
 * What a launch preselects and what its pickers offer (issue 37, docs/workbench.md "Launching
 * runs"): the experiment is the open one, else the last launched, else the sample; the dataset is
 * the one the experiment names and follows it when the experiment changes; pickers offer neither
 * gold-prediction files (the server's dataset list leaves them out, the rule the Tasks view uses)
 * nor test fixtures, and show each dataset's task count. Pure, so the rules are unit-tested;
 * `launchPickers.ts` asks the editor and the server and shows the pickers.
 */
import { basename, resolve } from 'node:path';

/**
 * Folders that hold test fixtures: a file with one of these among the folders of its path,
 * relative to its workspace folder, is a fixture. A clone of this repository has experiment configs
 * and datasets under `test/e2e/fixtures/`, which a launch should never offer a newcomer; a fixture
 * workspace opened on its own has them at its root, where they are offered as usual.
 */
const fixtureFolders = new Set(['test', 'tests', 'fixtures', '__fixtures__', 'testdata']);

export function isTestFixture(relativePath: string): boolean {
  const folders = relativePath.replace(/\\/g, '/').split('/').slice(0, -1);
  return folders.some((folder) => fixtureFolders.has(folder.toLowerCase()));
}

/** A file a picker may offer: its absolute path and its path relative to its workspace folder. */
export interface WorkspaceFile {
  readonly path: string;
  readonly rel: string;
}

/** A dataset file as the server's task index counts it. */
export interface DatasetFile extends WorkspaceFile {
  readonly tasks: number;
  /** Lines that are not valid tasks. */
  readonly invalid: number;
}

/** The experiment names that make a file the repository's sample: the default when nothing else is. */
const sampleNames = new Set(['sample.yaml', 'sample.yml']);

/**
 * The experiment a launch starts from: the one open in the editor, else the last one launched from
 * this workspace while it is still offered, else the sample (`sample.yaml`, the shallowest first),
 * else the first offered. Fixtures are never a default (`offered` has none).
 */
export function defaultExperiment(offered: readonly WorkspaceFile[], opened: string | undefined, last: string | undefined): string | undefined {
  if (opened !== undefined) return opened;
  if (last !== undefined && offered.some((f) => f.path === last)) return last;
  const depth = (f: WorkspaceFile) => f.rel.split('/').length;
  const samples = offered.filter((f) => sampleNames.has(basename(f.path).toLowerCase())).sort((a, b) => depth(a) - depth(b) || a.rel.localeCompare(b.rel));
  return (samples[0] ?? offered[0])?.path;
}

/** The files a picker offers: no fixtures, except one already chosen, which stays so it shows as chosen. */
export function offeredFiles<T extends WorkspaceFile>(files: readonly T[], chosen: readonly string[] = []): T[] {
  const keep = new Set(chosen);
  return files.filter((f) => keep.has(f.path) || !isTestFixture(f.rel)).sort((a, b) => a.rel.localeCompare(b.rel));
}

/**
 * The dataset an experiment names (`paths.dataset_train`, relative to the folder a run is launched
 * in, as `gp` resolves it), when it is a dataset file the server lists; undefined for one that does
 * not exist (the defaults' placeholder), that the dataset globs do not match, or that is a
 * gold-prediction file.
 */
export function datasetOfExperiment(named: string | undefined, cwd: string, listed: readonly DatasetFile[]): DatasetFile | undefined {
  if (named === undefined) return undefined;
  const path = resolve(cwd, named);
  return listed.find((f) => resolve(f.path) === path);
}

/**
 * The datasets after the experiment changed: the new experiment's own when it names one, else the
 * datasets as they were (chosen by the person, or the earlier experiment's), so a change never
 * leaves the launch on a dataset no one chose.
 */
export function datasetsAfterExperimentChange(current: readonly string[], named: DatasetFile | undefined): string[] {
  return named === undefined ? [...current] : [named.path];
}

/** A dataset's task count as a picker's description: `3 tasks`, `1 task · 2 invalid lines`. */
export function taskCount(file: Pick<DatasetFile, 'tasks' | 'invalid'>): string {
  const tasks = `${file.tasks} ${file.tasks === 1 ? 'task' : 'tasks'}`;
  return file.invalid === 0 ? tasks : `${tasks} · ${file.invalid} invalid ${file.invalid === 1 ? 'line' : 'lines'}`;
}

/** What an experiment's row in a picker says about its dataset: `datasets/sample/tasks.jsonl · 3 tasks`. */
export function experimentDescription(dataset: DatasetFile | undefined): string {
  return dataset === undefined ? 'names no dataset in this workspace' : `${dataset.rel} · ${taskCount(dataset)}`;
}
