/**
 * No false refusals: the gold patches of the sample datasets and of the 300 SWE-bench Lite rows in
 * test/fixtures are checked against the grader-surface rule (testing/graderSurface.ts) as each task
 * is converted (its test ids, its evaluation script with the test patch in it, its pythonpath),
 * with the shipped standard-library list and no repository listing (a module counts as new only
 * when the patch adds it). None that touches only source files may be refused; the counts by rule
 * are in docs/real-repositories.md#the-grader-facing-surface.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Conversion } from '../../server/src/datasets/conversion.js';
import { convertSwebenchRow } from '../../server/src/datasets/swebenchConvert.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import { graderFindingsOfPatch, graderTaskSurface, shippedFacts } from '../../server/src/testing/index.js';
import { swebenchLiteRows } from '../support/parquetFixtures.js';

const facts = shippedFacts('checked without an environment');
/** Files that are configuration or metadata, not source: a gold patch touching one may be refused and needs --allow-protected. */
const notSource =
  /(^|\/)(conftest\.py|setup\.cfg|pyproject\.toml|tox\.ini|\.?pytest\.ini|sitecustomize\.py|usercustomize\.py|entry_points\.txt)$|\.(dist-info|egg-info)(\/|$)|\.pth$/;

function task(c: Conversion) {
  if (c.kind !== 'task') return assert.fail(`expected a task, got a skip: ${c.reason}`);
  return taskEntrySchema.parse(c.task);
}

test('no gold patch of the 300 SWE-bench Lite rows that touches only source files is refused', () => {
  const rows = swebenchLiteRows();
  assert.equal(rows.length, 300);
  const refused: string[] = [];
  let protectedTests = 0;
  for (const row of rows) {
    const entry = task(convertSwebenchRow(row, { dataset: 'lite', split: 'test', place: 'fixture' }));
    const surface = graderTaskSurface(entry, row['test_patch'] as string);
    protectedTests += surface.testFiles.length;
    const findings = graderFindingsOfPatch(row['patch'] as string, surface, facts);
    for (const f of findings) if (!notSource.test(f.path)) refused.push(`${String(row['instance_id'])}: ${f.path} (${f.rule}) ${f.reason}`);
  }
  assert.deepEqual(refused, []);
  // The rule has something to protect in these tasks: the test files of every id style (Django's, sympy's, pytest's).
  assert.ok(protectedTests > 300, `${protectedTests} test files`);
});

test("every SWE-bench Lite test patch is refused as a candidate patch: it changes the task's own tests", () => {
  let caught = 0;
  const rows = swebenchLiteRows();
  for (const row of rows) {
    const entry = task(convertSwebenchRow(row, { dataset: 'lite', split: 'test', place: 'fixture' }));
    // Without the test patch given separately: the evaluation script (the test command) carries it.
    if (graderFindingsOfPatch(row['test_patch'] as string, graderTaskSurface(entry), facts).some((f) => f.rule === 'task-tests')) caught++;
  }
  assert.equal(caught, rows.length);
});

test('no gold patch of the sample datasets is refused', () => {
  let checked = 0;
  for (const [tasksFile, goldFile] of [
    ['datasets/samples.jsonl', 'datasets/gold_predictions_samples.jsonl'],
    ['datasets/sample/tasks.jsonl', 'datasets/sample/gold_predictions_tasks.jsonl'],
  ] as const) {
    const tasks = readFileSync(tasksFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => taskEntrySchema.parse(JSON.parse(l)));
    const golds = readFileSync(goldFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { instance_id: string; model_patch: string });
    for (const gold of golds) {
      const entry = tasks.find((t) => t.task_id === gold.instance_id);
      if (entry === undefined) continue;
      checked++;
      assert.deepEqual(graderFindingsOfPatch(gold.model_patch, graderTaskSurface(entry), facts), [], gold.instance_id);
    }
  }
  assert.equal(checked, 9, 'seven samples and two sample tasks');
});
