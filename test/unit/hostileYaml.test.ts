/**
 * Experiment YAML a hostile or careless file can hold (issue 21, item 6): duplicate keys found in
 * one pass, in every mapping, as the `yaml` library would call them; tags beyond plain data
 * (`!!binary`, `!!set`, `!!timestamp`, a custom `!tag`) are findings and never objects the config
 * cannot hold; an alias bomb is a finding. No input makes the check throw. The speed is a benchmark
 * figure (bench/yamlFigures.ts), and the language server's responsiveness while a large file is
 * checked is test/server/largeYaml.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDocument } from 'yaml';
import { checkConfigText } from '../../server/src/config/index.js';
import { duplicateKeys } from '../../server/src/config/duplicateKeys.js';

function errors(text: string): string[] {
  return checkConfigText(text)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => `${f.code}@${text.slice(0, f.range.start).split('\n').length}`);
}

test('duplicate keys are found in every mapping, at the repeat, with where the first one is', () => {
  const text = 'env:\n  max_steps: 1\n  reward_scale: 1\n  max_steps: 2\nverl_overrides:\n  a:\n    b: 1\n    b: 2\n  "c": 1\n  c: 2\n  1: x\n  "1": y\n';
  const check = checkConfigText(text);
  const dups = check.findings.filter((f) => f.code === 'yaml/duplicate-key');
  assert.deepEqual(
    dups.map((f) => text.slice(f.range.start, f.range.end)),
    ['max_steps', 'b', 'c'],
  );
  assert.match(dups[0]?.message ?? '', /`max_steps` is already defined on line 2/);
  // The same verdicts as the library's own check, which is quadratic, on the same text.
  const library = parseDocument(text, { uniqueKeys: true })
    .errors.filter((e) => e.code === 'DUPLICATE_KEY')
    .map((e) => e.pos[0]);
  assert.deepEqual(
    duplicateKeys(parseDocument(text, { uniqueKeys: false })).map((d) => d.range[0]),
    library,
  );
});

test('tags beyond plain data are findings, and the check never throws on them', () => {
  const cases: [string, RegExp][] = [
    ['experiment: !!binary aGVsbG8=\n', /The tag !!binary is not supported/],
    ['!!binary aGVsbG8=\n', /The tag !!binary is not supported/],
    ['training: !!binary aGVsbG8=\n', /The tag !!binary is not supported/],
    ['verl_overrides: !!set {a, b}\n', /The tag !!set is not supported/],
    ['verl_overrides: !!omap [a: 1]\n', /The tag !!omap is not supported/],
    ['experiment:\n  name: !!timestamp 2001-12-14\n', /The tag !!timestamp is not supported/],
    ['training:\n  lr: !python/object:os.system 1\n', /The tag !python\/object:os\.system is not supported/],
    ['training:\n  lr: !!float 1\n', /does not have the form the tag !!float requires/],
  ];
  for (const [text, message] of cases) {
    const check = checkConfigText(text);
    const tag = check.findings.find((f) => f.code === 'yaml/unsupported-tag');
    assert.ok(tag, text);
    assert.equal(tag.severity, 'error');
    assert.match(tag.message, message);
  }
  // Plain tags of the core schema, in their forms, are fine.
  assert.deepEqual(errors('training:\n  lr: !!float 1.0e-5\n  total_epochs: !!int 3\nexperiment:\n  name: !!str run-1\n'), []);
});

test('an alias bomb is a finding, not an expansion', () => {
  const bomb = ['a: &a [1,2,3,4,5,6,7,8,9]', ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`)].join('\n');
  assert.deepEqual(errors(`${bomb}\n`), ['yaml/alias-limit@1']);
});

test('hostile YAML of many kinds gives findings, never an exception', () => {
  const texts = [
    '',
    '---\n---\n',
    '\u0000\u0001',
    'a: [',
    '{',
    'key: "unterminated',
    '\t- tab',
    '&a [*a]',
    '*undefined',
    '? [a, b]\n: c\n',
    'x: !!binary\n',
    '%YAML 9.9\n---\na: 1\n',
    '!<tag:evil> {}\n',
    'verl_overrides: {a: !!binary aGk=, b: !!set {x}}\n',
    `${'a:\n  '.repeat(2000)}b: 1\n`,
    `[${'['.repeat(5000)}`,
  ];
  for (const text of texts) {
    const check = checkConfigText(text);
    assert.ok(Array.isArray(check.findings), JSON.stringify(text.slice(0, 40)));
  }
});
