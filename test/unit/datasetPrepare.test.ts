import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../server/src/cli/main.js';
import { readManifest } from '../../server/src/datasets/manifest.js';
import { prepareDataset, type PrepareOptions } from '../../server/src/datasets/prepare.js';
import { idFraction } from '../../server/src/datasets/stableIds.js';
import { instanceFileSchema, prepareReportSchema } from '../../server/src/protocol/datasetPrepare.js';
import { validateJsonlFile } from '../../server/src/tasks/index.js';
import { r2eColumns, r2eShapedRows, swebenchColumns, swebenchLiteRows, writeFixtureParquet } from '../support/parquetFixtures.js';
import { fixturePath, swebenchVerifiedFixture } from '../support/fixtures.js';

function tmp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `gp-prepare-${prefix}-`));
}

function jsonLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function options(kind: PrepareOptions['kind'], sources: string[], outDir: string, extra: Partial<PrepareOptions> = {}): PrepareOptions {
  return { kind, dataset: 'test/ds', requestedSplit: 'test', effectiveSplit: 'test', sources, outDir, splitRule: { kind: 'none' }, ...extra };
}

function noStaging(dir: string): void {
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.startsWith('.prepare-')),
    [],
    'a staging folder was left behind',
  );
}

let liteParquet: string | undefined;
function lite(): string {
  if (liteParquet === undefined) {
    liteParquet = join(tmp('lite'), 'test-00000-of-00001.parquet');
    writeFixtureParquet(liteParquet, swebenchLiteRows(), swebenchColumns, { rowGroupSize: 50 });
  }
  return liteParquet;
}

test('prepares the 300 SWE-bench Lite rows from parquet: tasks, instance files, a build-only manifest, gold predictions apart and a report', async () => {
  const out = tmp('swe');
  const report = await prepareDataset(options('swebench', [lite()], out));
  assert.equal(report.rows_read, 300);
  assert.equal(report.converted, 300);
  assert.equal(report.skipped, 0);
  const tasks = jsonLines(join(out, 'test.jsonl'));
  assert.equal(tasks.length, 300);
  const validated = await validateJsonlFile(join(out, 'test.jsonl'));
  assert.equal(validated.summary.errors, 0);
  assert.equal(validated.summary.tasks, 300);
  const manifest = await readManifest(join(out, 'docker_images_test.txt'));
  assert.equal(manifest.images.length, 300);
  assert.equal(manifest.buildOnly.length, 300);
  const source = new Map(swebenchLiteRows().map((r) => [r['instance_id'] as string, r]));
  const gold = jsonLines(join(out, 'gold_predictions_test.jsonl'));
  assert.equal(gold.length, 300);
  for (const g of gold) assert.equal(g['model_patch'], source.get(g['instance_id'] as string)?.['patch']);
  const instances = readdirSync(join(out, 'instances'));
  assert.equal(instances.length, 300);
  for (const name of instances.slice(0, 25)) {
    const instance = instanceFileSchema.parse(JSON.parse(readFileSync(join(out, 'instances', name), 'utf8')));
    assert.equal(instance.base_commit, source.get(instance.task_id)?.['base_commit']);
    assert.match(instance.source.place, /test-00000-of-00001\.parquet row \d+/);
  }
  assert.deepEqual(prepareReportSchema.parse(JSON.parse(readFileSync(join(out, 'prepare_report.json'), 'utf8'))), report);
  noStaging(out);
});

test('prepares the 499 original-format SWE-bench Verified tasks from JSONL and counts what it changed', async () => {
  const out = tmp('verified');
  const report = await prepareDataset(options('swebench', [fixturePath(swebenchVerifiedFixture)], out));
  assert.equal(report.converted, 499);
  assert.equal(report.skipped, 0);
  assert.equal(report.notes['workdir-replaced'], 499);
  assert.equal(report.notes['no-gold-lists'], 499);
  assert.equal(existsSync(join(out, 'gold_predictions_test.jsonl')), false, 'no gold patches, so no predictions file');
  const validated = await validateJsonlFile(join(out, 'test.jsonl'));
  assert.equal(validated.summary.errors, 0);
  assert.equal(validated.summary.warnings, 0, 'the workdir warning the original rows get is gone');
});

/** 200 R2E-shaped rows: 7 without an image, and rows 10 and 11 repeated at the end. */
function r2eFixture(): { file: string; rows: Record<string, unknown>[] } {
  const rows = r2eShapedRows(200).map((r, i) => (i % 29 === 3 ? { ...r, docker_image: null } : r));
  rows.push(rows[10] ?? {}, rows[11] ?? {});
  const file = join(tmp('r2e-src'), 'train-00000-of-00001.parquet');
  writeFixtureParquet(file, rows, r2eColumns, { rowGroupSize: 64 });
  return { file, rows };
}

test('R2E-Gym: rows without an image and repeated rows are skipped and counted with their places; validation is drawn by id hash', async () => {
  const { file } = r2eFixture();
  const out = tmp('r2e');
  const report = await prepareDataset(
    options('r2e-gym', [file], out, { splitRule: { kind: 'fraction', fraction: 0.25 }, requestedSplit: 'train', effectiveSplit: 'train' }),
  );
  assert.equal(report.rows_read, 202);
  assert.equal(report.skipped_by_reason['missing-image'], 7);
  assert.equal(report.skipped_by_reason['duplicate-id'], 2);
  assert.equal(report.converted, 193);
  const dup = report.skipped_examples.find((e) => e.reason === 'duplicate-id');
  assert.match(dup?.place ?? '', /row 200 \(row group 3\)/);
  assert.match(dup?.message ?? '', /row 10 /);
  const train = jsonLines(join(out, 'train.jsonl'));
  const val = jsonLines(join(out, 'val.jsonl'));
  assert.equal(train.length + val.length, 193);
  for (const t of val) assert.ok(idFraction(t['task_id'] as string) < 0.25);
  for (const t of train) assert.ok(idFraction(t['task_id'] as string) >= 0.25);
  assert.ok(val.every((t) => t['split'] === 'val') && train.every((t) => t['split'] === 'train'));
  const all = await readManifest(join(out, 'docker_images.txt'));
  assert.equal(all.images.length, 193);
  assert.equal((await readManifest(join(out, 'docker_images_val.txt'))).images.length, val.length);
});

test('changing the validation size never renames a task, and a larger size only moves tasks from train to validation', async () => {
  const { file } = r2eFixture();
  const run = async (size: number) => {
    const out = tmp(`size-${size}`);
    await prepareDataset(options('r2e-gym', [file], out, { splitRule: { kind: 'size', size } }));
    const ids = (name: string) => new Set(jsonLines(join(out, `${name}.jsonl`)).map((t) => t['task_id'] as string));
    return { train: ids('train'), val: ids('val') };
  };
  const small = await run(20);
  const large = await run(50);
  assert.equal(small.val.size, 20);
  assert.equal(large.val.size, 50);
  assert.deepEqual(new Set([...small.train, ...small.val]), new Set([...large.train, ...large.val]));
  for (const id of small.val) assert.ok(large.val.has(id));
  for (const id of large.train) assert.ok(small.train.has(id));
});

test('limits: --limit stops after N tasks, the split limits cap each split', async () => {
  const { file } = r2eFixture();
  const out = tmp('limits');
  const report = await prepareDataset(
    options('r2e-gym', [file], out, { splitRule: { kind: 'fraction', fraction: 0.3 }, limit: 60, trainLimit: 10, valLimit: 3 }),
  );
  assert.equal(report.converted, 60);
  assert.deepEqual(
    report.outputs.map((o) => o.rows),
    [10, 3],
  );
  assert.equal(readdirSync(join(out, 'instances')).length, 13, 'only the kept tasks get instance files');
});

test('bad JSONL rows are skipped with their reason and line: invalid JSON, an array, non-UTF-8 bytes, a repeated id', async () => {
  const dir = tmp('bad-jsonl');
  const file = join(dir, 'rows.jsonl');
  const [a, b] = swebenchLiteRows();
  const lines = [JSON.stringify(a), '{"instance_id": "x", ', JSON.stringify([a]), JSON.stringify(a), JSON.stringify(b)];
  const bytes = Buffer.concat([
    Buffer.from(`${lines.slice(0, 3).join('\n')}\n`),
    Buffer.from('{"instance_id": "caf'),
    Buffer.from([0xe9]),
    Buffer.from('"}\n'),
    Buffer.from(`${lines.slice(3).join('\n')}\n`),
  ]);
  writeFileSync(file, bytes);
  const out = tmp('bad-jsonl-out');
  const report = await prepareDataset(options('swebench', [file], out));
  assert.equal(report.converted, 2);
  assert.deepEqual(report.skipped_by_reason, { 'invalid-json': 1, 'not-an-object': 1, 'non-utf8': 1, 'duplicate-id': 1 });
  const places = Object.fromEntries(report.skipped_examples.map((e) => [e.reason, e.place]));
  assert.match(places['invalid-json'] ?? '', new RegExp(`^${file}:2:\\d+$`));
  assert.match(places['not-an-object'] ?? '', new RegExp(`^${file}:3(:1)?$`));
  assert.match(places['non-utf8'] ?? '', new RegExp(`^${file}:4:\\d+$`));
  assert.match(places['duplicate-id'] ?? '', new RegExp(`^${file}:5`));
});

test('a truncated parquet file stops the run with its name, and the outputs of an earlier run are left as they were', async () => {
  const out = tmp('truncated');
  await prepareDataset(options('swebench', [lite()], out));
  const before = readFileSync(join(out, 'test.jsonl'));
  const cut = join(tmp('cut'), 'cut.parquet');
  copyFileSync(lite(), cut);
  truncateSync(cut, Math.floor(readFileSync(cut).length / 2));
  await assert.rejects(prepareDataset(options('swebench', [cut], out)), (error: Error) => {
    assert.match(error.message, /cut\.parquet/);
    assert.match(error.message, /truncated|not a parquet|re-download/i);
    return true;
  });
  assert.deepEqual(readFileSync(join(out, 'test.jsonl')), before);
  noStaging(out);
});

test('a parquet file without the columns the kind needs is refused, naming what it lacks and what it has', async () => {
  const file = join(tmp('cols'), 'other.parquet');
  writeFixtureParquet(
    file,
    [{ repo: 'a/b', version: '1.0' }],
    [
      { name: 'repo', type: 'STRING' },
      { name: 'version', type: 'STRING' },
    ],
  );
  const out = tmp('cols-out');
  await assert.rejects(prepareDataset(options('swebench', [file], out)), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'dataset/missing-columns');
    assert.match(error.message, /other\.parquet: this parquet file lacks one of `instance_id`, `task_id`, `id` and one of `problem_statement`/);
    assert.match(error.message, /its columns are `repo`, `version`/);
    return true;
  });
  assert.deepEqual(readdirSync(out), []);
});

test('an aborted run writes nothing', async () => {
  const out = tmp('abort');
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(prepareDataset(options('swebench', [lite()], out, { signal: controller.signal })), /interrupted/);
  assert.deepEqual(readdirSync(out), []);
});

test('gp dataset prepare swebench --from prints what it wrote and what it skipped', async () => {
  const out = tmp('cli');
  const lines: string[] = [];
  const errs: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => errs.push(l) };
  const code = await runCli(['dataset', 'prepare', 'swebench', '--from', lite(), '--out', out, '--limit', '40'], io, process.cwd());
  assert.equal(code, 0, errs.join('\n'));
  assert.equal(lines[0], 'Read 40 rows: 40 converted, 0 skipped.');
  assert.ok(
    lines.some((l) => l.startsWith(`Wrote ${join(out, 'test.jsonl')} (40 tasks) and ${join(out, 'docker_images_test.txt')} (40 images, 40 build-only).`)),
  );
  mkdirSync(join(out, 'x'), { recursive: true });
  assert.equal(await runCli(['dataset', 'prepare', 'nope'], io, process.cwd()), 2);
  assert.ok(errs.some((l) => l.includes('name the dataset kind: r2e-gym, swebench or harbor, not "nope"')));
  assert.equal(await runCli(['dataset', 'prepare', 'r2e-gym', '--val-size', '3', '--no-val', '--from', lite()], io, process.cwd()), 2);
});

test('gp dataset register takes what prepare wrote, and every row reads back with its instance file path made absolute', async () => {
  const out = tmp('reg');
  const io = { out: (_l: string) => undefined, err: (_l: string) => undefined };
  assert.equal(await runCli(['dataset', 'prepare', 'swebench', '--from', lite(), '--out', out, '--limit', '12'], io, process.cwd()), 0);
  const lines: string[] = [];
  const errs: string[] = [];
  const root = join(out, 'registry');
  const code = await runCli(
    ['dataset', 'register', join(out, 'test.jsonl'), '--name', 'lite', '--split', 'eval', '--root', root],
    { out: (l) => lines.push(l), err: (l) => errs.push(l) },
    process.cwd(),
  );
  assert.equal(code, 0, errs.join('\n'));
  assert.equal(lines[0], 'Registered lite/eval: 12 rows, every one read back and checked.');
  const { readVerlRows } = await import('../../server/src/datasets/register.js');
  let n = 0;
  for await (const row of readVerlRows(join(root, 'lite', 'eval_verl.parquet'))) {
    const task = JSON.parse(row.extra_info.task) as { sandbox: { r2e_ds_json: string } };
    assert.ok(existsSync(task.sandbox.r2e_ds_json), task.sandbox.r2e_ds_json);
    n++;
  }
  assert.equal(n, 12);
  assert.equal(
    await runCli(
      ['dataset', 'register', join(out, 'test.jsonl'), '--name', 'a/b', '--split', 'eval', '--root', root],
      { out: () => undefined, err: (l) => errs.push(l) },
      process.cwd(),
    ),
    1,
  );
  assert.ok(errs.includes('Nothing was written.'));
});

test('gp dataset prepare --env-specs: Lite rows get environments from spec rows; a file that is not JSONL is refused by line and nothing is written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-env-specs-'));
  const lite = join(dir, 'lite.jsonl');
  const rows = swebenchLiteRows().slice(0, 20);
  writeFileSync(lite, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const first = rows[0] ?? {};
  const matching = rows.filter((r) => r['repo'] === first['repo'] && r['version'] === first['version']).length;
  const specs = join(dir, 'specs.jsonl');
  const spec = {
    repo: first['repo'],
    version: first['version'],
    env_script_list: ['conda create -n testbed python=3.9 -y', 'python -m pip install numpy==1.25.2 pytest==7.4.0'],
  };
  writeFileSync(specs, `${JSON.stringify({ task_id: 'x', sandbox: { swebench_spec: spec } })}\n`);
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  const code = await runCli(['dataset', 'prepare', 'swebench', '--from', lite, '--env-specs', specs, '--out', join(dir, 'out'), '--no-val'], io, dir);
  assert.equal(code, 0, err.join('\n'));
  assert.match(err.join('\n'), /1 environment by repository and version from .*specs\.jsonl/);
  type Env = { python?: string; packages: string[]; source?: string };
  const tasks = readFileSync(join(dir, 'out', 'test.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { repo: string; sandbox: { python_env?: Env } });
  const fromFile = tasks.filter((t) => t.sandbox.python_env?.packages.join(' ') === 'numpy==1.25.2 pytest==7.4.0');
  assert.ok(matching > 0);
  assert.equal(fromFile.length, matching, 'exactly the rows of that repository and version, whatever the tables say');
  assert.equal(fromFile[0]?.sandbox.python_env?.python, '3.9');
  // The other rows get theirs from SWE-bench's specification tables, or none with the reason.
  const others = tasks.filter((t) => !fromFile.includes(t));
  for (const t of others) if (t.sandbox.python_env !== undefined) assert.match(t.sandbox.python_env.source ?? '', /^swebench==4\.1\.0 /);
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"ok": 1}\n{broken\n');
  err.length = 0;
  const refused = await runCli(['dataset', 'prepare', 'swebench', '--from', lite, '--env-specs', bad, '--out', join(dir, 'out2'), '--no-val'], io, dir);
  assert.notEqual(refused, 0);
  assert.match(err.join('\n'), /bad\.jsonl:2:1 invalid JSON/);
  assert.equal(existsSync(join(dir, 'out2', 'test.jsonl')), false);
});

test('gp dataset prepare --from labels rows by their file unless --dataset names them, and an --env-specs file that matches no row says so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-prepare-labels-'));
  const lite = join(dir, 'my-lite-rows.jsonl');
  const rows = swebenchLiteRows().slice(0, 5);
  writeFileSync(lite, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const specs = join(dir, 'specs.jsonl');
  writeFileSync(
    specs,
    `${JSON.stringify({ task_id: 'x', sandbox: { swebench_spec: { repo: 'nobody/nothing', version: '0.0', env_script_list: ['python -m pip install pytest==7.4.0'] } } })}\n`,
  );
  const err: string[] = [];
  const io = { out: (_l: string) => undefined, err: (l: string) => err.push(l) };
  assert.equal(
    await runCli(['dataset', 'prepare', 'swebench', '--from', lite, '--env-specs', specs, '--out', join(dir, 'out'), '--no-val'], io, dir),
    0,
    err.join('\n'),
  );
  const sources = readFileSync(join(dir, 'out', 'test.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { data_source: string }).data_source);
  assert.deepEqual([...new Set(sources)], ['local/my-lite-rows'], 'not labelled as SWE-bench Verified');
  assert.match(err.join('\n'), /warning: --env-specs .*specs\.jsonl matched none of the 5 converted rows/);
  assert.equal(
    await runCli(
      ['dataset', 'prepare', 'swebench', '--from', lite, '--dataset', 'princeton-nlp/SWE-bench_Lite', '--out', join(dir, 'named'), '--no-val'],
      io,
      dir,
    ),
    0,
  );
  const named = readFileSync(join(dir, 'named', 'test.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { data_source: string }).data_source);
  assert.deepEqual([...new Set(named)], ['princeton-nlp/SWE-bench_Lite']);
});

test('gp dataset prepare --repos points each task at its repository’s clone, and counts the rows whose clone is missing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-prepare-repos-'));
  const lite = join(dir, 'lite.jsonl');
  const rows = swebenchLiteRows().slice(0, 8);
  writeFileSync(lite, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const repo = String(rows[0]?.['repo'] ?? '');
  const [owner = '', name = ''] = repo.split('/');
  // Only the first row's repository has a clone, named as SWE-bench names it.
  mkdirSync(join(dir, 'clones', `${owner}__${name}`, '.git'), { recursive: true });
  const out: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (_l: string) => undefined };
  assert.equal(await runCli(['dataset', 'prepare', 'swebench', '--from', lite, '--repos', 'clones', '--out', join(dir, 'out'), '--no-val'], io, dir), 0);
  const tasks = readFileSync(join(dir, 'out', 'test.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { repo: string; sandbox: { local_repo?: string } });
  const cloned = tasks.filter((t) => t.repo === repo);
  assert.ok(cloned.length > 0 && cloned.every((t) => t.sandbox.local_repo === join(dir, 'clones', `${owner}__${name}`)));
  const others = tasks.filter((t) => t.repo !== repo);
  assert.ok(
    others.every((t) => t.sandbox.local_repo === undefined),
    'no clone, no local_repo',
  );
  assert.ok(
    out.some((l) => l === `  note ${cloned.length} × local-repo-from-repos`),
    out.join('\n'),
  );
  if (others.length > 0)
    assert.ok(
      out.some((l) => l === `  note ${others.length} × local-repo-missing`),
      out.join('\n'),
    );
});
