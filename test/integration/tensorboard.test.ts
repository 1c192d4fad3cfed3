/**
 * TensorBoard event files as a training run writes them (runs/tensorboardEvents.ts), read back by
 * the real `tensorboard` package of the trainer environment (python/setup.sh installs it with
 * Verl): its event accumulator must find every scalar at its step with its value, and its record
 * reader must find no corrupt record (a wrong CRC or length makes it stop). CRC-32C's check value
 * from its specification (RFC 3720, "123456789" → 0xE3069283) pins the checksum itself.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { crc32c, TensorBoardWriter } from '../../server/src/runs/index.js';
import { trainerPython } from '../../server/src/cluster/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-tensorboard-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const reader = `
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0})
acc.Reload()
out = {tag: [[e.step, e.value] for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}
print(json.dumps(out))
`;

test('CRC-32C gives its specification’s check value', () => {
  assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
});

test('TensorBoard reads every scalar a training run wrote, at its step, with its value', async () => {
  const python = trainerPython(undefined);
  const probe = spawnSync(python, ['-c', 'import tensorboard'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`the trainer environment has no tensorboard (${python}); run bash python/setup.sh`);
  const writer = new TensorBoardWriter(join(dir, 'tensorboard'));
  const steps = [
    { 'critic/score/mean': 0.25, 'response_length/mean': 120, 'timing_s/step': 3.5 },
    { 'critic/score/mean': 0.5, 'response_length/mean': 98.5, 'timing_s/step': 3.25 },
    { 'critic/score/mean': 0.75, 'response_length/mean': 80, 'timing_s/step': Number.NaN },
  ];
  await Promise.all(steps.map((values, i) => writer.scalars(i + 1, values)));
  const read = spawnSync(python, ['-c', reader, join(dir, 'tensorboard')], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(read.status, 0, read.stderr);
  const scalars = JSON.parse(read.stdout.trim().split('\n').pop() ?? '{}') as Record<string, [number, number][]>;
  assert.deepEqual(scalars['critic/score/mean'], [
    [1, 0.25],
    [2, 0.5],
    [3, 0.75],
  ]);
  assert.deepEqual(scalars['response_length/mean'], [
    [1, 120],
    [2, 98.5],
    [3, 80],
  ]);
  // A value that is not a number is left out, not written as one.
  assert.deepEqual(scalars['timing_s/step'], [
    [1, 3.5],
    [2, 3.25],
  ]);
});
