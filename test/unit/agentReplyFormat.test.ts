/**
 * The model-reply text format: replies → actions or protocol errors (every code, with a reply a
 * model could really send), typed parameter decoding, rendering round trips, and tool calls.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseActionText, parseToolCall, parseToolCalls, renderAction, renderToolCall, stripWrappers } from '../../server/src/agents/replyFormat.js';
import { exampleTurns, plannerSystemPrompt } from '../../server/src/agents/prompts.js';
import { Ajv } from 'ajv';
import { jsonReplySchema, parseJsonReply, renderJsonReply } from '../../server/src/agents/jsonReply.js';
import { plannerTools } from '../../server/src/agents/toolSchemas.js';
import { actionSchema, protocolErrorCodes, type Action, type ProtocolErrorCode } from '../../server/src/protocol/actions.js';

function ok(reply: string): Action {
  const result = parseActionText(reply);
  assert.ok(result.ok, `expected an action, got ${JSON.stringify(result)}`);
  return result.action;
}

function fails(reply: string, code: ProtocolErrorCode, detail?: RegExp): void {
  const result = parseActionText(reply);
  assert.ok(!result.ok, `expected ${code}, got ${JSON.stringify(result)}`);
  assert.equal(result.error.code, code, result.error.detail);
  if (detail) assert.match(result.error.detail, detail);
  assert.ok(result.error.hint.length > 10, `the hint for ${code} is empty`);
}

const errorTable: Array<{ name: string; reply: string; code: ProtocolErrorCode; detail?: RegExp }> = [
  {
    name: 'two blocks in one reply',
    reply:
      '<function=explore>\n  <param name="op">find</param>\n  <param name="anchors">[{"kind":"function","text":"add"}]</param>\n</function>\n<function=submit></function>',
    code: 'invalid-multi-block',
  },
  { name: 'a second block opened before the first is closed', reply: '<function=explore>\n<function=submit></function>', code: 'invalid-multi-block' },
  { name: 'prose only', reply: 'I should look at calc.py first.', code: 'missing-function-tag', detail: /no <function/ },
  { name: 'an XML-ish tag without =NAME', reply: '<function name="submit"></function>', code: 'missing-function-tag', detail: /not in the form/ },
  { name: 'no terminator', reply: '<function=submit>\n  <param name="thought">done</param>\n', code: 'missing-function-tag', detail: /<\/function>/ },
  { name: 'a misspelt action', reply: '<function=sumbit></function>', code: 'unknown-action', detail: /did you mean submit/ },
  { name: 'an action the protocol lacks', reply: '<function=edit><param name="path">a.py</param></function>', code: 'unknown-action' },
  {
    name: 'a repeated parameter',
    reply: '<function=memory><param name="intent">commit</param><param name="intent">delete</param></function>',
    code: 'duplicate-param',
  },
  {
    name: 'subplan and plan together',
    reply: '<function=repair><param name="subplan">1) fix</param><param name="plan">1) fix</param></function>',
    code: 'duplicate-param',
    detail: /same parameter/,
  },
  {
    name: 'a misspelt parameter',
    reply: '<function=submit><param name="thougth">done</param></function>',
    code: 'unknown-param',
    detail: /did you mean thought/,
  },
  {
    name: 'the original fallback params (original system A.4)',
    reply: '<function=explore><param name="anchors">[{"kind":"file","text":"a.py"}]</param><param name="fallback_reason">x</param></function>',
    code: 'unknown-param',
  },
  { name: 'prose before the block', reply: 'Let me submit.\n<function=submit></function>', code: 'extra-text', detail: /before/ },
  { name: 'prose after the block', reply: '<function=submit></function>\nHope this helps!', code: 'extra-text', detail: /after/ },
  {
    name: 'prose between parameters',
    reply: '<function=submit>\n  note: done\n  <param name="thought">x</param>\n</function>',
    code: 'extra-text',
    detail: /not a <param>/,
  },
  { name: "R2E-Gym's <parameter=KEY>", reply: '<function=submit>\n<parameter=thought>done</parameter>\n</function>', code: 'extra-text' },
  { name: 'an unclosed parameter', reply: '<function=submit><param name="thought">done</function>', code: 'extra-text', detail: /not closed/ },
  {
    name: 'malformed anchors JSON',
    reply: '<function=explore><param name="op">find</param><param name="anchors">[{"kind": "function", "text": "add"]</param></function>',
    code: 'invalid-json-param',
    detail: /anchors/,
  },
  {
    name: 'malformed nodes JSON',
    reply: '<function=explore><param name="op">read</param><param name="nodes">["func:a.py#f",</param></function>',
    code: 'invalid-json-param',
  },
  { name: 'read without nodes', reply: '<function=explore><param name="op">read</param></function>', code: 'missing-required-param', detail: /nodes/ },
  { name: 'find without anchors', reply: '<function=explore><param name="op">find</param></function>', code: 'missing-required-param', detail: /anchor/ },
  {
    name: 'expand with neither anchors nor nodes',
    reply: '<function=explore><param name="op">expand</param><param name="hop">2</param></function>',
    code: 'missing-required-param',
  },
  {
    name: 'repair without a subplan',
    reply: '<function=repair><param name="focus_ids">["func:app/calc.py#add"]</param></function>',
    code: 'missing-required-param',
    detail: /subplan/,
  },
  { name: 'repair with a blank subplan', reply: '<function=repair><param name="subplan"><![CDATA[  \n ]]></param></function>', code: 'missing-required-param' },
  {
    name: 'hop with trailing junk',
    reply: '<function=explore><param name="nodes">["f"]</param><param name="op">expand</param><param name="hop">1x</param></function>',
    code: 'invalid-param',
    detail: /hop.*integer from 0 to 2.*1x/,
  },
  {
    name: 'hop out of range',
    reply: '<function=explore><param name="nodes">["f"]</param><param name="op">expand</param><param name="hop">5</param></function>',
    code: 'invalid-param',
    detail: /hop.*integer from 0 to 2.*got 5/,
  },
  {
    name: 'limit as a float',
    reply: '<function=explore><param name="anchors">[{"text":"add"}]</param><param name="limit">2.5</param></function>',
    code: 'invalid-param',
    detail: /limit/,
  },
  {
    name: 'apply that is not a boolean',
    reply: '<function=repair><param name="subplan">1) fix</param><param name="apply">maybe</param></function>',
    code: 'invalid-param',
    detail: /apply.*true or false.*maybe/,
  },
  {
    name: 'an op outside the enum',
    reply: '<function=explore><param name="op">search</param><param name="anchors">[{"text":"add"}]</param></function>',
    code: 'invalid-param',
    detail: /find, expand, read/,
  },
  {
    name: 'a memory intent outside the enum',
    reply: '<function=memory><param name="intent">save</param></function>',
    code: 'invalid-param',
    detail: /commit, delete/,
  },
  {
    name: 'an anchor with neither text nor id',
    reply: '<function=explore><param name="anchors">[{"kind":"function"}]</param></function>',
    code: 'invalid-param',
    detail: /anchors\[0\]/,
  },
  {
    name: 'an anchor kind outside the enum',
    reply: '<function=explore><param name="anchors">[{"kind":"module-ish","text":"a"}]</param></function>',
    code: 'invalid-param',
    detail: /anchors\[0\]\.kind/,
  },
  {
    name: 'nodes holding numbers',
    reply: '<function=explore><param name="op">read</param><param name="nodes">[1, 2]</param></function>',
    code: 'invalid-param',
    detail: /nodes\[0\].*string/,
  },
  { name: 'an unterminated CDATA', reply: '<function=repair><param name="subplan"><![CDATA[1) fix</param></function>', code: 'invalid-param', detail: /CDATA/ },
];

for (const row of errorTable) {
  test(`answers ${row.code} for ${row.name}`, () => fails(row.reply, row.code, row.detail));
}

test('the error table covers every protocol error code', () => {
  const covered = new Set(errorTable.map((r) => r.code));
  assert.deepEqual(
    protocolErrorCodes.filter((c) => !covered.has(c)),
    [],
  );
});

test('takes a multi-line CDATA subplan verbatim, with < and ]] inside', () => {
  const action = ok(`<function=repair>
  <param name="thought">add subtracts</param>
  <param name="subplan"><![CDATA[1) In add, if a < b and b > 0 ...
2) keep x[y[0]] as is
]]></param>
  <param name="focus_ids">["func:app/calc.py#add"]</param>
  <param name="apply">true</param>
</function>`);
  assert.deepEqual(action, {
    type: 'repair',
    thought: 'add subtracts',
    plan: '1) In add, if a < b and b > 0 ...\n2) keep x[y[0]] as is\n',
    focus_ids: ['func:app/calc.py#add'],
    apply: true,
  });
});

test('reads JSON parameters: a list of anchor objects, a node list, a lone anchor object', () => {
  const find = ok(
    '<function=explore><param name="op">find</param><param name="anchors">[{"kind": "function", "text": "add"}, {"kind": "file", "text": "app/calc.py"}, {"id": "func:app/calc.py#sub"}]</param></function>',
  );
  assert.equal(find.type, 'explore');
  assert.deepEqual(find.type === 'explore' && find.anchors, [
    { kind: 'function', text: 'add' },
    { kind: 'file', text: 'app/calc.py' },
    { kind: 'symbol', id: 'func:app/calc.py#sub' },
  ]);
  const read = ok('<function=explore>\n<param name="op">read</param>\n<param name="nodes">["func:app/calc.py#add", "file:app/calc.py"]</param>\n</function>');
  assert.deepEqual(read.type === 'explore' && read.nodes, ['func:app/calc.py#add', 'file:app/calc.py']);
  const lone = ok('<function=explore><param name="anchors">{"kind": "func", "text": "add"}</param></function>');
  assert.deepEqual(lone.type === 'explore' && lone.anchors, [{ kind: 'function', text: 'add' }]);
});

test('keeps free text as text: never JSON-decoded', () => {
  for (const text of ['- first', '3 files', '"quoted"', 'true', 'null', '{not json', '[1, 2]']) {
    const action = ok(`<function=noop><param name="thought">${text}</param></function>`);
    assert.equal(action.thought, text);
  }
  const memory = ok('<function=memory><param name="intent">delete</param><param name="selector">2</param></function>');
  assert.equal(memory.type === 'memory' && memory.selector, '2');
});

test('decodes typed parameters by what the field expects', () => {
  const bare = ok('<function=explore><param name="op">read</param><param name="nodes">func:app/calc.py#add</param></function>');
  assert.deepEqual(bare.type === 'explore' && bare.nodes, ['func:app/calc.py#add']);
  const quoted = ok(
    '<function=explore><param name="op">"read"</param><param name="nodes">"func:app/calc.py#add"</param><param name="limit">"3"</param></function>',
  );
  assert.deepEqual(quoted.type === 'explore' && [quoted.op, quoted.nodes, quoted.limit], ['read', ['func:app/calc.py#add'], 3]);
  const ints = ok(
    '<function=explore><param name="op">expand</param><param name="nodes">["f"]</param><param name="hop"> 2 </param><param name="limit">+7</param></function>',
  );
  assert.deepEqual(ints.type === 'explore' && [ints.hop, ints.limit], [2, 7]);
  for (const [text, value] of [
    ['true', true],
    ['False', false],
    ['YES', true],
    ['no', false],
    ['1', true],
    ['0', false],
  ] as const) {
    const repair = ok(`<function=repair><param name="subplan">1) fix</param><param name="apply">${text}</param></function>`);
    assert.equal(repair.type === 'repair' && repair.apply, value, text);
  }
  const focus = ok('<function=repair><param name="subplan">1) fix</param><param name="focus_ids">func:app/calc.py#add</param></function>');
  assert.deepEqual(focus.type === 'repair' && focus.focus_ids, ['func:app/calc.py#add']);
  const empty = ok('<function=explore><param name="op">read</param><param name="anchors"></param><param name="nodes">["f"]</param></function>');
  assert.deepEqual(empty.type === 'explore' && empty.anchors, []);
});

test('matches action names, parameter names and enum values case-insensitively', () => {
  const action = ok('<FUNCTION=Explore><PARAM NAME="OP">READ</PARAM><param name="Nodes">["func:a.py#f"]</param></FUNCTION>');
  assert.deepEqual(action.type === 'explore' && [action.op, action.nodes], ['read', ['func:a.py#f']]);
  const memory = ok(
    '<function=memory><param name="target">Observation</param><param name="scope">SESSION</param><param name="intent">Commit</param></function>',
  );
  assert.deepEqual(memory.type === 'memory' && [memory.target, memory.scope, memory.intent], ['observation', 'session', 'commit']);
});

test('read needs nodes, not anchors', () => {
  const action = ok('<function=explore><param name="op">read</param><param name="nodes">["func:app/calc.py#add"]</param></function>');
  assert.deepEqual(action.type === 'explore' && action.anchors, []);
});

test('accepts single-quoted names, plan as an alias of subplan, and whitespace between parameters', () => {
  const action = ok("<function=repair>\n\n\t<param name='plan'>1) fix add</param>\n   \n<param name = 'apply' >false</param>\n</function>\n");
  assert.deepEqual(action, { type: 'repair', plan: '1) fix add', apply: false, focus_ids: [] });
});

test('strips a <think> block and one markdown fence before parsing', () => {
  const action = ok(
    '<think>\nThe test fails in add. <function=noop></function> would waste a step.\n</think>\n\n```xml\n<function=submit>\n  <param name="thought">done</param>\n</function>\n```\n',
  );
  assert.deepEqual(action, { type: 'submit', thought: 'done' });
  // A chat template that opens <think> itself leaves only its end in the reply.
  assert.deepEqual(ok('reasoning...\n</think>\n<function=noop></function>'), { type: 'noop' });
  assert.equal(stripWrappers('```\n<function=noop></function>\n```'), '<function=noop></function>');
  fails('<think>unfinished reasoning <function=noop></function>', 'extra-text');
  fails('```\n<function=noop></function>\n```\n```\n<function=noop></function>\n```', 'invalid-multi-block');
});

test('a literal <function=…> inside CDATA is text, not a second block', () => {
  const action = ok('<function=noop><param name="thought"><![CDATA[next I will send <function=submit></function>]]></param></function>');
  assert.equal(action.thought, 'next I will send <function=submit></function>');
});

const roundTrips: Action[] = [
  {
    type: 'explore',
    thought: 'look add up',
    op: 'find',
    anchors: [
      { kind: 'function', text: 'add' },
      { kind: 'symbol', id: 'func:app/calc.py#add' },
    ],
    nodes: [],
    hop: 1,
    limit: 20,
  },
  { type: 'explore', op: 'expand', anchors: [], nodes: ['func:app/calc.py#add', 'class:app/m.py#A'], hop: 2, limit: 5 },
  { type: 'explore', thought: '', op: 'read', anchors: [], nodes: ['method:app/m.py#A.run'], hop: 0, limit: 100 },
  { type: 'memory', thought: 'keep them', target: 'explore', scope: 'session', intent: 'commit' },
  { type: 'memory', target: 'observation', scope: 'turn', intent: 'delete', selector: '  session:2 <latest> ' },
  { type: 'repair', thought: 'fix\nit', apply: true, plan: '1) a < b\n2) x]]>y ]]> z\n', focus_ids: ['func:app/calc.py#add'] },
  { type: 'repair', apply: false, plan: '- first', focus_ids: [] },
  {
    type: 'repair',
    apply: true,
    plan: '',
    focus_ids: [],
    patches: [
      { edits: [{ path: 'app/calc.py', start: 2, end: 2, new_text: '    return a + b  # </param></function>\n' }], summary: 'fix <add>' },
      { diff: '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n' },
    ],
  },
  { type: 'submit', thought: '"quoted" & 3 files' },
  { type: 'noop' },
];

for (const action of roundTrips) {
  test(`renders a ${action.type} action that parses back to itself (${renderAction(action).split('\n').length} lines)`, () => {
    assert.ok(actionSchema.safeParse(action).success, 'the table entry is not a valid action');
    assert.deepEqual(ok(renderAction(action)), action);
    const call = renderToolCall(action);
    const back = parseToolCall(call);
    assert.ok(back.ok, JSON.stringify(back));
    assert.deepEqual(back.action, action);
  });
}

test('renders one parameter per line in the contract order, subplan under its wire name, defaults left out', () => {
  const text = renderAction({ type: 'repair', thought: 't', apply: false, plan: '1) fix', focus_ids: ['func:a.py#f'] });
  assert.equal(
    text,
    '<function=repair>\n  <param name="thought">t</param>\n  <param name="subplan">1) fix</param>\n  <param name="focus_ids">["func:a.py#f"]</param>\n  <param name="apply">false</param>\n</function>',
  );
  // apply: true is the default: the rendering leaves it out, and parsing fills it back in.
  const lean = renderAction({ type: 'repair', thought: 't', apply: true, plan: '1) fix', focus_ids: ['func:a.py#f'] });
  assert.doesNotMatch(lean, /apply/);
  assert.deepEqual(ok(lean), { type: 'repair', thought: 't', apply: true, plan: '1) fix', focus_ids: ['func:a.py#f'] });
  const explore = renderAction({ type: 'explore', op: 'find', anchors: [{ kind: 'function', text: 'add' }], nodes: [], hop: 1, limit: 20 });
  assert.equal(explore, '<function=explore>\n  <param name="anchors">[{"kind":"function","text":"add"}]</param>\n</function>');
});

test('every example in the planner system prompt is a valid reply', () => {
  const blocks = plannerSystemPrompt.match(/<function=[a-z]+>[\s\S]*?<\/function>/g) ?? [];
  assert.equal(blocks.length, 6);
  assert.deepEqual(
    blocks.map((b) => ok(b).type),
    ['explore', 'explore', 'memory', 'repair', 'submit', 'noop'],
  );
});

test('reads a tool call whose arguments are a JSON string, coercing loose values', () => {
  const result = parseToolCall({ name: 'explore', arguments: '{"op": "READ", "nodes": "func:app/calc.py#add", "limit": "3"}' });
  assert.ok(result.ok, JSON.stringify(result));
  assert.deepEqual(result.action, { type: 'explore', op: 'read', anchors: [], nodes: ['func:app/calc.py#add'], hop: 1, limit: 3 });
  const repair = parseToolCall({ name: 'Repair', arguments: { subplan: '1) fix', apply: 'no', focus_ids: ['func:a.py#f'] } });
  assert.ok(repair.ok, JSON.stringify(repair));
  assert.deepEqual(repair.action, { type: 'repair', plan: '1) fix', apply: false, focus_ids: ['func:a.py#f'] });
  const anchors = parseToolCall({ name: 'explore', arguments: { anchors: '[{"kind": "file", "text": "app/calc.py"}]' } });
  assert.ok(anchors.ok && anchors.action.type === 'explore');
  assert.deepEqual(anchors.action.anchors, [{ kind: 'file', text: 'app/calc.py' }]);
  const submit = parseToolCall({ name: 'submit', arguments: '' });
  assert.deepEqual(submit, { ok: true, action: { type: 'submit' } });
});

test('answers tool calls that break the contract with protocol errors', () => {
  const two = parseToolCalls([
    { name: 'submit', arguments: '{}' },
    { name: 'noop', arguments: '{}' },
  ]);
  assert.equal(!two.ok && two.error.code, 'invalid-multi-block');
  const none = parseToolCalls([]);
  assert.equal(!none.ok && none.error.code, 'missing-function-tag');
  const badJson = parseToolCall({ name: 'explore', arguments: '{"op": "find", "anchors": [' });
  assert.equal(!badJson.ok && badJson.error.code, 'invalid-json-param');
  const notObject = parseToolCall({ name: 'explore', arguments: '[1]' });
  assert.equal(!notObject.ok && notObject.error.code, 'invalid-json-param');
  const unknown = parseToolCall({ name: 'search_code', arguments: '{}' });
  assert.equal(!unknown.ok && unknown.error.code, 'unknown-action');
  const extra = parseToolCall({ name: 'submit', arguments: '{"confidence": 0.9}' });
  assert.equal(!extra.ok && extra.error.code, 'unknown-param');
  const badBool = parseToolCall({ name: 'repair', arguments: '{"plan": "1) fix", "apply": "sure"}' });
  assert.equal(!badBool.ok && badBool.error.code, 'invalid-param');
  const missing = parseToolCall({ name: 'explore', arguments: '{"op": "read"}' });
  assert.equal(!missing.ok && missing.error.code, 'missing-required-param');
});

test('emits the five tools from the action schemas, without the type discriminator', () => {
  const tools = plannerTools();
  assert.deepEqual(
    tools.map((t) => t.function.name),
    ['explore', 'memory', 'repair', 'submit', 'noop'],
  );
  const explore = tools[0]?.function.parameters as { properties: Record<string, { enum?: string[]; maximum?: number; description?: string }> };
  assert.deepEqual(Object.keys(explore.properties), ['thought', 'op', 'anchors', 'nodes', 'hop', 'limit']);
  assert.deepEqual(explore.properties['op']?.enum, ['find', 'expand', 'read']);
  assert.equal(explore.properties['hop']?.maximum, 2);
  assert.ok(explore.properties['nodes']?.description?.includes('func:app/calc.py#add'));
  const repair = tools[2]?.function.parameters as { required: string[]; properties: Record<string, unknown> };
  assert.deepEqual(repair.required, ['plan']);
  assert.ok('patches' in repair.properties);
});

test('the example turns’ reply is a valid reply in the text format and as structured JSON', () => {
  const [user, text] = exampleTurns(renderAction);
  assert.equal(user?.role, 'user');
  assert.deepEqual(ok(text?.content ?? ''), {
    type: 'explore',
    thought: 'The issue points at greet; read it first.',
    op: 'read',
    anchors: [],
    nodes: ['func:app/greet.py#greet'],
    hop: 1,
    limit: 20,
  });
  const [, json] = exampleTurns(renderJsonReply);
  const parsed = parseJsonReply(json?.content ?? '');
  assert.ok(parsed.ok && parsed.action.type === 'explore');
});

test('the structured reply schema admits every valid reply and no explore the contract refuses for a missing list', () => {
  const validate = new Ajv({ strict: false }).compile(jsonReplySchema());
  const good = [
    { function: 'explore', arguments: { op: 'read', nodes: ['func:app/calc.py#add'] } },
    { function: 'explore', arguments: { op: 'find', anchors: [{ kind: 'function', text: 'add' }] } },
    { function: 'explore', arguments: { op: 'expand', nodes: ['func:app/calc.py#add'], hop: 1 } },
    { function: 'repair', arguments: { plan: '1) fix', focus_ids: ['func:app/calc.py#add'] } },
    { function: 'submit', arguments: { thought: 'done' } },
  ];
  for (const reply of good) {
    assert.ok(validate(reply), `${JSON.stringify(reply)}: ${JSON.stringify(validate.errors)}`);
    assert.ok(parseJsonReply(JSON.stringify(reply)).ok, `the contract takes what the schema admits: ${JSON.stringify(reply)}`);
  }
  const bad = [
    { function: 'explore', arguments: { op: 'read' } },
    { function: 'explore', arguments: { op: 'read', nodes: [] } },
    { function: 'explore', arguments: { op: 'read', nodes: ['x'], anchors: [{ kind: 'file', text: 'a.py' }] } },
    { function: 'explore', arguments: { op: 'find' } },
    { function: 'repair', arguments: { focus_ids: ['x'] } },
    { function: 'teleport', arguments: {} },
  ];
  for (const reply of bad) assert.equal(validate(reply), false, `${JSON.stringify(reply)} is refused by the schema`);
});
