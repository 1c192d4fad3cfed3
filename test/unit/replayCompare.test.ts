/**
 * What a replay may and may not differ in: sandbox paths, test timings and output tails are not
 * differences; a reward, an end or any other part of the observation is, reported with its place.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Observation } from '../../server/src/protocol/observation.js';
import { compareStep, normaliseText } from '../../server/src/episodes/replayCompare.js';
import { parseTrajectory } from '../../server/src/runs/trajectory.js';

const read = parseTrajectory(readFileSync(join(__dirname, '../fixtures/trajectories/sample-calc-add.jsonl'), 'utf8'));
const submit = read.steps.find((s) => s.action?.type === 'submit');
const step = (observation: Observation, reward = submit?.reward ?? 0) => ({ observation, reward, done: true, terminationReason: 'submitted' });
const clone = (o: Observation): Observation => JSON.parse(JSON.stringify(o)) as Observation;

test('sandbox paths and timings are not differences', () => {
  assert.equal(normaliseText('rootdir: /tmp/gp-sample-calc-add-IwWtKX/repo\n2 passed in 0.03s'), 'rootdir: <sandbox>/repo\n2 passed in <time>');
  assert.ok(submit, 'the fixture has a submit step');
  const replayed = clone(submit.observation);
  if (replayed.last?.kind === 'submit') {
    replayed.last.tests.duration_ms += 500;
    replayed.last.tests.tail = 'rootdir: /tmp/gp-sample-calc-add-OTHER/repo\n2 passed in 9.99s';
  }
  replayed.text = replayed.text.replace(/\/tmp\/gp-[^\s/]+/g, '/tmp/gp-sample-calc-add-ZZZZZZ');
  assert.equal(compareStep(step(submit.observation), step(replayed)), undefined);
});

test('a reward, the end and any other part of the observation are differences, with their place', () => {
  assert.ok(submit);
  assert.deepEqual(compareStep(step(submit.observation), step(submit.observation, -1)), { where: 'reward', recorded: String(submit.reward), replayed: '-1' });
  assert.equal(compareStep(step(submit.observation), { ...step(submit.observation), done: false })?.where, 'done');
  const failed = clone(submit.observation);
  if (failed.last?.kind === 'submit') failed.last.resolved = false;
  assert.equal(compareStep(step(submit.observation), step(failed))?.where, 'observation.last.resolved');
  const text = clone(submit.observation);
  text.text = text.text.replace('Task sample-calc-add', 'Task something-else');
  assert.deepEqual(compareStep(step(submit.observation), step(text))?.where, 'observation text, line 1');
});

test('a replay answers each patch-model repair as the recording did: candidates, an empty answer, a failure, or no model', async () => {
  const { RecordedPatchModel } = await import('../../server/src/rollout/replay.js');
  const recorded = new RecordedPatchModel();
  const base = { patchModel: { name: 'configured-cgm', generate: () => Promise.resolve([]) } } as unknown as Parameters<typeof recorded.options>[0];
  const options = recorded.options(base);
  const repairStep = (last: Record<string, unknown>) =>
    ({
      action: { type: 'repair', plan: '', apply: true, focus_ids: [] },
      observation: { last: { kind: 'repair', source: 'patch-model', apply: true, applied: false, candidates: [], diff: '', ...last } },
    }) as unknown as Parameters<typeof recorded.prepare>[0];
  recorded.prepare(repairStep({ candidates: [{ index: 0, diff: 'diff --git a/x b/x\n', summary: 'fix' }] }));
  assert.equal(options.patchModel, recorded, 'the recording stands in for the configured model');
  assert.deepEqual(await recorded.generate(), [{ diff: 'diff --git a/x b/x\n', summary: 'fix' }]);
  recorded.prepare(repairStep({ error: { code: 'cgm-empty', message: 'cgm-7b returned no candidate.' } }));
  assert.deepEqual([await recorded.generate(), recorded.name], [[], 'cgm-7b']);
  recorded.prepare(repairStep({ error: { code: 'patch-model-failed', message: 'cgm-7b: HTTP 503 from http://127.0.0.1:9/generate' } }));
  await assert.rejects(recorded.generate(), /^Error: HTTP 503 from http:\/\/127\.0\.0\.1:9\/generate$/);
  recorded.prepare(repairStep({ error: { code: 'no-patch-model', message: 'no patch model is configured' } }));
  assert.equal(options.patchModel, undefined, 'no model, as when the episode ran');
  // A fork's prefix: the recording answers until the prefix ends, the configured model after it.
  let live = false;
  const forked = recorded.options(base, () => live);
  assert.equal(forked.patchModel, undefined, 'the recording still answers during the prefix');
  live = true;
  assert.equal(forked.patchModel, base.patchModel, 'the configured model answers once the fork goes on live');
});

test('object addresses, temporary folders and clock times are not differences; short hex numbers and dates are data (issue 21)', () => {
  const runs = [
    'E   assert <invoicing.Invoice object at 0x7fa4c2d3e5b0> == 3\n<function total at 0x7F1E2D3C4B5A> /tmp/tmpa1b2c3d4/x.txt /tmp/pytest-of-root/pytest-12/test_total0 at 2026-11-25T19:47:37.123Z',
    'E   assert <invoicing.Invoice object at 0x7f0011223344> == 3\n<function total at 0x7f9988776655> /tmp/tmpzz9y8x7w/x.txt /tmp/pytest-of-root/pytest-13/test_total0 at 2026-11-26 08:01:02,456',
  ];
  assert.equal(normaliseText(runs[0] ?? ''), normaliseText(runs[1] ?? ''));
  // What a program computed still shows.
  assert.notEqual(normaliseText('flags 0xff'), normaliseText('flags 0xfe'));
  assert.notEqual(normaliseText('due 2026-11-25'), normaliseText('due 2026-11-26'));
  assert.notEqual(normaliseText('<Invoice object at 0x7fa4c2d3e5b0> total=3'), normaliseText('<Invoice object at 0x7fa4c2d3e5b0> total=4'));
  assert.notEqual(normaliseText('/tmp/tmpa1b2c3d4/x.txt'), normaliseText('/tmp/tmpa1b2c3d4/y.txt'));

  assert.ok(submit);
  const recorded = clone(submit.observation);
  const replayed = clone(submit.observation);
  recorded.text = `${recorded.text}\nE   assert <invoicing.Invoice object at 0x7fa4c2d3e5b0> == 3`;
  replayed.text = `${replayed.text}\nE   assert <invoicing.Invoice object at 0x7f0011223344> == 3`;
  assert.equal(compareStep(step(recorded), step(replayed)), undefined);
  replayed.text = replayed.text.replace('== 3', '== 4');
  assert.match(compareStep(step(recorded), step(replayed))?.where ?? '', /observation text, line \d+/);
});
