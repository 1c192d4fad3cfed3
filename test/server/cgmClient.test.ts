/**
 * The CGM patch models against TEST PEERS (scripted HTTP servers, not models): the generate
 * body's shape as the CGM service receives it, its error statuses, and chat mode's prompts and
 * lenient reading of each choice.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { createCgmChatModel, createCgmHttpModel } from '../../server/src/agents/cgmClient.js';
import { createChatClient } from '../../server/src/agents/openaiClient.js';
import { cgmSystemPrompt, cgmUserPrompt } from '../../server/src/agents/prompts.js';
import { ModelClientError } from '../../server/src/agents/retry.js';
import type { PatchRequest } from '../../server/src/env/types.js';
import { startCgmTestPeer, type CgmTestPeer } from '../support/cgmTestPeer.js';
import { startOpenAiTestPeer, type OpenAiTestPeer } from '../support/openaiTestPeer.js';

let cgm: CgmTestPeer;
let chat: OpenAiTestPeer;
before(async () => {
  cgm = await startCgmTestPeer();
  chat = await startOpenAiTestPeer();
});
after(async () => {
  await cgm.close();
  await chat.close();
});
beforeEach(() => {
  cgm.reset();
  chat.reset();
});

const fileText = 'def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n';

const request: PatchRequest = {
  issue: { title: 'add subtracts', body: 'add(2, 3) returns -1' },
  plan: '1) In add, return a + b.',
  focus: [
    {
      node: { id: 'func:app/calc.py#add', kind: 'function', name: 'add', path: 'app/calc.py', span: { start: 1, end: 2 }, signature: 'def add(a, b)' },
      start: 1,
      end: 2,
      text: 'def add(a, b):\n    return a - b',
    },
  ],
  files: { 'app/calc.py': fileText },
  notes: ['test_add fails: assert -1 == 5'],
  constraints: { max_edits: 2, one_file: true },
};

const fix = { path: 'app/calc.py', start: 2, end: 2, new_text: '    return a + b\n' };
const signal = () => new AbortController().signal;

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => {
      assert.ok(e instanceof Error);
      return e;
    },
  );
}

test('posts the CGM service body built from the patch request and returns its edits', async () => {
  cgm.push({ kind: 'patch', edits: [{ path: 'app/calc.py', start: 2, end: 2, new_text: '    return a + b' }], summary: 'use +' });
  const model = createCgmHttpModel({ endpoint: cgm.endpoint, model: 'CodeFuse-CGM', temperature: 0.2, maxTokens: 1024, timeoutMs: 2000, retries: 0 });
  const candidates = await model.generate(request, signal());
  assert.deepEqual(candidates, [{ edits: [fix], summary: 'use +' }]);
  const sent = cgm.requests[0];
  assert.equal(sent?.authorization, undefined);
  assert.ok(sent?.generate, `the body does not match the generate schema: ${JSON.stringify(sent?.body)}`);
  assert.deepEqual(sent.body, {
    issue: { title: 'add subtracts', body: 'add(2, 3) returns -1' },
    plan: {
      targets: [{ path: 'app/calc.py', start: 1, end: 2, id: 'func:app/calc.py#add', confidence: 1, why: 'planner-focus' }],
      budget: {},
      priority_tests: [],
    },
    plan_text: '1) In add, return a + b.',
    subgraph: [{ path: 'app/calc.py', start: 1, end: 2, text: 'def add(a, b):\n    return a - b' }],
    snippets: [{ path: 'app/calc.py', start: 1, end: 2, snippet: ['def add(a, b):', '    return a - b'] }],
    constraints: { max_edits: 2, one_file_per_patch: true },
    model_config: { model: 'CodeFuse-CGM', temperature: 0.2, max_tokens: 1024 },
  });
});

test('sends the bearer key when given and leaves model_config out without a model', async () => {
  const guarded = await startCgmTestPeer({ apiKey: 'cgm-key', script: [{ kind: 'patch', edits: [fix] }] });
  try {
    const model = createCgmHttpModel({ endpoint: guarded.endpoint, apiKey: 'cgm-key', timeoutMs: 2000, retries: 0 });
    const [candidate] = await model.generate(request, signal());
    assert.deepEqual(candidate, { edits: [fix], summary: '1) In add, return a + b.' });
    assert.equal(guarded.requests[0]?.authorization, 'Bearer cgm-key');
    assert.equal(guarded.requests[0]?.generate?.model_config, undefined);
    const refused = await rejection(createCgmHttpModel({ endpoint: guarded.endpoint, timeoutMs: 2000, retries: 0 }).generate(request, signal()));
    assert.match(refused.message, /HTTP 401: invalid token/);
  } finally {
    await guarded.close();
  }
});

test('turns the service errors into errors that name the status and its detail', async () => {
  const model = createCgmHttpModel({ endpoint: cgm.endpoint, timeoutMs: 2000, retries: 0 });
  cgm.push({ kind: 'patch', edits: [] });
  const empty = await rejection(model.generate(request, signal()));
  assert.ok(empty instanceof ModelClientError);
  assert.deepEqual([empty.code, empty.status], ['http-5xx', 502]);
  assert.match(empty.message, /HTTP 502: CGM produced no edits/);

  cgm.push({ kind: 'status', status: 500, body: { detail: 'CUDA out of memory' } });
  assert.match((await rejection(model.generate(request, signal()))).message, /HTTP 500: CUDA out of memory/);

  const noTargets = await rejection(model.generate({ ...request, focus: [] }, signal()));
  assert.match(noTargets.message, /HTTP 400: plan.targets must not be empty/);
  assert.equal(cgm.requests.length, 3);
});

test('refuses a 200 answer without patch.edits or with no usable edit', async () => {
  const model = createCgmHttpModel({ endpoint: cgm.endpoint, timeoutMs: 2000, retries: 0 });
  cgm.push(
    { kind: 'json', body: { result: 'ok' } },
    { kind: 'json', body: { patch: { edits: [] } } },
    { kind: 'json', body: { patch: { edits: [{ start: 1, new_text: 'x' }] } } },
  );
  assert.match((await rejection(model.generate(request, signal()))).message, /without a patch.edits list/);
  assert.match((await rejection(model.generate(request, signal()))).message, /no usable edits: the reply has an empty edits list/);
  assert.match((await rejection(model.generate(request, signal()))).message, /no usable edits: none of its 1 edit\(s\) is usable \(no path\)/);
});

test('retries a 503 and a timeout before the service answers', async () => {
  cgm.push({ kind: 'status', status: 503 }, { kind: 'patch', edits: [fix], delayMs: 1000 }, { kind: 'patch', edits: [fix] });
  const model = createCgmHttpModel({ endpoint: cgm.endpoint, timeoutMs: 200, retries: 2, backoffMs: 1 });
  const candidates = await model.generate(request, signal());
  assert.equal(candidates.length, 1);
  assert.equal(cgm.requests.length, 3);
});

test('keeps at most max_edits edits of the answer', async () => {
  cgm.push({ kind: 'patch', edits: [fix, { ...fix, start: 1, end: 1, new_text: 'def add(a, b):\n' }, { ...fix, start: 5, end: 5 }] });
  const model = createCgmHttpModel({ endpoint: cgm.endpoint, timeoutMs: 2000, retries: 0 });
  const [candidate] = await model.generate(request, signal());
  assert.ok(candidate && 'edits' in candidate);
  assert.equal(candidate.edits.length, 2);
});

test('answers the health route', async () => {
  const response = await fetch(`${cgm.url}/healthz`);
  assert.deepEqual(await response.json(), { ok: true });
});

test('chat mode sends the CGM prompts and reads every choice leniently', async () => {
  const good = `Here is the patch:\n\`\`\`json\n${JSON.stringify({ patch: { edits: [{ path: 'app/calc.py', line: 2, text: '    return a + b' }], summary: 'plus' } })}\n\`\`\``;
  chat.push({ kind: 'content', content: good, moreChoices: ['I am not sure.', JSON.stringify({ edits: [fix] })] });
  const client = createChatClient({
    baseUrl: chat.baseUrl,
    model: 'cgm-chat',
    temperature: 0.2,
    topP: 0.9,
    maxTokens: 2048,
    timeoutMs: 2000,
    retries: 0,
    backoffMs: 1,
  });
  const model = createCgmChatModel({ client, n: 3 });
  const candidates = await model.generate(request, signal());
  assert.deepEqual(candidates, [
    { edits: [fix], summary: 'plus' },
    { edits: [fix], summary: '1) In add, return a + b.' },
  ]);
  const sent = chat.requests[0]?.chat;
  assert.equal(sent?.n, 3);
  assert.deepEqual(sent?.messages, [
    { role: 'system', content: cgmSystemPrompt },
    { role: 'user', content: cgmUserPrompt(request) },
  ]);
});

test('chat mode fails with the reason when no choice holds a patch', async () => {
  chat.push({ kind: 'content', content: 'The bug is in add.' });
  const client = createChatClient({
    baseUrl: chat.baseUrl,
    model: 'cgm-chat',
    temperature: 0.2,
    topP: 0.9,
    maxTokens: 2048,
    timeoutMs: 2000,
    retries: 0,
    backoffMs: 1,
  });
  const error = await rejection(createCgmChatModel({ client }).generate(request, signal()));
  assert.match(error.message, /cgm-chat.*no JSON object/);
});

test('the CGM user prompt has the issue, instruction, plan, numbered focus, files and notes', () => {
  const text = cgmUserPrompt(request);
  const sections = [...text.matchAll(/^\[(\w+)\]$/gm)].map((m) => m[1]);
  assert.deepEqual(sections, ['Issue', 'Instruction', 'Plan', 'Focus', 'Files', 'Notes']);
  assert.match(text, /func:app\/calc\.py#add \(function\) app\/calc\.py:1-2\n1 \| def add\(a, b\):\n2 \| {5}return a - b/);
  assert.match(text, /--- app\/calc\.py\n1 \| def add/);
  assert.match(text, /at most 2 edit\(s\), all in one file/);
  assert.match(text, /- test_add fails/);
  const bare = cgmUserPrompt({ ...request, files: {}, notes: [] });
  assert.doesNotMatch(bare, /\[Files\]|\[Notes\]/);
});
