import assert from 'node:assert/strict';
import { test } from 'node:test';
import { experimentConfigSchema, experimentJsonSchema, sectionSchemas } from '../../server/src/config/index.js';
import type { JsonSchemaNode } from '../../server/src/config/index.js';

const expectedSections = [
  'experiment',
  'paths',
  'backends',
  'planner_sampling',
  'cgm_generation',
  'training',
  'env',
  'sandbox',
  'rollout',
  'prompts',
  'parallel',
  'resources',
  'logging',
  'telemetry',
];

test('has every section of the original config plus sandbox, rollout, prompts and verl_overrides', () => {
  assert.deepEqual(Object.keys(sectionSchemas), expectedSections);
  assert.ok(experimentJsonSchema.properties?.['verl_overrides']);
});

test('gives every field a description and a default', () => {
  const missing: string[] = [];
  const walk = (node: JsonSchemaNode, path: string) => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const p = `${path}${key}`;
      if (!child.description) missing.push(`${p}: description`);
      if (child.default === undefined && p !== 'run' && !p.startsWith('run.')) missing.push(`${p}: default`);
      if (child.properties) walk(child, `${p}.`);
    }
  };
  walk(experimentJsonSchema, '');
  assert.deepEqual(missing, []);
});

test('an empty document resolves to the documented defaults', () => {
  const c = experimentConfigSchema.parse({});
  assert.equal(c.env.max_steps, 6);
  assert.equal(c.env.failure_penalty, 0);
  assert.equal(c.resources.ray_num_cpus, 4);
  assert.equal(c.logging.wandb.project, 'graph-planner');
  assert.equal(c.logging.wandb.watch.log_freq, 200);
  assert.deepEqual(c.verl_overrides, {});
});

test('rejects unknown keys, wrong types and out-of-range values', () => {
  assert.equal(experimentConfigSchema.safeParse({ env: { max_step: 3 } }).success, false);
  assert.equal(experimentConfigSchema.safeParse({ env: { max_steps: 'three' } }).success, false);
  assert.equal(experimentConfigSchema.safeParse({ env: { max_steps: 0 } }).success, false);
  assert.equal(experimentConfigSchema.safeParse({ planner_sampling: { top_p: 1.5 } }).success, false);
  assert.equal(experimentConfigSchema.safeParse({ verl_overrides: { trainer: { anything: 1 } } }).success, true);
});

test('carries units and Verl mappings into the JSON Schema', () => {
  const env = experimentJsonSchema.properties?.['env']?.properties;
  assert.equal(env?.['max_steps']?.unit, 'steps');
  assert.equal(experimentJsonSchema.properties?.['resources']?.properties?.['num_gpus']?.maps_to, 'trainer.n_gpus_per_node');
});

test('filling defaults from the emitted schema gives exactly what zod parses', async () => {
  const { readFileSync, readdirSync } = await import('node:fs');
  const { parse } = await import('yaml');
  const { typedConfig } = await import('../../server/src/config/index.js');
  const docs: unknown[] = [{}, { env: { max_steps: 3 } }, { logging: { wandb: { enabled: true } } }];
  for (const f of readdirSync('configs/experiments')) docs.push(parse(readFileSync(`configs/experiments/${f}`, 'utf8')));
  docs.push(parse(readFileSync('bench/fixtures/experiment_300.yaml', 'utf8')));
  for (const d of docs) assert.deepEqual(typedConfig(d, []), experimentConfigSchema.parse(d));
});
