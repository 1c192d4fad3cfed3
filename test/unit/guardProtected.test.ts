/**
 * Protected paths: a repair candidate that changes a file the grader depends on (a conftest.py
 * anywhere, the test settings, interpreter start-up hooks, the task's own test files) is refused
 * with the file named, as line edits and as a unified diff; `env.protected_paths: allow` lets it
 * through; ordinary code is never caught.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { guardDiff, guardEdits } from '../../server/src/env/index.js';
import { envOptionsFromConfig } from '../../server/src/launch/index.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';

const task = taskEntrySchema.parse({
  task_id: 'guarded',
  issue: { title: 'add is wrong', body: '' },
  sandbox: { workdir: '/testbed', local_repo: '.' },
  FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
  PASS_TO_PASS: ['tests/test_more.py::TestMore::test_mul'],
});
const refuse = envOptionsFromConfig(experimentConfigSchema.parse({}), task).guard;
const allow = envOptionsFromConfig(experimentConfigSchema.parse({ env: { protected_paths: 'allow' } }), task).guard;
const edit = (path: string) => [{ path, start: 1, end: 1, new_text: 'x = 1\n' }];
const diff = (path: string) => `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`;

test('changes to the files the grader depends on are refused, naming the file and why', () => {
  const cases: Array<[string, RegExp]> = [
    ['conftest.py', /pytest loads every conftest\.py/],
    ['src/pkg/conftest.py', /pytest loads every conftest\.py/],
    ['tox.ini', /pytest reads it as configuration/],
    ['setup.cfg', /pytest reads it as configuration/],
    ['lib/python3.11/site-packages/evil.pth', /import lines of a \.pth file at start-up/],
    ['sitecustomize.py', /imports it at start-up/],
    ['tests/test_calc.py', /the task's own tests/],
    ['tests/test_more.py', /the task's own tests/],
  ];
  for (const [path, why] of cases) {
    const fromEdits = guardEdits(edit(path), [], refuse);
    assert.equal(fromEdits?.code, 'protected-path', path);
    assert.match(fromEdits?.message ?? '', new RegExp(`${path.replace(/\./g, '\\.')} is protected`));
    assert.match(fromEdits?.message ?? '', why);
    assert.equal(guardDiff(diff(path), [], refuse)?.code, 'protected-path', `${path} as a diff`);
  }
});

test('ordinary code passes, and env.protected_paths: allow lets protected files through', () => {
  for (const path of ['app/calc.py', 'tests/helpers.py', 'src/conftest_utils.py']) {
    assert.equal(guardEdits(edit(path), [], refuse), undefined, path);
    assert.equal(guardDiff(diff(path), [], refuse), undefined, path);
  }
  assert.equal(guardEdits(edit('conftest.py'), [], allow), undefined);
  assert.equal(guardDiff(diff('tests/test_calc.py'), [], allow), undefined);
  // penalise lets it through too; the submit pays for it (test/integration/env.test.ts).
  const penalise = envOptionsFromConfig(experimentConfigSchema.parse({ env: { protected_paths: 'penalise' } }), task).guard;
  assert.equal(guardEdits(edit('conftest.py'), [], penalise), undefined);
  assert.equal(penalise.protectedPenalty, 1, 'the default penalty');
});
