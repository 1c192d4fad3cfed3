/**
 * The one name of an episode and the order episodes are listed in (protocol/episodeName.ts), which
 * the Runs view, the viewer's tab, the Compare picker, the group view, the Containers view and the
 * CLI share (issue 27).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareEpisodes, containerName, episodeAttempt, episodeName, groupByTask } from '../../server/src/protocol/episodeName.js';
import { episodeId } from '../../server/src/rollout/plan.js';
import { episodeFileName } from '../../server/src/runs/index.js';

const ep = (episodeId: string, taskId: string) => ({ episodeId, taskId });

test('an episode is named by its id, which is also its trajectory file name, for one attempt and for many', () => {
  for (const [task, attempt, attempts] of [
    ['sample-calc-add', 1, 1],
    ['sample-calc-add', 10, 15],
    ['django__django-11099', 2, 3],
  ] as const) {
    const id = episodeId(task, attempt, attempts);
    const name = episodeName(ep(id, task));
    assert.equal(name, attempts === 1 ? task : `${task}#${attempt}`);
    assert.equal(episodeFileName(id), `${name}.jsonl`, 'the viewer tab (the file name) shows the same name as the Runs view');
  }
});

test('the attempt of an episode is read from its name, and an id of another shape has none', () => {
  assert.equal(episodeAttempt(ep('t', 't')), 1);
  assert.equal(episodeAttempt(ep('t#12', 't')), 12);
  assert.equal(episodeAttempt(ep('t-group-0123abcd', 't')), null, 'a training episode is named by its group, not an attempt');
  assert.equal(episodeAttempt(ep('t#x', 't')), null);
  assert.equal(episodeAttempt(ep('t#0', 't')), null, 'attempts count from 1');
  assert.equal(episodeAttempt(ep('u#2', 't')), null, "another task's attempt is not this task's");
});

test('episodes sort by task with numbers compared as numbers, then by attempt, whatever order they ended in', () => {
  const ended = [
    ep('django-10#2', 'django-10'),
    ep('django-9#10', 'django-9'),
    ep('django-9#2', 'django-9'),
    ep('django-10#1', 'django-10'),
    ep('django-9-g-key', 'django-9'),
    ep('apple', 'apple'),
  ];
  assert.deepEqual(
    [...ended].sort(compareEpisodes).map((e) => e.episodeId),
    ['apple', 'django-9#2', 'django-9#10', 'django-9-g-key', 'django-10#1', 'django-10#2'],
  );
});

test("grouping by task keeps each task's attempts together and in order", () => {
  const groups = groupByTask([ep('b#2', 'b'), ep('a#1', 'a'), ep('b#1', 'b'), ep('a#3', 'a'), ep('a#2', 'a')]);
  assert.deepEqual(
    groups.map((g) => [g.taskId, g.episodes.map((e) => e.episodeId)]),
    [
      ['a', ['a#1', 'a#2', 'a#3']],
      ['b', ['b#1', 'b#2']],
    ],
  );
  assert.deepEqual(groupByTask([]), []);
});

test("a container is called by its episode's name, else its task, else its own name", () => {
  assert.equal(containerName({ episode: 'sample-calc-add#2', task: 'sample-calc-add', name: 'gp-x' }), 'sample-calc-add#2');
  assert.equal(containerName({ task: 'sample-calc-add', name: 'gp-x' }), 'sample-calc-add', "a task's tests run alone, or an older version's container");
  assert.equal(containerName({ episode: '', task: '', name: 'gp-x' }), 'gp-x');
});
