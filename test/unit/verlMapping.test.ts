import assert from 'node:assert/strict';
import { test } from 'node:test';
import { experimentConfigSchema, flattenVerlOverrides, overridesVerlKey, verlMappedFields, verlOverrideLeaves } from '../../server/src/config/index.js';
import { getAt } from '../../server/src/util/keyPath.js';

const defaults = experimentConfigSchema.parse({});

test('maps every table row to a key of the config schema that has a default', () => {
  assert.ok(verlMappedFields.length >= 5, `only ${verlMappedFields.length} mapped fields`);
  for (const field of verlMappedFields) {
    assert.notEqual(getAt(defaults, [...field.path]), undefined, `${field.path.join('.')} is not in the parsed config`);
  }
});

test('maps each config key to a distinct dotted Hydra key', () => {
  for (const field of verlMappedFields) assert.match(field.mapsTo, /^[a-z_]+(\.[a-z_]+)+$/, field.mapsTo);
  const targets = verlMappedFields.map((f) => f.mapsTo);
  assert.equal(new Set(targets).size, targets.length, `a Hydra key is mapped twice: ${targets.join(', ')}`);
  const model = verlMappedFields.find((f) => f.mapsTo === 'actor_rollout_ref.model.path');
  assert.ok(model, 'the planner model path is mapped');
});

test('flattens nested overrides into dotted Hydra keys, keeping lists and empty maps as leaves', () => {
  const leaves = verlOverrideLeaves({ trainer: { n_gpus_per_node: 4, logger: ['console', 'file'] }, critic: {}, 'data.seed': 7 });
  assert.deepEqual(
    leaves.map((l) => [l.key, l.value]),
    [
      ['trainer.n_gpus_per_node', 4],
      ['trainer.logger', ['console', 'file']],
      ['critic', {}],
      ['data.seed', 7],
    ],
  );
  assert.deepEqual(leaves[0]?.path, ['trainer', 'n_gpus_per_node']);
  assert.deepEqual(flattenVerlOverrides({}), []);
  assert.deepEqual(flattenVerlOverrides(null), []);
  assert.deepEqual(flattenVerlOverrides({ a: { b: { c: null } } }), [[['a', 'b', 'c'], null]]);
});

test('an override replaces the key it names and every key below a non-empty map, never below an empty one', () => {
  const leaves = verlOverrideLeaves({ trainer: { total_epochs: 3 }, algorithm: { x: 1 }, data: {} });
  assert.equal(overridesVerlKey('trainer.total_epochs', leaves), true);
  assert.equal(overridesVerlKey('trainer.total_epochs_extra', leaves), false);
  assert.equal(overridesVerlKey('algorithm.adv_estimator', leaves), false);
  assert.equal(overridesVerlKey('data.train_files', leaves), false, 'an empty map merges nothing');
  assert.equal(overridesVerlKey('actor_rollout_ref.model.path', verlOverrideLeaves({ actor_rollout_ref: { model: { path: 'x' } } })), true);
  assert.equal(overridesVerlKey('actor_rollout_ref.model.path', verlOverrideLeaves({ actor_rollout_ref: { model: 'x' } })), true);
});
