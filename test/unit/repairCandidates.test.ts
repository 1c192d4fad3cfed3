import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ActionResult, CandidateOutcome } from '../../server/src/protocol/observation.js';
import { candidateRanges, proposedCount, repairHeadline } from '../../server/src/protocol/repairCandidates.js';

type RepairResult = Extract<ActionResult, { kind: 'repair' }>;

const failed = (index: number): CandidateOutcome => ({
  index,
  diff: 'd',
  tests: { passed: false, counts: { PASSED: 0, FAILED: 1, ERROR: 0, SKIPPED: 0, XFAIL: 0 }, failing: [], duration_ms: 1 } as unknown as NonNullable<
    CandidateOutcome['tests']
  >,
});
const passed = (index: number): CandidateOutcome => ({
  index,
  diff: 'd',
  tests: { passed: true, counts: { PASSED: 1, FAILED: 0, ERROR: 0, SKIPPED: 0, XFAIL: 0 }, failing: [], duration_ms: 1 } as unknown as NonNullable<
    CandidateOutcome['tests']
  >,
});
const untried = (index: number): CandidateOutcome => ({ index, diff: 'd' });
const result = (candidates: CandidateOutcome[], extra: Partial<RepairResult>): RepairResult => ({
  kind: 'repair',
  apply: true,
  applied: extra.kept !== undefined,
  candidates,
  diff: '',
  source: 'action',
  ...extra,
});

test('candidate numbers come out as runs of the numbers the action lists them under', () => {
  assert.equal(candidateRanges([0, 1, 2, 3, 6, 8, 9]), '#1–#4, #7, #9–#10');
  assert.equal(candidateRanges([4]), '#5');
  assert.equal(candidateRanges([]), '');
});

test('a result with 27 proposed and #23 kept names the 4 not tried with their own numbers', () => {
  const candidates = [...Array.from({ length: 22 }, (_, i) => failed(i)), passed(22), ...[23, 24, 25, 26].map(untried)];
  assert.equal(
    repairHeadline(result(candidates, { kept: 22, proposed: 27 })),
    '27 candidates from the action · #1–#22 tests failed · #23 kept · #24–#27 not tried: #23 passed first',
  );
});

test('an older trajectory that stopped at the kept candidate counts the action’s list and never renumbers', () => {
  const candidates = [...Array.from({ length: 22 }, (_, i) => failed(i)), passed(22)];
  const old = result(candidates, { kept: 22 });
  assert.equal(proposedCount(old), 23, 'without the action, the result is all there is');
  assert.equal(repairHeadline(old, 27), '27 candidates from the action · #1–#22 tests failed · #23 kept · #24–#27 not tried: #23 passed first');
});

test('candidates cut by the limit per repair are named as such, and a repair that kept none says so', () => {
  const candidates = [failed(0), failed(1)];
  assert.equal(
    repairHeadline(result(candidates, { proposed: 5 })),
    '5 candidates from the action · #1–#2 tests failed · #3–#5 not tried: over the limit of candidates per repair (env.max_repair_candidates) · none kept',
  );
});

test('a step that ran out of time leaves the rest not tried, not refused', () => {
  const stop = { code: 'step-timeout', message: 'not tried: the step ran out of time.' };
  const candidates = [failed(0), { index: 1, diff: 'd', error: stop }, { index: 2, diff: '', error: { code: 'outside-focus', message: 'x' } }];
  assert.equal(
    repairHeadline(result(candidates, { proposed: 3, source: 'patch-model' })),
    '3 candidates from the patch model · #1 tests failed · #3 refused · #2 not tried: the step ran out of time · none kept',
  );
});
