/**
 * The sample datasets are certified: `gp dataset verify` runs every sample task's tests with no
 * patch and with its gold patch, twice, two tasks at once, in each task's own image on the real
 * Docker daemon, and certifies each one; the certified copy it writes verifies again. The gold
 * predictions files are the samples' `gold.diff`s, checked here to stay so.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { taskVerdictSchema } from '../../server/src/protocol/verify.js';
import { loadTasks } from '../../server/src/tasks/index.js';
import { runGp } from '../support/cli.js';

const root = resolve(__dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'gp-verify-samples-'));
after(() => rmSync(work, { recursive: true, force: true }));

function verdicts(runDir: string): Map<string, string> {
  const lines = readFileSync(join(runDir, 'verdicts.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  return new Map(lines.map((l) => taskVerdictSchema.parse(JSON.parse(l))).map((v) => [v.task_id, v.status]));
}

test('the gold predictions of the samples are their gold.diff files', () => {
  const lines = readFileSync(join(root, 'datasets', 'gold_predictions_samples.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean);
  const gold = new Map(lines.map((l) => JSON.parse(l) as { instance_id: string; model_patch: string }).map((p) => [p.instance_id, p.model_patch]));
  assert.equal(gold.size, 7);
  for (const [id, patch] of gold) assert.equal(patch, readFileSync(join(root, 'docker', 'samples', id.replace(/^sample-/, ''), 'gold.diff'), 'utf8'), id);
});

test('datasets/samples.jsonl is certified in its images, twice over, and its certified copy verifies again', async () => {
  const runDir = join(work, 'samples');
  const out = join(work, 'certified', 'samples.jsonl');
  const r = await runGp(root, [
    'dataset',
    'verify',
    'datasets/samples.jsonl',
    '--backend',
    'docker',
    '--repeat',
    '2',
    '--parallel',
    '2',
    '--run-dir',
    runDir,
    '--out',
    out,
  ]);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /7 tasks verified \(7 certified\)/);
  assert.deepEqual([...new Set(verdicts(runDir).values())], ['certified']);
  const certified = await loadTasks(out);
  assert.deepEqual(certified.problems, []);
  assert.equal(certified.tasks.length, 7);
  assert.ok(certified.tasks.every((t) => t.task.certification?.status === 'certified' && t.task.certification.repeats === 2));
  const again = await runGp(root, [
    'dataset',
    'verify',
    out,
    '--gold',
    'datasets/gold_predictions_samples.jsonl',
    '--backend',
    'docker',
    '--run-dir',
    join(work, 'again'),
  ]);
  assert.equal(again.code, 0, `${again.out}\n${again.err}`);
});

test('datasets/sample/tasks.jsonl: its two graded tasks are certified on both backends; the task without test lists cannot be', async () => {
  for (const backend of ['docker', 'local']) {
    const runDir = join(work, `sample-${backend}`);
    const r = await runGp(root, ['dataset', 'verify', 'datasets/sample/tasks.jsonl', '--backend', backend, '--run-dir', runDir]);
    assert.equal(r.code, 1, `${r.out}\n${r.err}`);
    assert.deepEqual(
      Object.fromEntries(verdicts(runDir)),
      { 'sample-calc-add': 'certified', 'sample-calc-add-unittest': 'certified', 'sample-version': 'no-gold' },
      backend,
    );
  }
});
