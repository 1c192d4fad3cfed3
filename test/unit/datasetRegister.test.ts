import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetSchema, type SchemaTree } from 'hyparquet';
import { promptFor, readVerlRows, registerDataset, RegisterError, VerlParquetError, type RegisterOptions } from '../../server/src/datasets/register.js';
import { withAbsolutePaths } from '../../server/src/datasets/taskPaths.js';
import { datasetRegistrySchema, registeredSplitSchema, type VerlRow } from '../../server/src/protocol/datasetRegistry.js';
import { loadTasks, taskEntrySchema, type TaskEntry } from '../../server/src/tasks/index.js';
import { swebenchColumns, swebenchLiteRows, writeFixtureParquet } from '../support/parquetFixtures.js';

const repo = resolve(__dirname, '..', '..');
const sampleFiles = [join(repo, 'datasets', 'sample', 'tasks.jsonl'), join(repo, 'datasets', 'samples.jsonl')];

function tmp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `gp-register-${prefix}-`));
}

function options(file: string, root: string, extra: Partial<RegisterOptions> = {}): RegisterOptions {
  return { file, name: 'graph_planner_repoenv', split: 'train', root, ...extra };
}

function task(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    task_id: id,
    sandbox: { docker_image: `example/${id}:latest`, workdir: '/testbed' },
    repo: 'example/repo',
    issue: { title: `Issue ${id}` },
    ...extra,
  };
}

function writeTasks(dir: string, rows: readonly (Record<string, unknown> | string)[], name = 'tasks.jsonl'): string {
  const file = join(dir, name);
  writeFileSync(file, `${rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n')}\n`);
  return file;
}

/** Every file under `dir` with its bytes' hash, so a test can assert that nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, snapshot(path), { [`${path}/`]: 'dir' });
    else out[path] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}

async function rows(path: string): Promise<VerlRow[]> {
  const out: VerlRow[] = [];
  for await (const row of readVerlRows(path)) out.push(row);
  return out;
}

/** The tasks as registered: host paths made absolute against the task file's folder. */
async function sourceTasks(file: string): Promise<TaskEntry[]> {
  const loaded = await loadTasks(file);
  assert.deepEqual(loaded.problems, []);
  return loaded.tasks.map((t) => withAbsolutePaths(t.task, dirname(file)));
}

async function registerError(run: Promise<unknown>): Promise<RegisterError> {
  try {
    await run;
  } catch (error) {
    assert.ok(error instanceof RegisterError, `expected a RegisterError, got ${String(error)}`);
    return error;
  }
  assert.fail('registerDataset succeeded but should have failed');
}

function registry(root: string) {
  return datasetRegistrySchema.parse(JSON.parse(readFileSync(join(root, 'registry.json'), 'utf8')));
}

/** Checks that a file's rows are exactly the tasks, in order, registered under `split`. */
function assertRowsAre(actual: readonly VerlRow[], tasks: readonly TaskEntry[], split: string): void {
  assert.equal(actual.length, tasks.length);
  for (const [index, row] of actual.entries()) {
    const source = tasks[index];
    assert.ok(source);
    assert.deepEqual(JSON.parse(row.extra_info.task), source, `row ${index}: extra_info.task`);
    assert.deepEqual(row.extra_info, { task_id: source.task_id, split, index, data_source: source.data_source ?? null, task: row.extra_info.task });
    assert.deepEqual(row.prompt, [{ role: 'user', content: promptFor(source) }]);
    assert.deepEqual(row.reward_model, { style: 'rule', ground_truth: null });
  }
}

test('registers the ten sample tasks as two splits, reads every row back equal to its task and records both in the registry', async () => {
  const root = tmp('samples');
  const [small, seven] = sampleFiles as [string, string];
  const test1 = await registerDataset(options(small, root, { split: 'test', source: 'graph-planner/sample', description: 'Offline sample tasks' }));
  const val = await registerDataset(options(seven, root, { split: 'val' }));
  assert.equal(test1.rows + val.rows, 10);
  assert.equal(test1.verlPath, join(root, 'graph_planner_repoenv', 'test_verl.parquet'));
  assertRowsAre(await rows(test1.verlPath), await sourceTasks(small), 'test');
  assertRowsAre(await rows(val.verlPath), await sourceTasks(seven), 'val');

  const reg = registry(root);
  const dataset = reg.datasets['graph_planner_repoenv'];
  assert.deepEqual(dataset?.metadata, { source: 'graph-planner/sample', description: 'Offline sample tasks' });
  for (const [split, result] of [
    ['test', test1],
    ['val', val],
  ] as const) {
    const entry = registeredSplitSchema.parse(dataset?.splits[split]);
    assert.equal(entry.path, result.verlPath);
    assert.equal(entry.verl_path, result.verlPath);
    assert.equal(entry.rows, result.rows);
    assert.equal(entry.sha256, createHash('sha256').update(readFileSync(result.verlPath)).digest('hex'));
    assert.equal(entry.sha256, result.sha256);
  }
  assert.deepEqual(readdirSync(join(root, 'graph_planner_repoenv')).sort(), ['test_verl.parquet', 'val_verl.parquet'], 'temporary files were left behind');
});

test('the prompt names the repository and the first line of the issue title, clipped, with lone surrogates replaced', () => {
  const base = taskEntrySchema.parse({ task_id: 'x', sandbox: { workdir: '/w' } });
  assert.equal(promptFor({ ...base, repo: 'a/b', issue: { title: 'Title\r\nmore text' } }), 'Fix the issue in a/b: Title');
  assert.equal(promptFor({ ...base, issue: { body: '\n\n  Body first line  \nsecond' } }), 'Fix the issue in x: Body first line');
  assert.equal(promptFor(base), 'Fix the issue in x (task x).');
  const long = promptFor({ ...base, repo: 'a/b', issue: { title: 'y'.repeat(500) } });
  assert.equal(long.length, 'Fix the issue in a/b: '.length + 200);
  assert.ok(long.endsWith('…'));
  assert.equal(promptFor({ ...base, repo: 'a/b', issue: { title: 'bad \ud800 char' } }), 'Fix the issue in a/b: bad \ufffd char');
});

test('the file has exactly the three columns rLLM writes, with the nested types Verl reads', async () => {
  const root = tmp('schema');
  const result = await registerDataset(options(sampleFiles[1] ?? '', root));
  const metadata = await parquetMetadataAsync(await asyncBufferFromFile(result.verlPath));
  const describe = (node: SchemaTree): unknown => {
    const { name, type, repetition_type, converted_type } = node.element;
    const self = [name, type ?? 'group', repetition_type, converted_type ?? ''].join(' ').trim();
    return node.children.length === 0 ? self : { [self]: node.children.map(describe) };
  };
  assert.deepEqual(parquetSchema(metadata).children.map(describe), [
    {
      'prompt group OPTIONAL LIST': [
        { 'list group REPEATED': [{ 'element group OPTIONAL': ['role BYTE_ARRAY OPTIONAL UTF8', 'content BYTE_ARRAY OPTIONAL UTF8'] }] },
      ],
    },
    { 'reward_model group OPTIONAL': ['style BYTE_ARRAY OPTIONAL UTF8', 'ground_truth BYTE_ARRAY OPTIONAL UTF8'] },
    {
      'extra_info group OPTIONAL': [
        'task_id BYTE_ARRAY OPTIONAL UTF8',
        'split BYTE_ARRAY OPTIONAL UTF8',
        'index INT64 OPTIONAL',
        'data_source BYTE_ARRAY OPTIONAL UTF8',
        'task BYTE_ARRAY OPTIONAL UTF8',
      ],
    },
  ]);
  assert.equal(metadata.num_rows, 7n);
});

test('writes 3,000 tasks in row groups of 1,000 and reads every one back, including FAIL_TO_PASS as a list in some rows and a JSON string in others', async () => {
  const dir = tmp('large');
  const generated = Array.from({ length: 3000 }, (_, i) =>
    task(`gen-${i}`, {
      data_source: i % 3 === 0 ? undefined : 'example/generated',
      FAIL_TO_PASS: i % 2 === 0 ? [`tests/test_${i}.py::test_a`] : JSON.stringify([`tests/test_${i}.py::test_a`]),
      issue: { title: `Issue ${i} ünïcödé ✓ 🚀`, body: 'x'.repeat(i % 500) },
      ...(i % 7 === 0 ? { expected_output_json: { [`t${i}`]: 'PASSED' } } : {}),
    }),
  );
  const file = writeTasks(dir, generated);
  const result = await registerDataset(options(file, join(dir, 'root')));
  assert.equal(result.rows, 3000);
  const metadata = await parquetMetadataAsync(await asyncBufferFromFile(result.verlPath));
  assert.deepEqual(
    metadata.row_groups.map((g) => g.num_rows),
    [1000n, 1000n, 1000n],
  );
  assertRowsAre(await rows(result.verlPath), await sourceTasks(file), 'train');
});

test('the row group size can be lowered, and the last group holds the remainder', async () => {
  const dir = tmp('groups');
  const file = writeTasks(
    dir,
    Array.from({ length: 25 }, (_, i) => task(`t${i}`)),
  );
  const result = await registerDataset(options(file, join(dir, 'root'), { rowGroupSize: 10 }));
  const metadata = await parquetMetadataAsync(await asyncBufferFromFile(result.verlPath));
  assert.deepEqual(
    metadata.row_groups.map((g) => g.num_rows),
    [10n, 10n, 5n],
  );
  assert.deepEqual(
    (await rows(result.verlPath)).map((r) => r.extra_info.index),
    Array.from({ length: 25 }, (_, i) => i),
  );
});

test('merges into an existing registry, keeping other datasets, other splits and the keys rLLM writes', async () => {
  const root = tmp('merge');
  const existing = {
    version: 2,
    datasets: {
      R2E_Gym_Subset: {
        metadata: { source: 'R2E-Gym/R2E-Gym-Subset', category: 'code' },
        splits: { train: { path: 'R2E_Gym_Subset/train.parquet', num_examples: 4578, fields: ['repo_name', 'docker_image'] } },
      },
      graph_planner_repoenv: { metadata: { source: 'old-source' }, splits: { val: { path: '/elsewhere/val_verl.parquet', num_examples: 3 } } },
    },
  };
  writeFileSync(join(root, 'registry.json'), JSON.stringify(existing, null, 2));
  await registerDataset(options(sampleFiles[0] ?? '', root, { description: 'new description' }));
  const reg = registry(root);
  assert.deepEqual(reg.datasets['R2E_Gym_Subset'], existing.datasets.R2E_Gym_Subset);
  const ours = reg.datasets['graph_planner_repoenv'];
  assert.deepEqual(ours?.splits['val'], existing.datasets.graph_planner_repoenv.splits.val);
  assert.deepEqual(ours?.metadata, { source: 'old-source', description: 'new description' });
  assert.equal(registeredSplitSchema.parse(ours?.splits['train']).rows, 3);
});

test('registering the same name and split again replaces the file and its entry', async () => {
  const dir = tmp('replace');
  const root = join(dir, 'root');
  const first = await registerDataset(options(writeTasks(dir, [task('a'), task('b')], 'one.jsonl'), root, { source: 'first' }));
  const second = await registerDataset(options(writeTasks(dir, [task('c')], 'two.jsonl'), root));
  assert.equal(second.verlPath, first.verlPath);
  assert.notEqual(second.sha256, first.sha256);
  assert.deepEqual(
    (await rows(second.verlPath)).map((r) => r.extra_info.task_id),
    ['c'],
  );
  const reg = registry(root);
  assert.deepEqual(Object.keys(reg.datasets['graph_planner_repoenv']?.splits ?? {}), ['train']);
  const entry = registeredSplitSchema.parse(reg.datasets['graph_planner_repoenv']?.splits['train']);
  assert.equal(entry.rows, 1);
  assert.equal(entry.sha256, second.sha256);
  assert.deepEqual(reg.datasets['graph_planner_repoenv']?.metadata, { source: 'first' }, 'metadata given earlier is kept when none is given');
});

test('invalid rows are reported as file:line:col problems and nothing is written', async () => {
  const dir = tmp('invalid');
  const root = join(dir, 'root');
  mkdirSync(root);
  writeFileSync(join(root, 'registry.json'), JSON.stringify({ version: 2, datasets: {} }));
  const before = snapshot(root);
  const file = writeTasks(dir, [task('a'), '{"task_id": "b", ', task('c'), { task_id: 'd' }]);
  const error = await registerError(registerDataset(options(file, root)));
  assert.equal(error.code, 'dataset/invalid-tasks');
  assert.equal(error.problems.length, 2);
  assert.match(error.problems[0] ?? '', new RegExp(`^${file}:2:\\d+ invalid JSON`));
  assert.match(error.problems[1] ?? '', new RegExp(`^${file}:4:1 sandbox: `));
  assert.match(error.message, /gp dataset validate/);
  assert.deepEqual(snapshot(root), before);
});

test('a task_id used twice is reported with both lines and nothing is written', async () => {
  const dir = tmp('duplicate');
  const root = join(dir, 'root');
  const file = writeTasks(dir, [task('a'), task('b'), task('a'), task('c'), task('b')]);
  const error = await registerError(registerDataset(options(file, root)));
  assert.equal(error.code, 'dataset/duplicate-task-id');
  assert.deepEqual(
    error.problems.map((p) => p.replace(/;.*/, '')),
    [`${file}:3:1 task_id "a" is also the id of line 1`, `${file}:5:1 task_id "b" is also the id of line 2`],
  );
  assert.equal(existsSync(root), false);
});

test('a file without tasks, or one that does not exist, is refused', async () => {
  const dir = tmp('empty');
  const root = join(dir, 'root');
  const empty = await registerError(registerDataset(options(writeTasks(dir, ['', '  ']), root)));
  assert.equal(empty.code, 'dataset/empty');
  const missing = await registerError(registerDataset(options(join(dir, 'nope.jsonl'), root)));
  assert.equal(missing.code, 'dataset/unreadable-file');
  assert.match(missing.problems[0] ?? '', /nope\.jsonl:1:1 .*ENOENT/);
  assert.equal(existsSync(root), false);
});

test('a malformed registry.json is named with its line and column and nothing is written', async () => {
  const dir = tmp('malformed');
  const file = writeTasks(dir, [task('a')]);
  const cases: [string, string, RegExp][] = [
    ['syntax', '{\n  "version": 2,\n  "datasets": {,}\n}\n', /registry\.json:3:16 invalid JSON: Expected a property name/],
    ['v1', JSON.stringify({ some_dataset: { train: '/abs/train.parquet' } }, null, 2), /registry\.json:1:1 version: /],
    // A missing key is reported on its parent key, the way the task validator does it.
    [
      'no path',
      JSON.stringify({ version: 2, datasets: { x: { metadata: {}, splits: { train: { num_examples: 3 } } } } }, null, 2),
      /registry\.json:7:9 datasets\.x\.splits\.train\.path: /,
    ],
  ];
  for (const [label, text, problem] of cases) {
    const root = join(dir, label);
    mkdirSync(root);
    writeFileSync(join(root, 'registry.json'), text);
    const before = snapshot(root);
    const error = await registerError(registerDataset(options(file, root)));
    assert.equal(error.code, 'dataset/registry-malformed', label);
    assert.match(error.message, /fix it, or move it away/);
    assert.match(error.problems[0] ?? '', problem, label);
    assert.deepEqual(snapshot(root), before, `${label}: something was written`);
  }
});

test('a v1 registry gets the command that makes rLLM migrate it', async () => {
  const dir = tmp('v1');
  writeFileSync(join(dir, 'registry.json'), JSON.stringify({ some_dataset: { train: '/abs/train.parquet' } }));
  const error = await registerError(registerDataset(options(writeTasks(dir, [task('a')]), dir)));
  assert.match(error.message, /DatasetRegistry\.get_dataset_names\(\)/);
});

test('names and splits that are not plain path segments are refused before anything is read', async () => {
  const dir = tmp('names');
  const root = join(dir, 'root');
  const file = join(dir, 'does-not-exist.jsonl');
  for (const bad of [{ name: 'a/b' }, { name: '..' }, { split: '../train' }, { name: '' }, { split: 'tr ain' }]) {
    const error = await registerError(registerDataset(options(file, root, bad)));
    assert.equal(error.code, 'dataset/invalid-name', JSON.stringify(bad));
    assert.match(error.message, /letters, digits/);
  }
  assert.equal(existsSync(root), false);
});

test('a row that does not read back as written is refused: the new file is removed and the registered one and the registry stay', async () => {
  const dir = tmp('mismatch');
  const root = join(dir, 'root');
  const good = await registerDataset(options(writeTasks(dir, [task('a')], 'good.jsonl'), root));
  const before = snapshot(root);
  // A lone surrogate is valid in a JSON string but cannot be stored as UTF-8, so the id read
  // back is not the id written.
  const file = writeTasks(dir, [task('b'), '{"task_id": "bad\\ud800id", "sandbox": {"docker_image": "i", "workdir": "/w"}}'], 'bad.jsonl');
  const error = await registerError(registerDataset(options(file, root)));
  assert.equal(error.code, 'dataset/roundtrip-mismatch');
  assert.match(error.message, /^Row 1 \(task_id "bad\\ud800id"\) of .*train_verl\.parquet did not read back as written: extra_info\.task_id differs/);
  assert.deepEqual(error.problems, [`${file}:2:1 row 1 extra_info.task_id differs`]);
  assert.deepEqual(snapshot(root), before);
  assert.equal(createHash('sha256').update(readFileSync(good.verlPath)).digest('hex'), good.sha256);
});

test('a failed first registration leaves no folder behind', async () => {
  const dir = tmp('cleanup');
  const root = join(dir, 'root');
  const file = writeTasks(dir, ['{"task_id": "\\udc00", "sandbox": {"docker_image": "i", "workdir": "/w"}}']);
  const error = await registerError(registerDataset(options(file, root)));
  assert.equal(error.code, 'dataset/roundtrip-mismatch');
  assert.equal(existsSync(root), false);
});

test('temporary files of a registration that died are removed by the next one', async () => {
  const dir = tmp('stale');
  const root = join(dir, 'root');
  const folder = join(root, 'graph_planner_repoenv');
  mkdirSync(folder, { recursive: true });
  const dead = spawnSync(process.execPath, ['-e', '']).pid;
  const stale = [join(folder, `train_verl.parquet.tmp-${dead}-0a1b2c3d`), join(root, `registry.json.tmp-${dead}-0a1b2c3d`)];
  const live = join(folder, `train_verl.parquet.tmp-${process.pid}-0a1b2c3d`);
  for (const path of [...stale, live]) writeFileSync(path, 'partial');
  await registerDataset(options(writeTasks(dir, [task('a')]), root));
  assert.deepEqual(stale.filter(existsSync), []);
  assert.ok(existsSync(live), 'a temporary file of a live process was removed');
});

test('readVerlRows refuses a parquet file with other columns than the three rLLM writes', async () => {
  const path = join(tmp('foreign'), 'swebench.parquet');
  writeFixtureParquet(path, swebenchLiteRows().slice(0, 3), swebenchColumns);
  await assert.rejects(rows(path), (error: unknown) => {
    assert.ok(error instanceof VerlParquetError);
    assert.equal(error.code, 'verl/unexpected-columns');
    assert.match(error.message, /has the columns repo, instance_id, .*exactly prompt, reward_model, extra_info/);
    return true;
  });
  const notParquet = join(tmp('text'), 'x_verl.parquet');
  writeFileSync(notParquet, 'not parquet');
  await assert.rejects(rows(notParquet), (error: unknown) => error instanceof VerlParquetError && error.code === 'verl/unreadable');
});

test('registration makes the host paths of tasks absolute, because the registered copy lives in another folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-register-paths-'));
  const file = join(dir, 'tasks.jsonl');
  const task = {
    task_id: 'p',
    sandbox: {
      docker_image: 'img:1',
      workdir: '/testbed',
      local_repo: 'repo',
      r2e_ds_json: 'instances/p.json',
      mounts: ['data:/data:ro', { host: '/abs', container: '/x' }],
    },
  };
  writeFileSync(file, `${JSON.stringify(task)}\n`);
  const result = await registerDataset({ file, name: 'paths', split: 'train', root: join(dir, 'root') });
  const [row] = await rows(result.verlPath);
  const sandbox = (JSON.parse(row?.extra_info.task ?? '{}') as TaskEntry).sandbox;
  assert.equal(sandbox.local_repo, join(dir, 'repo'));
  assert.equal(sandbox.r2e_ds_json, join(dir, 'instances', 'p.json'));
  assert.deepEqual(sandbox.mounts, [`${join(dir, 'data')}:/data:ro`, { host: '/abs', container: '/x', mode: 'rw' }]);
});
