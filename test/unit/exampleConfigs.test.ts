/**
 * The example experiment YAMLs in configs/experiments/ are what people copy first, so each must
 * point editors at the schema, parse with the experiment schema, and pass preflight without an
 * error (the original's debug config failed it: defect L.10, docs/original-system.md#l-defects).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { experimentConfigSchema, type ExperimentConfig } from '../../server/src/config/schema.js';
import { preflight, preflightDisk } from '../../server/src/config/preflight.js';

const root = join(__dirname, '..', '..');
const folder = join(root, 'configs', 'experiments');
const examples = ['sample.yaml', 'planner_debug.yaml', 'planner_8g.yaml', 'planner_cgm_8g.yaml', 'gp_full_73b14b_16g.yaml'] as const;

function load(name: string): { text: string; config: ExperimentConfig } {
  const text = readFileSync(join(folder, name), 'utf8');
  const parsed = experimentConfigSchema.safeParse(parse(text));
  assert.ok(parsed.success, parsed.success ? '' : `${name}: ${JSON.stringify(parsed.error.issues)}`);
  return { text, config: parsed.data };
}

describe('example experiment configs', () => {
  for (const name of examples) {
    void test(`${name} names the schema and describes itself in its first two lines`, () => {
      const [first, second] = load(name).text.split('\n');
      assert.equal(first, '# yaml-language-server: $schema=../../schemas/experiment.schema.json');
      assert.match(second ?? '', /^# \S.{10,}$/);
    });

    void test(`${name} parses and passes preflight without errors`, async () => {
      const { config } = load(name);
      assert.deepEqual(preflight(config).filter((f) => f.severity === 'error'), []);
      const disk = await preflightDisk(config, root);
      assert.deepEqual(disk.filter((f) => f.severity === 'error'), []);
    });

    void test(`${name} writes penalties as non-negative magnitudes`, () => {
      const { env } = load(name).config;
      for (const value of [env.failure_penalty, env.step_penalty, env.timeout_penalty]) assert.ok(value >= 0);
      assert.ok(env.failure_penalty > 0, 'failing costs something');
    });
  }

  void test('planner_debug.yaml runs on one GPU with planner and CGM sharing it', () => {
    const { config } = load('planner_debug.yaml');
    assert.equal(config.resources.num_gpus * config.resources.num_nodes, 1);
    assert.deepEqual(
      preflight(config).map((f) => [f.code, f.severity]),
      [['preflight/shared-devices', 'info']],
    );
  });

  void test('the multi-GPU examples produce no warnings either', () => {
    for (const name of examples.slice(1)) {
      assert.deepEqual(
        preflight(load(name).config).filter((f) => f.severity !== 'info'),
        [],
        name,
      );
    }
  });
});
