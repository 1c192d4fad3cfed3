/** The reward a Harbor verifier writes, read as Harbor reads it (testing/harborReward.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { harborReward } from '../../server/src/testing/harborReward.js';

test('reward.txt holds one number; reward.json wins when both exist', () => {
  assert.deepEqual(harborReward({ text: '1\n' }), { ok: true, reward: 1, rewards: { reward: 1 }, from: 'reward.txt' });
  assert.deepEqual(harborReward({ text: ' 0.25 ' }), { ok: true, reward: 0.25, rewards: { reward: 0.25 }, from: 'reward.txt' });
  assert.equal(harborReward({ text: '-1e-3' }).ok, true);
  const both = harborReward({ json: '{"reward": 0.5}', text: '1' });
  assert.ok(both.ok && both.reward === 0.5 && both.from === 'reward.json');
});

test('reward.json: a number, the one named reward, or the only one', () => {
  assert.deepEqual(harborReward({ json: '0.75' }), { ok: true, reward: 0.75, rewards: { reward: 0.75 }, from: 'reward.json' });
  const named = harborReward({ json: '{"accuracy": 0.2, "reward": 0.9}' });
  assert.ok(named.ok && named.reward === 0.9 && named.rewards['accuracy'] === 0.2);
  const only = harborReward({ json: '{"pass_rate": 0.4}' });
  assert.ok(only.ok && only.reward === 0.4);
});

test('nothing that is not a clear finite number becomes a reward', () => {
  for (const [files, why] of [
    [{}, /neither/],
    [{ text: '' }, /empty/],
    [{ text: 'PASSED' }, /one number/],
    [{ text: '1 2' }, /one number/],
    [{ text: 'nan' }, /one number/],
    [{ text: 'inf' }, /one number/],
    [{ text: '1_000' }, /one number/],
    [{ text: '1e999' }, /finite/],
    [{ json: '{"reward": "1"}' }, /not a finite number/],
    [{ json: '{"a": 1, "b": 0}' }, /2 rewards and none is called "reward"/],
    [{ json: '{}' }, /names no reward/],
    [{ json: '[1]' }, /neither a number nor an object/],
    [{ json: 'true' }, /neither a number nor an object/],
    [{ json: '{"reward": 1' }, /not JSON/],
    [{ json: '1e999' }, /neither a number/],
  ] as const) {
    const read = harborReward(files);
    assert.equal(read.ok, false, JSON.stringify(files));
    if (!read.ok) assert.match(read.reason, why, JSON.stringify(files));
  }
});
