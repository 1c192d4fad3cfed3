/**
 * Reads the `_verl.parquet` files `registerDataset` writes with pyarrow, the library under Verl's
 * data loader, and compares what it sees with the registered tasks. Our own read-back uses
 * hyparquet, the sibling of the writer; this check shares no code with either.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { promptFor, registerDataset } from '../../server/src/datasets/register.js';
import { withAbsolutePaths } from '../../server/src/datasets/taskPaths.js';
import { loadTasks, type TaskEntry } from '../../server/src/tasks/index.js';
import { fixturePath, swebenchVerifiedFixture } from '../support/fixtures.js';

const repo = resolve(__dirname, '..', '..');
const python = join(repo, '.venv-test', 'bin', 'python');
const reader = join(repo, 'test', 'python', 'read_verl_parquet.py');

interface PyarrowView {
  readonly pyarrow: string;
  readonly columns: readonly { name: string; type: string }[];
  readonly num_rows: number;
  readonly num_row_groups: number;
  readonly rows: readonly Record<string, unknown>[];
}

before(() => {
  const setup = spawnSync('bash', [join(repo, 'test', 'python', 'setup.sh')], { encoding: 'utf8', timeout: 600_000 });
  assert.equal(setup.status, 0, `test/python/setup.sh failed:\n${setup.stdout}${setup.stderr}`);
});

async function pyarrowView(path: string): Promise<PyarrowView> {
  const { stdout } = await promisify(execFile)(python, [reader, path], { maxBuffer: 512 * 1024 * 1024 });
  return JSON.parse(stdout) as PyarrowView;
}

async function tasksOf(file: string): Promise<TaskEntry[]> {
  const loaded = await loadTasks(file);
  assert.deepEqual(loaded.problems, []);
  // Registration makes host paths absolute against the task file's folder.
  return loaded.tasks.map((t) => withAbsolutePaths(t.task, dirname(file)));
}

const expectedColumns = [
  { name: 'prompt', type: 'list<element: struct<role: string, content: string>>' },
  { name: 'reward_model', type: 'struct<style: string, ground_truth: string>' },
  { name: 'extra_info', type: 'struct<task_id: string, split: string, index: int64, data_source: string, task: string>' },
];

/** Compares pyarrow's rows with the tasks: every column of every row, the task decoded from its JSON. */
function assertPyarrowRows(view: PyarrowView, tasks: readonly TaskEntry[], split: string): void {
  assert.deepEqual(view.columns, expectedColumns, `pyarrow ${view.pyarrow} sees other columns`);
  assert.equal(view.num_rows, tasks.length);
  assert.equal(view.rows.length, tasks.length);
  for (const [index, row] of view.rows.entries()) {
    const source = tasks[index];
    assert.ok(source);
    assert.deepEqual(Object.keys(row), ['prompt', 'reward_model', 'extra_info']);
    assert.deepEqual(row['prompt'], [{ role: 'user', content: promptFor(source) }], `row ${index}: prompt`);
    assert.deepEqual(row['reward_model'], { style: 'rule', ground_truth: null }, `row ${index}: reward_model`);
    const info = row['extra_info'] as Record<string, unknown>;
    assert.equal(typeof info['task'], 'string', `row ${index}: extra_info.task is not a string`);
    assert.deepEqual(JSON.parse(info['task'] as string), source, `row ${index}: extra_info.task`);
    assert.deepEqual(
      { ...info, task: undefined },
      { task_id: source.task_id, split, index, data_source: source.data_source ?? null, task: undefined },
      `row ${index}: extra_info`,
    );
  }
}

test('pyarrow reads the ten sample tasks with the column types Verl expects and the values registered', async () => {
  const root = mkdtempSync(join(tmpdir(), 'gp-pyarrow-samples-'));
  for (const [file, split] of [
    [join(repo, 'datasets', 'sample', 'tasks.jsonl'), 'test'],
    [join(repo, 'datasets', 'samples.jsonl'), 'val'],
  ] as const) {
    const result = await registerDataset({ file, name: 'graph_planner_repoenv', split, root });
    assertPyarrowRows(await pyarrowView(result.verlPath), await tasksOf(file), split);
  }
});

test('pyarrow reads the 499 SWE-bench Verified tasks back exactly, across several row groups', async () => {
  const file = fixturePath(swebenchVerifiedFixture);
  const root = mkdtempSync(join(tmpdir(), 'gp-pyarrow-verified-'));
  const result = await registerDataset({ file, name: 'swe_bench_verified', split: 'eval', root, rowGroupSize: 100 });
  const view = await pyarrowView(result.verlPath);
  assert.equal(view.num_row_groups, 5);
  assertPyarrowRows(view, await tasksOf(file), 'eval');
});

test('pyarrow gives back tasks whose shapes differ between rows, which a nested struct column could not hold', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-pyarrow-mixed-'));
  const file = join(dir, 'mixed.jsonl');
  const rows = Array.from({ length: 2500 }, (_, i) => ({
    task_id: `mixed-${i}`,
    sandbox: { docker_image: `example/mixed:${i}`, workdir: '/testbed', ...(i % 4 === 0 ? { env: { PYTHONHASHSEED: String(i) } } : {}) },
    ...(i % 3 === 0 ? {} : { data_source: 'example/mixed' }),
    // SWE-bench ships these lists as JSON strings, converters as lists: both in one file.
    FAIL_TO_PASS: i % 2 === 0 ? [`tests/test_${i}.py::test_a`] : JSON.stringify([`tests/test_${i}.py::test_a`]),
    ...(i % 5 === 0 ? { expected_output_json: { [`tests/test_${i}.py::test_a`]: 'PASSED' } } : { expected_output_json: '{"t": "FAILED"}' }),
    issue: { title: `Crash ${i}: ünïcödé ✓ 🚀 \t "quoted"`, body: `line one\r\nline two ${'x'.repeat(i % 300)}` },
  }));
  writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const result = await registerDataset({ file, name: 'mixed', split: 'train', root: join(dir, 'root') });
  const view = await pyarrowView(result.verlPath);
  assert.equal(view.num_row_groups, 3);
  assertPyarrowRows(view, await tasksOf(file), 'train');
});
