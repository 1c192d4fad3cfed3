import assert from 'node:assert/strict';
import { test } from 'node:test';
import { passAtKTable, taskPassAtK } from '../../server/src/views/passAtK.js';

/** C(n, k) by its definition, to check the product form against. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

test('a task’s pass@k is 1 − C(n−c, k) / C(n, k) for every n, c and k', () => {
  for (let n = 1; n <= 12; n++)
    for (let c = 0; c <= n; c++)
      for (let k = 1; k <= n; k++) assert.ok(Math.abs(taskPassAtK({ n, c }, k) - (1 - choose(n - c, k) / choose(n, k))) < 1e-12, `n ${n} c ${c} k ${k}`);
  assert.equal(taskPassAtK({ n: 5, c: 2 }, 2), 0.7);
  assert.equal(taskPassAtK({ n: 4, c: 0 }, 4), 0);
});

test('pass@k is averaged over the tasks, for k = 1 and the usual steps up to the fewest attempts of a task', () => {
  const table = passAtKTable([
    { n: 10, c: 3 },
    { n: 12, c: 0 },
    { n: 10, c: 10 },
  ]);
  assert.deepEqual(
    table.map((r) => r.k),
    [1, 2, 3, 5, 10],
  );
  const one = table[0];
  assert.ok(one && Math.abs(one.value - (0.3 + 0 + 1) / 3) < 1e-12);
  assert.ok(table.every((r) => r.tasks === 3));
  const ten = table.at(-1);
  assert.ok(ten && Math.abs(ten.value - (1 + 0 + 1) / 3) < 1e-12, 'ten of ten attempts find the one task with a resolve');
});

test('with one attempt per task there is no pass@k table, and tasks the infrastructure failed are left out', () => {
  assert.deepEqual(
    passAtKTable([
      { n: 1, c: 1 },
      { n: 1, c: 0 },
    ]),
    [],
  );
  assert.deepEqual(
    passAtKTable([
      { n: 3, c: 1 },
      { n: 0, c: 0 },
    ]).map((r) => [r.k, r.tasks]),
    [
      [1, 1],
      [2, 1],
      [3, 1],
    ],
  );
});
