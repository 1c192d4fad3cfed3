import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isMap, isScalar, type Node } from 'yaml';
import { checkConfigText, parseYamlSource, type YamlSource } from '../../server/src/config/index.js';
import { reparseScalarEdits } from '../../server/src/config/incrementalParse.js';

const fixture = readFileSync('bench/fixtures/experiment_300.yaml', 'utf8');

/**
 * Every node's start and value end and every scalar's value, in document order: the shape a full
 * parse gives. With `withEnds`, node ends past the value (trailing comments) too.
 */
function shape(source: YamlSource, withEnds = true): string[] {
  const out: string[] = [];
  const walk = (n: unknown) => {
    const node = n as Node | null;
    if (node?.range) out.push(`${(withEnds ? node.range : node.range.slice(0, 2)).join(',')}${isScalar(node) ? `=${String(node.value)}` : ''}`);
    if (isMap(node))
      for (const p of node.items) {
        walk(p.key);
        walk(p.value);
      }
    else if (node && 'items' in node && Array.isArray((node as { items: unknown[] }).items)) (node as { items: unknown[] }).items.forEach(walk);
  };
  walk(source.doc.contents);
  return out;
}

/** A small deterministic PRNG so a failure can be reproduced from its seed. */
function rng(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

/**
 * Walks `steps` random edits from the fixture, each made by `edit`, and checks every result the
 * incremental path `reparse` accepts against a full parse: values, node positions (`withEnds`: node
 * ends past the value too), line starts and findings. Returns how many edits took the fast path.
 */
function walkEdits(
  steps: number,
  edit: (text: string) => string,
  reparse: (prev: YamlSource, text: string) => YamlSource | undefined,
  withEnds: boolean,
): number {
  let text = fixture;
  let source = parseYamlSource(text);
  let patched = 0;
  for (let i = 0; i < steps; i++) {
    const next = edit(text);
    const full = parseYamlSource(next);
    const inc = reparse(source, next);
    if (inc) {
      patched++;
      assert.deepEqual(full.problems, [], `the fast path accepted text a full parse rejects (edit ${i})`);
      assert.deepEqual(inc.value, full.value, `value after edit ${i}`);
      assert.deepEqual(shape(inc, withEnds), shape(full, withEnds), `ranges after edit ${i}`);
      assert.deepEqual(inc.lineCounter.lineStarts, full.lineCounter.lineStarts);
      assert.deepEqual(checkConfigText(next, inc).findings, checkConfigText(next).findings);
    }
    // Keep walking from a valid document so later edits exercise the fast path too.
    if (full.problems.length === 0 && full.value !== undefined) {
      text = next;
      source = inc ?? full;
    } else {
      source = parseYamlSource(text);
    }
  }
  return patched;
}

test('patching a scalar edit gives exactly what a full parse gives', () => {
  const random = rng(7);
  const replacements = [
    '0',
    '7',
    '12',
    '2.5',
    '-1',
    '+5',
    '0x1F',
    '0o17',
    '.inf',
    '-.Inf',
    '.nan',
    '~',
    'yes',
    'True',
    'NULL',
    '1_000',
    'true',
    'x',
    'grpo',
    '1e-5',
    '',
    ' ',
    ':',
    '#',
    '\n',
    'null',
    '[',
    "'",
    '- ',
    '-',
    '-\r',
    '---',
    '?',
    '\t',
  ];
  const edit = (text: string) => {
    const at = Math.floor(random() * text.length);
    const len = Math.floor(random() * 3);
    const insert = replacements[Math.floor(random() * replacements.length)] ?? '';
    return text.slice(0, at) + insert + text.slice(at + len);
  };
  const patched = walkEdits(1000, edit, reparseScalarEdits, true);
  assert.ok(patched > 20, `the fast path should apply to many random scalar edits, applied ${patched}`);
});

test('falls back to a full parse for edits that change structure', () => {
  const base = 'env:\n  max_steps: 6\n  reward_scale: 1\n';
  assert.equal(reparseScalarEdits(parseYamlSource(base), base.replace('max_steps', 'max_stepz')), undefined, 'a key edit');
  assert.equal(reparseScalarEdits(parseYamlSource(base), base.replace('6', '6\n  x: 1')), undefined, 'a new line');
  assert.equal(reparseScalarEdits(parseYamlSource(base), base.replace('6', '6 # six')), undefined, 'a comment');
  assert.equal(reparseScalarEdits(parseYamlSource(base), base.replace('6', "'6'")), undefined, 'quoting');
  assert.ok(reparseScalarEdits(parseYamlSource(base), base.replace('6', '16')), 'a digit typed into a number');
});

test('patches several changed lines one by one and matches a full parse', () => {
  const base = 'env:\n  max_steps: 6\n  reward_scale: 1\nparallel:\n  replicas: 2\n';
  const next = 'env:\n  max_steps: 16\n  reward_scale: 3\nparallel:\n  replicas: 1\n';
  const inc = reparseScalarEdits(parseYamlSource(base), next);
  assert.ok(inc, 'three value edits on three lines take the fast path');
  const full = parseYamlSource(next);
  assert.deepEqual(inc.value, full.value);
  assert.deepEqual(shape(inc), shape(full));
  assert.equal(reparseScalarEdits(parseYamlSource(base), next.replace('replicas', 'replica')), undefined, 'one structural line forces a full parse');
});

/** A realistic structural edit at a random line: add, delete or rename a key, add a blank or comment line, or garbage. */
function structuralEdit(text: string, random: () => number): string {
  const lines = text.split('\n');
  const i = Math.floor(random() * lines.length);
  const line = lines[i] ?? '';
  const indent = line.length - line.trimStart().length;
  const isKeyLine = /^\s*[A-Za-z_][\w.-]*:/.test(line);
  const pick = Math.floor(random() * 7);
  const out = [...lines];
  if (pick === 0 && isKeyLine) out.splice(i + 1, 0, `${' '.repeat(indent)}added_${i}: ${Math.floor(random() * 100)}`);
  else if (pick === 1 && isKeyLine && !line.trimEnd().endsWith(':')) out.splice(i, 1);
  else if (pick === 2 && isKeyLine) out[i] = line.replace(/([A-Za-z_][\w.-]*):/, '$1z:');
  else if (pick === 3) out.splice(i, 0, '');
  else if (pick === 4) out.splice(i, 0, `${' '.repeat(indent)}# a note`);
  else if (pick === 5) out[i] = `${line.slice(0, Math.floor(random() * line.length))}: x`;
  else out.splice(i, 0, `${' '.repeat(indent)}nested_${i}:\n${' '.repeat(indent + 2)}leaf: [1, 2]`);
  return out.join('\n');
}

test('re-parsing only the edited section gives exactly what a full parse gives', async () => {
  const { reparseSection } = await import('../../server/src/config/sectionReparse.js');
  const random = rng(11);
  const patched = walkEdits(600, (text) => structuralEdit(text, random), reparseSection, false);
  assert.ok(patched > 100, `the section path should apply to most structural edits, applied ${patched}`);
});

test('edits spread over several sections are applied line by line and match a full parse', async () => {
  const { reparse } = await import('../../server/src/config/reparse.js');
  const { editScript } = await import('../../bench/yamlEdits.js');
  for (const mode of ['value', 'key'] as const) {
    const script = editScript(fixture, mode);
    let source = parseYamlSource(script.initialText);
    let patched = 0;
    for (let k = 0; k < 40; k++) {
      const { text } = script.edit(k);
      const full = parseYamlSource(text);
      const inc = reparse(source, text);
      if (inc) {
        patched++;
        assert.deepEqual(inc.value, full.value, `${mode} edit ${k}`);
        assert.deepEqual(shape(inc, false), shape(full, false), `${mode} edit ${k}`);
        assert.deepEqual(checkConfigText(text, inc).findings, checkConfigText(text).findings);
      }
      source = inc ?? full;
    }
    assert.equal(patched, 40, `every benchmark ${mode} edit takes an incremental path`);
  }
});
