/** Which of a training step's episodes its sample table keeps (trainer/stepSamples.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sampleByTotalReward } from '../../server/src/trainer/stepSamples.js';

const episode = (id: string, ret: number) => ({ episode_id: id, total_reward: ret });

test('a step with few episodes keeps them all, worst first', () => {
  assert.deepEqual(
    sampleByTotalReward([episode('b', 1), episode('a', 0)], 8).map((e) => e.episode_id),
    ['a', 'b'],
  );
});

test('a large step keeps the worst, the best and the middle, the same each time', () => {
  const many = Array.from({ length: 100 }, (_, i) => episode(`e${String(i).padStart(3, '0')}`, (i * 37) % 100));
  const kept = sampleByTotalReward(many, 5);
  assert.equal(kept.length, 5);
  assert.deepEqual(
    kept.map((e) => e.total_reward),
    [0, 25, 50, 74, 99],
  );
  assert.deepEqual(sampleByTotalReward([...many].reverse(), 5), kept, 'the order episodes ended in does not change the sample');
});

test('ties in return are broken by episode id', () => {
  assert.deepEqual(
    sampleByTotalReward([episode('z', 1), episode('y', 1), episode('x', 1)], 2).map((e) => e.episode_id),
    ['x', 'z'],
  );
});
