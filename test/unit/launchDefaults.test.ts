/**
 * The defaults and the offers of a launch (issue 37, extension/src/launchDefaults.ts): the
 * experiment is the open one, else the last launched, else the sample; the dataset is the one the
 * experiment names and follows it; fixtures are never offered; counts read as a person reads them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  datasetOfExperiment,
  datasetsAfterExperimentChange,
  defaultExperiment,
  experimentDescription,
  isTestFixture,
  offeredFiles,
  taskCount,
  type DatasetFile,
} from '../../extension/src/launchDefaults.js';

const root = '/work/clone';
const file = (rel: string) => ({ path: `${root}/${rel}`, rel });
const dataset = (rel: string, tasks: number, invalid = 0): DatasetFile => ({ ...file(rel), tasks, invalid });

const experiments = [
  file('configs/experiments/embedded_model.yaml'),
  file('configs/experiments/planner_8g.yaml'),
  file('configs/experiments/sample.yaml'),
  file('test/e2e/fixtures/workbench/configs/experiments/sample.yaml'),
];

void describe('the experiment a launch starts from', () => {
  test('is the experiment open in the editor, even when another was launched last', () => {
    assert.equal(
      defaultExperiment(offeredFiles(experiments), `${root}/configs/experiments/planner_8g.yaml`, `${root}/configs/experiments/sample.yaml`),
      `${root}/configs/experiments/planner_8g.yaml`,
    );
  });

  test('is the last launched with no editor open', () => {
    assert.equal(
      defaultExperiment(offeredFiles(experiments), undefined, `${root}/configs/experiments/embedded_model.yaml`),
      `${root}/configs/experiments/embedded_model.yaml`,
    );
  });

  test('is the sample, not the first alphabetically, when nothing was launched or the last one is gone', () => {
    assert.equal(defaultExperiment(offeredFiles(experiments), undefined, undefined), `${root}/configs/experiments/sample.yaml`);
    assert.equal(
      defaultExperiment(offeredFiles(experiments), undefined, `${root}/configs/experiments/deleted.yaml`),
      `${root}/configs/experiments/sample.yaml`,
    );
  });

  test('is the shallowest sample when there are several, and the first offered when there is none', () => {
    const two = [file('configs/a/b/sample.yaml'), file('configs/sample.yml'), file('configs/z.yaml')];
    assert.equal(defaultExperiment(two, undefined, undefined), `${root}/configs/sample.yml`);
    assert.equal(
      defaultExperiment(
        [file('configs/b.yaml'), file('configs/a.yaml')].sort((a, b) => a.rel.localeCompare(b.rel)),
        undefined,
        undefined,
      ),
      `${root}/configs/a.yaml`,
    );
    assert.equal(defaultExperiment([], undefined, undefined), undefined);
  });
});

void describe('test fixtures', () => {
  test('are files under a test, tests, fixtures, __fixtures__ or testdata folder of the workspace', () => {
    for (const rel of [
      'test/e2e/fixtures/workbench/datasets/sample/tasks.jsonl',
      'tests/data/datasets/a.jsonl',
      'pkg/__fixtures__/datasets/a.jsonl',
      'go/testdata/configs/x.yaml',
      'Fixtures\\datasets\\a.jsonl',
    ]) {
      assert.equal(isTestFixture(rel), true, rel);
    }
  });

  test('are not files whose own name only looks like one, nor a workspace that is itself a fixture', () => {
    for (const rel of ['datasets/test.jsonl', 'datasets/sample/tasks.jsonl', 'configs/experiments/testing.yaml', 'datasets/latest/a.jsonl']) {
      assert.equal(isTestFixture(rel), false, rel);
    }
  });

  test('are never offered, unless already chosen, and the offer is sorted by path', () => {
    const listed = [
      dataset('test/e2e/fixtures/workspace/datasets/tasks.jsonl', 3),
      dataset('datasets/samples.jsonl', 7),
      dataset('datasets/sample/tasks.jsonl', 3),
    ];
    assert.deepEqual(
      offeredFiles(listed).map((f) => f.rel),
      ['datasets/sample/tasks.jsonl', 'datasets/samples.jsonl'],
    );
    assert.deepEqual(
      offeredFiles(listed, [`${root}/test/e2e/fixtures/workspace/datasets/tasks.jsonl`]).map((f) => f.rel),
      ['datasets/sample/tasks.jsonl', 'datasets/samples.jsonl', 'test/e2e/fixtures/workspace/datasets/tasks.jsonl'],
    );
  });
});

void describe('the dataset of an experiment', () => {
  // The server's list, as the Tasks view gets it: gold-prediction files are not in it.
  const listed = [dataset('datasets/sample/tasks.jsonl', 3), dataset('datasets/samples.jsonl', 7)];

  test('is the listed file its paths.dataset_train names, relative to the launch folder or absolute', () => {
    assert.equal(datasetOfExperiment('datasets/sample/tasks.jsonl', root, listed)?.rel, 'datasets/sample/tasks.jsonl');
    assert.equal(datasetOfExperiment('./datasets/../datasets/samples.jsonl', root, listed)?.rel, 'datasets/samples.jsonl');
    assert.equal(datasetOfExperiment(`${root}/datasets/samples.jsonl`, '/elsewhere', listed)?.rel, 'datasets/samples.jsonl');
  });

  test('is none for the defaults placeholder that does not exist, for a gold-prediction file and for no path', () => {
    assert.equal(datasetOfExperiment('datasets/r2e_gym/train.jsonl', root, listed), undefined);
    assert.equal(datasetOfExperiment('datasets/gold_predictions_samples.jsonl', root, listed), undefined);
    assert.equal(datasetOfExperiment(undefined, root, listed), undefined);
  });

  test('replaces the datasets when the new experiment names one, and leaves them when it names none', () => {
    const samples = listed[1];
    assert.ok(samples !== undefined);
    assert.deepEqual(datasetsAfterExperimentChange([`${root}/datasets/sample/tasks.jsonl`], samples), [`${root}/datasets/samples.jsonl`]);
    assert.deepEqual(datasetsAfterExperimentChange([`${root}/datasets/sample/tasks.jsonl`], undefined), [`${root}/datasets/sample/tasks.jsonl`]);
    assert.deepEqual(datasetsAfterExperimentChange([], undefined), []);
  });
});

void describe('counts in the pickers', () => {
  test('say tasks in the singular and plural, with invalid lines only when there are some', () => {
    assert.equal(taskCount({ tasks: 3, invalid: 0 }), '3 tasks');
    assert.equal(taskCount({ tasks: 1, invalid: 0 }), '1 task');
    assert.equal(taskCount({ tasks: 0, invalid: 1 }), '0 tasks · 1 invalid line');
    assert.equal(taskCount({ tasks: 499, invalid: 2 }), '499 tasks · 2 invalid lines');
  });

  test('describe an experiment by the dataset it names and its count, or say it names none here', () => {
    assert.equal(experimentDescription(dataset('datasets/sample/tasks.jsonl', 3)), 'datasets/sample/tasks.jsonl · 3 tasks');
    assert.equal(experimentDescription(undefined), 'names no dataset in this workspace');
  });
});
