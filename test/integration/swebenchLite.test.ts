/**
 * Real SWE-bench Lite instances of the test split, certified with no hand work: three Flask
 * instances (test/fixtures/swebench-lite/, rebuilt from PyPI sdists into one clone holding their
 * real base commits), turned into tasks by `gp dataset prepare --repos` with environments from
 * SWE-bench's own specification tables only (no python_env written by hand), built by
 * `gp env build`, and certified by `gp dataset verify` on the local backend. Every kept log is then
 * graded again by SWE-bench's own harness code (swebench 5.0.2, pinned by hash,
 * `swebench-lite/harness_grade.py`), which must give the same resolution as our verdicts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { taskVerdictSchema, type TaskVerdict } from '../../server/src/protocol/verify.js';
import { loadTasks } from '../../server/src/tasks/index.js';
import { runGp } from '../support/cli.js';
import { runHarnessScript } from '../support/swebenchHarness.js';

const root = resolve(__dirname, '..', '..');
const fixtures = join(root, 'test', 'fixtures', 'swebench-lite');
const work = mkdtempSync(join(tmpdir(), 'gp-swebench-lite-'));
after(() => rmSync(work, { recursive: true, force: true }));

let reposDir = '';
let tasksFile = '';
const prepared = join(work, 'prepared');
const runDir = join(work, 'verify');

before(() => {
  // One clone, pallets__flask, holding the three base commits and 4045's environment setup commit.
  const built = execFileSync(process.execPath, [join(root, 'test', 'integration', 'swebench-lite', 'build-repos.mjs'), '--clone', '--json'], {
    encoding: 'utf8',
  });
  reposDir = (JSON.parse(built) as { clones: { repos_dir: string }[] }).clones[0]?.repos_dir ?? '';
  assert.ok(existsSync(join(reposDir, 'pallets__flask', '.git')), built);
});

test('gp dataset prepare makes the Lite rows tasks with environments from the specification tables alone', async () => {
  const r = await runGp(root, ['dataset', 'prepare', 'swebench', '--from', join(fixtures, 'instances.jsonl'), '--repos', reposDir, '--out', prepared]);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  tasksFile = join(prepared, 'test.jsonl');
  const loaded = await loadTasks(tasksFile);
  assert.deepEqual(loaded.problems, []);
  assert.deepEqual(
    loaded.tasks.map((t) => t.task.task_id),
    ['pallets__flask-4045', 'pallets__flask-4992', 'pallets__flask-5063'],
  );
  for (const { task } of loaded.tasks) {
    assert.match(task.sandbox.python_env?.source ?? '', /^swebench==4\.1\.0 pallets\/flask 2\.[03]$/, task.task_id);
    assert.equal(task.sandbox.local_repo, join(reposDir, 'pallets__flask'));
    assert.ok(
      (task.sandbox.python_env?.setup ?? []).some((step) => step.includes('pip install -e .')),
      `${task.task_id} installs the repository as the harness does`,
    );
  }
  assert.ok(existsSync(join(prepared, 'gold_predictions_test.jsonl')));
});

test('gp env build builds each specification once', async () => {
  const r = await runGp(root, ['env', 'build', tasksFile]);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
});

test("gp dataset verify certifies all three, and SWE-bench's own grading of every kept log agrees", async () => {
  const r = await runGp(root, ['dataset', 'verify', tasksFile, '--backend', 'local', '--run-dir', runDir]);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  const verdicts: TaskVerdict[] = readFileSync(join(runDir, 'verdicts.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => taskVerdictSchema.parse(JSON.parse(l)));
  assert.deepEqual(verdicts.map((v) => [v.task_id, v.status]).sort(), [
    ['pallets__flask-4045', 'certified'],
    ['pallets__flask-4992', 'certified'],
    ['pallets__flask-5063', 'certified'],
  ]);
  // The reference: the harness's parser and grading over the very logs our verdicts came from.
  const requests = verdicts.flatMap((v) => v.runs.map((run) => ({ instance_id: v.task_id, log: join(runDir, run.logPath ?? ''), ours: run.resolution })));
  assert.equal(requests.length, 6);
  const graded = runHarnessScript(
    join(root, 'test', 'integration', 'swebench-lite', 'harness_grade.py'),
    [join(fixtures, 'instances.jsonl')],
    requests.map((q) => JSON.stringify(q)).join('\n'),
  );
  const answers = graded
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { log: string; resolution: string });
  assert.equal(answers.length, requests.length);
  for (const q of requests) {
    const answer = answers.find((a) => a.log === q.log);
    assert.equal(answer?.resolution, q.ours, `${q.instance_id} ${q.log}: the harness says ${answer?.resolution}, we said ${q.ours}`);
  }
  assert.ok(readdirSync(join(runDir, 'tests')).length >= 6);
});
