import assert from 'node:assert/strict';
import { test } from 'node:test';
import { limitReached, stepReward } from '../../server/src/env/rewards.js';

const shaped = { reward_scale: 1, failure_penalty: 1, step_penalty: 0.05, timeout_penalty: 0.5 };

// The reward table of docs/original-system.md#b4-rewards-and-termination, with positive (correct) penalties: success 1.0, failure −1.0, limit −1.5, steps −0.05.
const cases: Array<{ name: string; verdict: Parameters<typeof stepReward>[1]; reward: number }> = [
  { name: 'a step that does not end the episode costs the step penalty', verdict: { done: false, resolved: false }, reward: -0.05 },
  { name: 'a resolved submit earns reward_scale', verdict: { done: true, resolved: true, reason: 'submitted' }, reward: 1 },
  { name: 'a failed submit loses the failure penalty', verdict: { done: true, resolved: false, reason: 'submitted' }, reward: -1 },
  { name: 'max_steps loses failure and timeout penalties', verdict: { done: true, resolved: false, reason: 'max_steps' }, reward: -1.5 },
  { name: 'repo_op_limit loses failure and timeout penalties', verdict: { done: true, resolved: false, reason: 'repo_op_limit' }, reward: -1.5 },
  { name: 'a step timeout loses failure and timeout penalties', verdict: { done: true, resolved: false, reason: 'step_timeout' }, reward: -1.5 },
  { name: 'an episode timeout loses failure and timeout penalties', verdict: { done: true, resolved: false, reason: 'episode_timeout' }, reward: -1.5 },
  { name: 'an error ends without the timeout penalty', verdict: { done: true, resolved: false, reason: 'error' }, reward: -1 },
  { name: 'an interrupted episode earns nothing either way', verdict: { done: true, resolved: false, reason: 'interrupted' }, reward: 0 },
  {
    name: 'a submit a Harbor verifier graded earns its reward times reward_scale, not the failure penalty',
    verdict: { done: true, resolved: false, reason: 'submitted', verifierReward: 0.5 },
    reward: 0.5,
  },
  {
    name: "a Harbor verifier's zero is a zero, not the failure penalty",
    verdict: { done: true, resolved: false, reason: 'submitted', verifierReward: 0 },
    reward: 0,
  },
  {
    name: "a verifier's reward does not change a limit's penalties",
    verdict: { done: true, resolved: false, reason: 'step_timeout', verifierReward: 1 },
    reward: -1.5,
  },
];

for (const c of cases) {
  test(c.name, () => assert.equal(stepReward(shaped, c.verdict), c.reward));
}

test('a failed or timed-out episode never earns more than a solved one', () => {
  const steps = (n: number) => n * stepReward(shaped, { done: false, resolved: false });
  const solved = steps(2) + stepReward(shaped, { done: true, resolved: true, reason: 'submitted' });
  const failed = steps(2) + stepReward(shaped, { done: true, resolved: false, reason: 'submitted' });
  const timedOut = steps(5) + stepReward(shaped, { done: true, resolved: false, reason: 'max_steps' });
  assert.ok(solved > failed && failed > timedOut, `${solved} > ${failed} > ${timedOut}`);
});

test('reward_scale multiplies only the success reward', () => {
  assert.equal(stepReward({ ...shaped, reward_scale: 3 }, { done: true, resolved: true, reason: 'submitted' }), 3);
  assert.equal(stepReward({ ...shaped, reward_scale: 3 }, { done: true, resolved: false, reason: 'submitted' }), -1);
});

test('limits: repo operations before steps, then steps', () => {
  assert.equal(limitReached({ steps: 3, repoOps: 2, maxSteps: 6, repoOpLimit: 2 }), 'repo_op_limit');
  assert.equal(limitReached({ steps: 6, repoOps: 1, maxSteps: 6, repoOpLimit: null }), 'max_steps');
  assert.equal(limitReached({ steps: 5, repoOps: 5, maxSteps: 6, repoOpLimit: null }), undefined);
});

test("a verifier's reward is scaled by reward_scale", () => {
  assert.equal(stepReward({ ...shaped, reward_scale: 2 }, { done: true, resolved: true, reason: 'submitted', verifierReward: 1 }), 2);
});
