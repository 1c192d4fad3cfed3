/**
 * Lenient reading of a patch model's reply (docs/original-system.md#d3-cgm-formats): where the JSON is, where the edits are,
 * their aliases and defaults, and what is dropped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractJson, normalizeEdit, parseCgmReply, type CgmReplyResult } from '../../server/src/agents/cgmReply.js';
import type { PatchCandidate } from '../../server/src/protocol/actions.js';

const edit = { path: 'app/calc.py', start: 2, end: 2, new_text: '    return a + b\n' };

function candidates(result: CgmReplyResult): PatchCandidate[] {
  assert.ok(result.ok, `expected candidates, got ${JSON.stringify(result)}`);
  return result.candidates;
}

const table: Array<{ name: string; reply: string; expect: PatchCandidate[] | RegExp }> = [
  { name: 'a bare patch object', reply: JSON.stringify({ patch: { edits: [edit], summary: 'fix add' } }), expect: [{ edits: [edit], summary: 'fix add' }] },
  {
    name: 'the last fenced json block, prose around it',
    reply: `Here is a first try:\n\`\`\`json\n{"patch": {"edits": [{"path": "old.py", "start": 1, "end": 1, "new_text": "x\\n"}]}}\n\`\`\`\nBetter:\n\`\`\`json\n${JSON.stringify({ patch: { edits: [edit] }, summary: 'second' })}\n\`\`\`\n`,
    expect: [{ edits: [edit], summary: 'second' }],
  },
  {
    name: 'the first balanced object inside prose, braces in strings',
    reply: `Sure! {"edits": [{"path": "a.py", "start": 3, "new_text": "d = {'}': 1}"}]} Done.`,
    expect: [{ edits: [{ path: 'a.py', start: 3, end: 3, new_text: "d = {'}': 1}\n" }], summary: 'cgm' }],
  },
  { name: 'top-level edits', reply: JSON.stringify({ edits: [edit], summary: 'top' }), expect: [{ edits: [edit], summary: 'top' }] },
  {
    name: 'text as an alias of new_text, line of start',
    reply: JSON.stringify({ patch: { edits: [{ path: 'a.py', line: 4, text: 'y = 2' }] } }),
    expect: [{ edits: [{ path: 'a.py', start: 4, end: 4, new_text: 'y = 2\n' }], summary: 'cgm' }],
  },
  {
    name: 'diff as an alias of new_text, start defaulting to 1',
    reply: JSON.stringify({ patch: { edits: [{ path: 'a.py', diff: 'z\n' }] } }),
    expect: [{ edits: [{ path: 'a.py', start: 1, end: 1, new_text: 'z\n' }], summary: 'cgm' }],
  },
  {
    name: 'numeric strings as line numbers',
    reply: JSON.stringify({ patch: { edits: [{ path: 'a.py', start: '5', end: '6', new_text: 'q\n' }] } }),
    expect: [{ edits: [{ path: 'a.py', start: 5, end: 6, new_text: 'q\n' }], summary: 'cgm' }],
  },
  {
    name: 'edits that are not objects or lack a path, dropped',
    reply: JSON.stringify({ patch: { edits: ['nope', { start: 1, new_text: 'x\n' }, { path: '', new_text: 'x\n' }, edit] } }),
    expect: [{ edits: [edit], summary: 'cgm' }],
  },
  {
    name: 'a unified diff in patch',
    reply: JSON.stringify({ patch: '--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n', summary: 'd' }),
    expect: [{ diff: '--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n', summary: 'd' }],
  },
  {
    name: 'a list of candidates',
    reply: JSON.stringify([
      { patch: { edits: [edit] }, summary: 'one' },
      { patch: { edits: [edit] }, summary: 'two' },
    ]),
    expect: [
      { edits: [edit], summary: 'one' },
      { edits: [edit], summary: 'two' },
    ],
  },
  { name: 'a bare list of edits', reply: JSON.stringify([edit]), expect: [{ edits: [edit], summary: 'cgm' }] },
  {
    name: 'a <think> block before the JSON',
    reply: `<think>{"not": "this"}</think>\n${JSON.stringify({ patch: { edits: [edit] } })}`,
    expect: [{ edits: [edit], summary: 'cgm' }],
  },
  { name: 'no JSON at all', reply: 'I cannot fix this.', expect: /no JSON/ },
  { name: 'JSON without edits', reply: '{"answer": 42}', expect: /no patch.edits/ },
  { name: 'an empty edits list', reply: '{"patch": {"edits": []}}', expect: /empty edits/ },
  {
    name: 'only unusable edits',
    reply: '{"patch": {"edits": [{"path": "a.py", "start": 3, "end": 1, "new_text": "x"}, 7]}}',
    expect: /none of its 2.*invalid line range/,
  },
];

for (const row of table) {
  test(`reads ${row.name}`, () => {
    const result = parseCgmReply(row.reply);
    if (row.expect instanceof RegExp) {
      assert.ok(!result.ok, `expected a failure, got ${JSON.stringify(result)}`);
      assert.match(result.reason, row.expect);
    } else {
      assert.deepEqual(candidates(result), row.expect);
    }
  });
}

test('stops after max_edits and falls back to the plan, then the default, for the summary', () => {
  const many = JSON.stringify({ patch: { edits: [edit, { ...edit, start: 3, end: 3 }, { ...edit, start: 4, end: 4 }] } });
  const [first] = candidates(parseCgmReply(many, { maxEdits: 2, fallbackSummary: '1) fix add' }));
  assert.ok(first && 'edits' in first);
  assert.equal(first.edits.length, 2);
  assert.equal(first.summary, '1) fix add');
  const [second] = candidates(parseCgmReply(many, { defaultSummary: 'cgm-local' }));
  assert.equal(second?.summary, 'cgm-local');
  const [third] = candidates(parseCgmReply(JSON.stringify({ patch: { edits: [edit], summary: 'inner' }, summary: 'outer' })));
  assert.equal(third?.summary, 'inner');
});

test('adds a missing final newline but keeps an empty replacement empty', () => {
  assert.deepEqual(normalizeEdit({ path: 'a.py', start: 1, end: 2, new_text: 'x' }), { path: 'a.py', start: 1, end: 2, new_text: 'x\n' });
  assert.deepEqual(normalizeEdit({ path: 'a.py', start: 1, end: 2, new_text: '' }), { path: 'a.py', start: 1, end: 2, new_text: '' });
  assert.equal(normalizeEdit({ path: 'a.py', start: 1.5, new_text: 'x' }), 'a.py: invalid line range');
  assert.equal(normalizeEdit({ path: 'a.py', start: 1 }), 'a.py: no new_text');
});

test('finds JSON in an unlabelled fence and skips fences that do not parse', () => {
  assert.deepEqual(extractJson('```\n{"a": 1}\n```\n```json\n{broken\n```'), { a: 1 });
  assert.equal(extractJson('{"a": 1'), undefined);
});
