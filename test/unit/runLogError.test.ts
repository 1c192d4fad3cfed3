/** The first error of a run's output, shown when a launch ends before its run reports (issue 37). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstLogError } from '../../server/src/runs/runLogError.js';

const cwd = '/work/ws';

test('a task line printed as FILE:LINE:COL is the first error, placed at its zero-based line and column in the file resolved against the working folder', () => {
  const log =
    '\n# 2026-11-27T17:47:35Z launched from the editor in /work/ws:\n# gp rollout datasets/bad.jsonl\ndatasets/bad.jsonl:3:7 task_id: Invalid input\ndatasets/bad.jsonl:4:1 task_id: Invalid input\n';
  assert.deepEqual(firstLogError(log, cwd), {
    message: 'datasets/bad.jsonl:3:7 task_id: Invalid input',
    file: '/work/ws/datasets/bad.jsonl',
    line: 2,
    character: 6,
  });
});

test('a config warning printed with its place is passed over for the error after it', () => {
  const log = 'configs/a.yaml:2:3 warning preflight/x: a warning\nconfigs/a.yaml:9:5 error schema/unknown-key: planer_backend is not a key\n';
  assert.deepEqual(firstLogError(log, cwd), {
    message: 'configs/a.yaml:9:5 error schema/unknown-key: planer_backend is not a key',
    file: '/work/ws/configs/a.yaml',
    line: 8,
    character: 4,
  });
});

test('a place with a line and no column is placed at the line start; an absolute path stays as written', () => {
  assert.deepEqual(firstLogError('/data/t.jsonl:12: bad row\n', cwd), { message: '/data/t.jsonl:12: bad row', file: '/data/t.jsonl', line: 11, character: 0 });
});

test('a Python traceback gives its exception line, placed at its innermost frame', () => {
  const log =
    'starting trainer\nTraceback (most recent call last):\n  File "/py/a.py", line 10, in <module>\n    main()\n  File "/py/b.py", line 42, in main\n    raise ValueError("no GPU")\nValueError: no GPU\n';
  assert.deepEqual(firstLogError(log, cwd), { message: 'ValueError: no GPU', file: '/py/b.py', line: 41, character: 0 });
});

test('a line that says it is an error, with no place, comes before the last line', () => {
  assert.deepEqual(firstLogError('loading\ngp train: the config has errors; nothing was started.\nbye\n', cwd), {
    message: 'gp train: the config has errors; nothing was started.',
    file: null,
    line: null,
    character: null,
  });
  assert.deepEqual(firstLogError('Error: spawn python3 ENOENT\n', cwd)?.file, null);
});

test('without any error line the last line printed is the reason; an empty output has none', () => {
  assert.deepEqual(firstLogError('step 1\nKilled\n', cwd), { message: 'Killed', file: null, line: null, character: null });
  assert.equal(firstLogError('\n# only the editor header\n', cwd), null);
});
