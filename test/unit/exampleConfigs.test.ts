/**
 * The example configs in configs/experiments/ check clean on a fresh clone, through the same check
 * `gp config check` runs (launch/loadConfig.ts, disk rules included, from the repository root).
 *
 * The one allowance (docs/editing-configs.md#the-example-configs): the GPU training examples name
 * the inputs of a full training setup that a clone does not hold until they are prepared, the
 * R2E-Gym dataset (`gp dataset prepare r2e-gym` writes datasets/r2e_gym/) and the model folders
 * under models/. The findings saying those written paths do not exist yet are allowed, each on the
 * value the file writes. Besides, planner_debug.yaml puts both models on GPU 0 to show the note
 * preflight gives a one-GPU debug run (its comment says so), so that note is allowed there. Any
 * other finding, of any severity, fails.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../server/src/launch/loadConfig.js';
import { parseConfigFlags, type LocatedFinding } from '../../server/src/config/index.js';
import { getAt } from '../../server/src/util/keyPath.js';

const root = resolve(__dirname, '../..');
const folder = join(root, 'configs', 'experiments');
const files = readdirSync(folder)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();

/** Whether a finding is one of the allowances above. */
function allowed(file: string, f: LocatedFinding, value: unknown): boolean {
  if (file === 'planner_debug.yaml' && f.code === 'preflight/shared-devices' && f.severity === 'info') return true;
  const written = getAt(value, f.path);
  if (typeof written !== 'string' || f.flag !== undefined) return false;
  if (f.code === 'preflight/path-missing') return /^datasets\/r2e_gym\//.test(written);
  if (f.code === 'preflight/model-not-local') return /^models\//.test(written);
  return false;
}

test('configs/experiments holds the example configs', () => {
  assert.ok(files.includes('sample.yaml') && files.includes('embedded_model.yaml') && files.length >= 6, files.join(', '));
});

for (const file of files) {
  test(`${file} checks clean but for the inputs a clone has not prepared yet`, async () => {
    const loaded = await loadConfig({ file: join(folder, file), flags: parseConfigFlags([]).flags, cwd: root, disk: true });
    assert.equal(loaded.kind, 'resolved');
    if (loaded.kind !== 'resolved') return;
    const { resolution } = loaded;
    const left = resolution.findings.filter((f) => !allowed(file, f, resolution.source.value));
    assert.deepEqual(
      left.map((f) => `${f.severity} ${f.code}: ${f.message}`),
      [],
    );
  });
}

test('the two configs a newcomer runs first have no finding at all', async () => {
  for (const file of ['sample.yaml', 'embedded_model.yaml']) {
    const loaded = await loadConfig({ file: join(folder, file), flags: parseConfigFlags([]).flags, cwd: root, disk: true });
    assert.ok(loaded.kind === 'resolved');
    assert.deepEqual(
      loaded.resolution.findings.map((f) => f.code),
      [],
      file,
    );
  }
});
