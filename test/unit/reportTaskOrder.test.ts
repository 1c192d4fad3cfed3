import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReportTask } from '../../server/src/protocol/runReportView.js';
import { idPieces, nextSort, parseSort, sortTasks } from '../../webview/src/report/taskOrder.js';

const task = (taskId: string, graded: number, resolved: number, reward: number | null, reason: string | null = null): ReportTask => ({
  taskId,
  attempts: graded,
  graded,
  resolved,
  outcome: graded === 0 ? 'no-outcome' : resolved === graded ? 'resolved' : resolved === 0 ? 'unresolved' : 'mixed',
  reward,
  steps: reward === null ? null : 3,
  durationMs: reward === null ? null : 1000,
  failureReason: reason,
  episodes: [],
});

const tasks = [
  task('repo__x-10', 2, 1, 0.5, 'tests failed'),
  task('repo__x-9', 2, 2, 1),
  task('repo__x-100', 0, 0, null),
  task('repo__x-2', 2, 0, -1, 'hit the step limit'),
];

test('sorting by a number puts the largest first when descending and blanks last either way', () => {
  assert.deepEqual(
    sortTasks(tasks, { key: 'reward', direction: 'descending' }).map((t) => t.taskId),
    ['repo__x-9', 'repo__x-10', 'repo__x-2', 'repo__x-100'],
  );
  assert.deepEqual(
    sortTasks(tasks, { key: 'reward', direction: 'ascending' }).map((t) => t.taskId),
    ['repo__x-2', 'repo__x-10', 'repo__x-9', 'repo__x-100'],
  );
});

test('ids sort with their numbers as numbers, and outcome by the share resolved', () => {
  assert.deepEqual(
    sortTasks(tasks, { key: 'task', direction: 'ascending' }).map((t) => t.taskId),
    ['repo__x-2', 'repo__x-9', 'repo__x-10', 'repo__x-100'],
  );
  assert.deepEqual(
    sortTasks(tasks, { key: 'outcome', direction: 'descending' }).map((t) => t.outcome),
    ['resolved', 'mixed', 'unresolved', 'no-outcome'],
  );
  assert.deepEqual(
    sortTasks(tasks, { key: 'reason', direction: 'ascending' }).map((t) => t.failureReason),
    ['hit the step limit', 'tests failed', null, null],
  );
});

test('a click on the sorted column flips it; another column starts ascending', () => {
  assert.deepEqual(nextSort(null, 'steps'), { key: 'steps', direction: 'ascending' });
  assert.deepEqual(nextSort({ key: 'steps', direction: 'ascending' }, 'steps'), { key: 'steps', direction: 'descending' });
  assert.deepEqual(nextSort({ key: 'steps', direction: 'descending' }, 'time'), { key: 'time', direction: 'ascending' });
});

test('an id breaks only after its boundaries, and its pieces put back are the id', () => {
  assert.deepEqual(idPieces('django__django-11099'), ['django__', 'django-', '11099']);
  assert.deepEqual(idPieces('sympy__sympy-20590#3'), ['sympy__', 'sympy-', '20590#', '3']);
  assert.deepEqual(idPieces('a/b.c'), ['a/', 'b.', 'c']);
  assert.deepEqual(idPieces('snake_case_name'), ['snake_case_name'], 'a single underscore is inside a word');
  for (const id of ['x___y', '--a', 'plain']) assert.equal(idPieces(id).join(''), id);
});

test('a kept sort is read back, and anything else in the page state is no sort', () => {
  assert.deepEqual(parseSort({ key: 'reward', direction: 'descending' }), { key: 'reward', direction: 'descending' });
  for (const bad of [undefined, null, 'reward', { key: 'episodes', direction: 'ascending' }, { key: 'task', direction: 'up' }])
    assert.equal(parseSort(bad), null);
});
