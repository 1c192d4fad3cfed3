import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mutationCandidates } from '../../server/src/agents/mutations.js';
import { tokeniseLines } from '../../server/src/agents/pythonLine.js';

function lines(window: { path: string; start: number; text: string }, limit = 500): string[] {
  return mutationCandidates([window], limit).map((c) => ('edits' in c ? (c.edits[0]?.new_text ?? '') : '').trimEnd());
}

test('operators inside strings, comments and docstrings are never mutated', () => {
  const text = ['def f(a, b):', '    """Return a - b, or a < b."""', '    s = "x - y"  # a - b', '    return a'].join('\n');
  const out = lines({ path: 'm.py', start: 1, text });
  assert.ok(
    out.every((l) => !l.includes('"""Return a + b') && !l.includes('"x + y"') && !l.includes('# a + b')),
    out.join('\n'),
  );
});

test('a multi-line docstring is skipped until it closes', () => {
  const tokens = tokeniseLines(['    """Start', '    a - b', '    end"""', '    c = a - b']);
  assert.deepEqual(tokens[1], []);
  assert.ok((tokens[3] ?? []).some((t) => t.text === '-'));
});

const expectations: Array<{ name: string; line: string; wants: string }> = [
  { name: 'swaps a binary arithmetic operator', line: '    return a - b', wants: '    return a + b' },
  { name: 'leaves a unary minus alone but mutates the binary one', line: '    return -a - b', wants: '    return -a + b' },
  { name: 'tightens a comparison', line: '    if age > 18:', wants: '    if age >= 18:' },
  { name: 'moves an integer constant by one', line: '    end = start + size - 1', wants: '    end = start + size - 0' },
  { name: 'extends a range end by one', line: '    for i in range(1, n):', wants: '    for i in range(1, n + 1):' },
  { name: 'moves a slice bound by one', line: '    return items[start:stop]', wants: '    return items[start:stop + 1]' },
  { name: 'swaps two call arguments', line: '    return clamp(low, value, high)', wants: '    return clamp(value, low, high)' },
  { name: 'negates an if condition', line: '    if cache.has(key):', wants: '    if not (cache.has(key)):' },
  { name: 'un-negates an if condition', line: '    if not ready:', wants: '    if ready:' },
  { name: 'swaps and/or', line: '    return a and b', wants: '    return a or b' },
  { name: 'swaps is/is not', line: '    if x is None:', wants: '    if x is not None:' },
  { name: 'swaps in/not in but not in a for header', line: '    return key in seen', wants: '    return key not in seen' },
];

for (const e of expectations) {
  test(`mutation ${e.name}`, () => {
    const out = lines({ path: 'm.py', start: 10, text: e.line });
    assert.ok(out.includes(e.wants), `${e.wants} not among:\n${out.join('\n')}`);
  });
}

test('keyword arguments are not swapped and for-loop `in` is kept', () => {
  const out = lines({ path: 'm.py', start: 1, text: '    f(a, key=b)\n    for x in xs:\n        pass' });
  assert.ok(!out.some((l) => l.includes('f(key=b, a)')));
  assert.ok(!out.some((l) => l.includes('not in xs')));
});

test('candidates carry one single-line edit each, at the right line, within the limit', () => {
  const candidates = mutationCandidates([{ path: 'app/calc.py', start: 5, text: 'def add(a, b):\n    return a - b' }], 3);
  assert.ok(candidates.length <= 3 && candidates.length > 0);
  for (const c of candidates) {
    assert.ok('edits' in c);
    assert.equal(c.edits.length, 1);
    assert.equal(c.edits[0]?.start, 6);
    assert.equal(c.edits[0]?.end, 6);
  }
});

test('round-robin across windows: a long window cannot take the whole budget', () => {
  const long = { path: 'a.py', start: 1, text: Array.from({ length: 30 }, (_, i) => `    x${i} = y + ${i}`).join('\n') };
  const short = { path: 'b.py', start: 1, text: '    return p - q' };
  const candidates = mutationCandidates([long, short], 6);
  assert.ok(candidates.some((c) => 'edits' in c && c.edits[0]?.path === 'b.py'));
});
