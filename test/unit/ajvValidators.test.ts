import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { validatorSpecs } from '../../server/src/config/experimentValidators.js';
import { compileValidators, standaloneModule, type ValidatorSpecs } from '../../server/src/util/ajvValidators.js';
import { setAt } from '../../server/src/util/keyPath.js';

type Validator = ((value: unknown) => boolean) & { errors?: unknown[] | null };

/** Loads the module the build puts in the bundles in place of the specs' module. */
function loadStandalone(specs: ValidatorSpecs): Record<string, Validator> {
  const exports: Record<string, Validator> = {};
  const load = new Function('exports', 'require', standaloneModule(specs)) as (e: unknown, r: NodeJS.Require) => void;
  load(exports, createRequire(join(process.cwd(), 'server', 'src', 'util', 'ajvValidators.ts')));
  return exports;
}

/** The example configs, each also broken in the ways the findings are about: a range, a type, an enum, an unknown key, a missing section, two at once. */
function corpus(): unknown[] {
  const dir = 'configs/experiments';
  const values = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => parse(readFileSync(join(dir, f), 'utf8')) as unknown);
  const broken = (value: unknown, change: (copy: Record<string, unknown>) => void): unknown => {
    const copy = structuredClone(value) as Record<string, unknown>;
    change(copy);
    return copy;
  };
  return values.flatMap((v) => [
    v,
    broken(v, (c) => setAt(c, ['planner_sampling', 'temperature'], 7)),
    broken(v, (c) => setAt(c, ['parallel'], 'four')),
    broken(v, (c) => setAt(c, ['planner_backend'], 'vlm')),
    broken(v, (c) => setAt(c, ['planer_backend'], 'vllm')),
    broken(v, (c) => delete c['sandbox']),
    broken(v, (c) => {
      setAt(c, ['planner_sampling', 'temperature'], 7);
      setAt(c, ['parallel'], 'four');
    }),
    [],
  ]);
}

test('the precompiled experiment validators answer as the ones compiled at load: same verdicts, errors and filled defaults', () => {
  const compiled = compileValidators(validatorSpecs) as Record<string, Validator>;
  const standalone = loadStandalone(validatorSpecs);
  const values = corpus();
  assert.ok(values.length >= 14, 'the example configs are there');
  let invalid = 0;
  for (const value of values) {
    for (const name of Object.keys(validatorSpecs)) {
      const [ours, theirs] = [compiled[name], standalone[name]];
      assert.ok(ours !== undefined && theirs !== undefined, `${name} is in both`);
      const a = structuredClone(value);
      const b = structuredClone(value);
      const ok = ours(a);
      assert.equal(theirs(b), ok, `${name} verdict`);
      assert.deepEqual(theirs.errors, ours.errors, `${name} errors`);
      assert.deepEqual(b, a, `${name} leaves the value as the compiled one does (defaults)`);
      if (!ok) invalid++;
    }
  }
  assert.ok(invalid >= values.length, 'the broken values are reported by both validators');
});
