/**
 * A run that cannot be graded says how its output ended (testing/runTests.ts `lastWords`): the
 * line that usually says why, escaped and cut, since it is the task's text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gradeTask, lastWords } from '../../server/src/testing/runTests.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';

test('the last line that is not a marker, with control characters escaped and a long line cut', () => {
  assert.equal(
    lastWords('>>>>> Start Test Output\n>>>>> End Test Output\n>>>>> Test Exit Code: 1\n/r/.tox/py39/bin/python: No module named pytest\n\n'),
    '; the output ends: "/r/.tox/py39/bin/python: No module named pytest"',
  );
  assert.equal(lastWords('boom \u001b[2J\u0007\n'), '; the output ends: "boom \\x1b[2J\\x07"');
  assert.match(lastWords(`${'x'.repeat(500)}\n`), /^; the output ends: "x{200}…"$/);
  assert.equal(lastWords('\n>>>>> End Test Output\n'), '');
});

test("a SWE-bench grade that is not gradable ends its reason with the output's last line", () => {
  const task = taskEntrySchema.parse({
    task_id: 't',
    repo: 'sphinx-doc/sphinx',
    sandbox: { local_repo: '/r', workdir: '/w', test_command: 'tox --current-env -epy39 -v -- tests/test_x.py' },
    FAIL_TO_PASS: ['tests/test_x.py::test_a'],
    PASS_TO_PASS: [],
  });
  const output = '>>>>> Start Test Output\npy39: exit 1\n>>>>> End Test Output\n>>>>> Test Exit Code: 1\n/r/.tox/py39/bin/python: No module named pytest\n';
  const grade = gradeTask(task, { output, exitCode: 1, command: 'tox --current-env -epy39 -v -- tests/test_x.py' }, '');
  assert.equal(grade.kind, 'invalid');
  if (grade.kind === 'invalid') assert.match(grade.reason, /; the output ends: "\/r\/\.tox\/py39\/bin\/python: No module named pytest"$/);
});
