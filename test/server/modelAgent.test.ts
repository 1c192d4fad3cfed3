/**
 * The model agent and the chat client against the OpenAI-compatible TEST PEER (a scripted HTTP
 * server, not a model): replies become actions or protocol errors, the fallback takes steps and
 * the history records them as valid blocks, and the client retries, times out, honours
 * Retry-After, stops on a caller's abort and sends the configured sampling settings.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { Agent } from '../../server/src/agents/agent.js';
import { createModelAgent, trimHistory } from '../../server/src/agents/modelAgent.js';
import { createChatClient, type ChatClientOptions } from '../../server/src/agents/openaiClient.js';
import { parseActionText, renderAction } from '../../server/src/agents/replyFormat.js';
import { plannerSystemPrompt } from '../../server/src/agents/prompts.js';
import { ModelClientError } from '../../server/src/agents/retry.js';
import { infrastructureFailure } from '../../server/src/rollout/infrastructure.js';
import type { Action } from '../../server/src/protocol/actions.js';
import type { ChatMessage } from '../../server/src/protocol/modelApi.js';
import type { Observation } from '../../server/src/protocol/observation.js';
import { startOpenAiTestPeer, type OpenAiTestPeer } from '../support/openaiTestPeer.js';

let peer: OpenAiTestPeer;
before(async () => {
  peer = await startOpenAiTestPeer();
});
after(() => peer.close());
beforeEach(() => peer.reset());

function observation(text: string, step = 0): Observation {
  const size = { nodes: 0, edges: 0, note_tokens: 0 };
  return {
    task_id: 'calc-1',
    step,
    max_steps: 10,
    issue: { title: 'add subtracts', body: '' },
    memory: { nodes: [], edges: 0, notes: [], size, limits: { nodes: 200, edges: 1000, note_tokens: 4000 } },
    done: false,
    text,
  };
}

function client(overrides: Partial<ChatClientOptions> = {}) {
  return createChatClient({
    baseUrl: peer.baseUrl,
    model: 'planner-test',
    temperature: 0.7,
    topP: 0.9,
    maxTokens: 512,
    timeoutMs: 2000,
    retries: 2,
    backoffMs: 5,
    ...overrides,
  });
}

const signal = () => new AbortController().signal;

const findAdd = '<function=explore>\n  <param name="op">find</param>\n  <param name="anchors">[{"kind": "function", "text": "add"}]</param>\n</function>';
const submitBlock = '<function=submit><param name="thought">done</param></function>';

/** A stand-in for the rule agent that returns the given actions in turn and records what it saw. */
function scriptedFallback(actions: Action[]) {
  const state = { created: 0, seen: [] as string[] };
  const factory = (): Agent => {
    state.created++;
    let i = 0;
    return {
      name: 'scripted-rule',
      act: (obs) => {
        state.seen.push(obs.text);
        const action = actions[Math.min(i++, actions.length - 1)];
        return Promise.resolve(action ? { action } : {});
      },
    };
  };
  return { factory, state };
}

function sentMessages(index: number): ChatMessage[] {
  const chat = peer.requests[index]?.chat;
  assert.ok(chat, `request ${index} did not match the chat request schema: ${JSON.stringify(peer.requests[index]?.body)}`);
  return chat.messages;
}

test('turns valid replies into actions and keeps the conversation', async () => {
  peer.push({ kind: 'content', content: findAdd }, { kind: 'content', content: `<think>tests pass</think>\n${submitBlock}` });
  const agent = createModelAgent({ client: client() });
  const first = await agent.act(observation('obs 0'), signal());
  assert.deepEqual(first.action, { type: 'explore', op: 'find', anchors: [{ kind: 'function', text: 'add' }], nodes: [], hop: 1, limit: 20 });
  assert.equal(first.response, findAdd);
  const second = await agent.act(observation('obs 1', 1), signal());
  assert.deepEqual(second.action, { type: 'submit', thought: 'done' });
  assert.deepEqual(sentMessages(1), [
    { role: 'system', content: plannerSystemPrompt },
    { role: 'user', content: 'obs 0' },
    { role: 'assistant', content: findAdd },
    { role: 'user', content: 'obs 1' },
  ]);
});

test('sends the model, sampling settings and no Authorization header without a key', async () => {
  peer.push({ kind: 'content', content: submitBlock });
  const completion = await client().complete([{ role: 'user', content: 'hi' }]);
  const request = peer.requests[0];
  assert.equal(request?.path, '/v1/chat/completions');
  assert.equal(request?.authorization, undefined);
  assert.deepEqual(
    {
      model: request?.chat?.model,
      temperature: request?.chat?.temperature,
      top_p: request?.chat?.top_p,
      max_tokens: request?.chat?.max_tokens,
      tools: request?.chat?.tools,
    },
    { model: 'planner-test', temperature: 0.7, top_p: 0.9, max_tokens: 512, tools: undefined },
  );
  assert.equal(completion.attempts, 1);
  assert.deepEqual(completion.usage, { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  assert.ok(completion.latencyMs >= 0);
});

test('sends the bearer key when given; a peer that demands one refuses a client without it', async () => {
  const guarded = await startOpenAiTestPeer({ apiKey: 'sk-test-123', script: [{ kind: 'content', content: submitBlock }] });
  try {
    const withKey = createChatClient({
      baseUrl: guarded.baseUrl,
      model: 'm',
      apiKey: 'sk-test-123',
      temperature: 0,
      topP: 1,
      maxTokens: 16,
      timeoutMs: 2000,
      retries: 2,
      backoffMs: 5,
    });
    assert.equal((await withKey.complete([{ role: 'user', content: 'hi' }])).content, submitBlock);
    assert.equal(guarded.requests[0]?.authorization, 'Bearer sk-test-123');
    const withoutKey = createChatClient({
      baseUrl: guarded.baseUrl,
      model: 'm',
      temperature: 0,
      topP: 1,
      maxTokens: 16,
      timeoutMs: 2000,
      retries: 2,
      backoffMs: 5,
    });
    const error = await withoutKey.complete([{ role: 'user', content: 'hi' }]).then(
      () => assert.fail('expected a 401'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ModelClientError);
    assert.equal(error.code, 'http-4xx');
    assert.equal(error.status, 401);
    assert.equal(error.attempts, 1);
    assert.match(error.message, /HTTP 401: Incorrect API key provided/);
    assert.doesNotMatch(error.message, /sk-test/);
  } finally {
    await guarded.close();
  }
});

test('without a fallback, a malformed reply becomes a protocol error the model sees next turn', async () => {
  const bad = 'I will look at add.\n<function=explore><param name="op">find</param></function>';
  peer.push({ kind: 'content', content: bad }, { kind: 'content', content: submitBlock });
  const agent = createModelAgent({ client: client() });
  const first = await agent.act(observation('obs 0'), signal());
  assert.equal(first.action, undefined);
  assert.equal(first.protocolError?.code, 'extra-text');
  assert.equal(first.response, bad);
  await agent.act(observation('Your last reply could not be used: extra-text', 1), signal());
  assert.deepEqual(sentMessages(1).slice(2), [
    { role: 'assistant', content: bad },
    { role: 'user', content: 'Your last reply could not be used: extra-text' },
  ]);
});

test('with a fallback, the fallback takes the step and the history records its action as a valid block', async () => {
  const ruleAction: Action = {
    type: 'explore',
    thought: 'rule: localise from the failure frame',
    op: 'expand',
    anchors: [{ kind: 'file', text: 'app/calc.py' }],
    nodes: [],
    hop: 1,
    limit: 20,
  };
  const { factory, state } = scriptedFallback([ruleAction, { type: 'repair', apply: true, plan: '', focus_ids: ['func:app/calc.py#add'] }]);
  peer.push(
    { kind: 'content', content: '<function=explore><param name="op">find</param><param name="hop">1x</param></function>' },
    { kind: 'content', content: 'no idea' },
    { kind: 'content', content: submitBlock },
  );
  const agent = createModelAgent({ client: client(), fallback: factory });
  const first = await agent.act(observation('obs 0'), signal());
  assert.deepEqual(first.action, ruleAction);
  assert.equal(first.fallbackReason, 'invalid-param');
  assert.match(first.response ?? '', /1x/);
  const second = await agent.act(observation('obs 1', 1), signal());
  assert.equal(second.fallbackReason, 'missing-function-tag');
  assert.equal(second.action?.type, 'repair');
  const third = await agent.act(observation('obs 2', 2), signal());
  assert.deepEqual(third.action, { type: 'submit', thought: 'done' });
  assert.equal(state.created, 1, 'the fallback agent is created once per episode');
  assert.deepEqual(state.seen, ['obs 0', 'obs 1']);
  const history = sentMessages(2);
  const recorded = history.filter((m) => m.role === 'assistant').map((m) => m.content ?? '');
  assert.equal(recorded[0], renderAction(ruleAction));
  for (const block of recorded) {
    const parsed = parseActionText(block);
    assert.ok(parsed.ok, `the history holds an invalid block: ${block} (${JSON.stringify(parsed)})`);
  }
  assert.doesNotMatch(recorded.join('\n'), /fallback_reason|1x|no idea/);
});

test('retries a timeout, then fails with code timeout and the attempts made', async () => {
  peer.push({ kind: 'content', content: submitBlock, delayMs: 1000 }, { kind: 'content', content: submitBlock, delayMs: 1000 });
  const agent = createModelAgent({ client: client({ timeoutMs: 100, retries: 1 }) });
  const error = await agent.act(observation('obs 0'), signal()).then(
    () => assert.fail('expected a timeout'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ModelClientError);
  assert.equal(error.code, 'timeout');
  assert.equal(error.attempts, 2);
  assert.match(error.message, /did not answer within 100 ms \(after 2 attempts\)/);
  assert.equal(peer.requests.length, 2);
});

test('with a fallback, a refused request hands the step over with reason client-<code>', async () => {
  peer.push({ kind: 'status', status: 400, body: { error: { message: 'bad sampling parameter' } } });
  const { factory } = scriptedFallback([{ type: 'noop', thought: 'rule' }]);
  const agent = createModelAgent({ client: client({ retries: 1 }), fallback: factory });
  const decision = await agent.act(observation('obs 0'), signal());
  assert.deepEqual(decision, { action: { type: 'noop', thought: 'rule' }, fallbackReason: 'client-http-4xx' });
});

test('a server that keeps failing is not handed to the fallback: the error ends the step, as an infrastructure failure', async () => {
  peer.push({ kind: 'status', status: 503, body: { error: { message: 'overloaded' } } }, { kind: 'status', status: 503 });
  const { factory, state } = scriptedFallback([{ type: 'noop', thought: 'rule' }]);
  const agent = createModelAgent({ client: client({ retries: 1 }), fallback: factory });
  await assert.rejects(agent.act(observation('obs 0'), signal()), (error: unknown) => error instanceof ModelClientError && error.code === 'http-5xx');
  assert.equal(state.created, 0, 'the fallback must not take a step the infrastructure failed');
  assert.deepEqual(infrastructureFailure(new ModelClientError('network', 'cannot reach chat endpoint', 4))?.code, 'model-unreachable');
  assert.equal(infrastructureFailure(new ModelClientError('http-4xx', 'bad request', 1)), undefined);
});

test('a text-format reply stops at </function>, which the agent writes back; the call is recorded', async () => {
  // Servers drop the stop string they matched: the peer answers the block without its terminator.
  peer.push({
    kind: 'content',
    content: '<function=submit>\n  <param name="thought">done</param>\n',
    finishReason: 'stop',
    usage: { prompt_tokens: 120, completion_tokens: 14 },
  });
  const agent = createModelAgent({ client: client() });
  const decision = await agent.act(observation('obs 0'), signal());
  assert.deepEqual(decision.action, { type: 'submit', thought: 'done' });
  assert.deepEqual(peer.requests[0]?.chat?.stop, ['</function>']);
  assert.equal(decision.model?.prompt_tokens, 120);
  assert.equal(decision.model?.completion_tokens, 14);
  assert.equal(decision.model?.finish_reason, 'stop');
  assert.equal(decision.model?.attempts, 1);
  assert.ok((decision.model?.generation_ms ?? -1) >= 0);
  // A reply cut at the token limit keeps its missing terminator, and fails to parse as it should.
  peer.push({ kind: 'content', content: '<function=submit>\n  <param name="thought">do', finishReason: 'length' });
  const cut = await agent.act(observation('obs 1', 1), signal());
  assert.equal(cut.protocolError?.code, 'extra-text');
  assert.equal(cut.parseFailure, 'extra-text');
});

test('with structured output, the request carries the JSON reply schema and the JSON reply becomes an action', async () => {
  peer.push(
    { kind: 'content', content: '{"function": "explore", "arguments": {"op": "read", "nodes": ["func:app/calc.py#add"]}}' },
    { kind: 'content', content: '{"function": "explore", "arguments": {"op": "re' },
  );
  const { factory } = scriptedFallback([{ type: 'submit', thought: 'rule' }]);
  const agent = createModelAgent({ client: client(), structuredOutput: 'json_object', fallback: factory });
  const first = await agent.act(observation('obs 0'), signal());
  assert.deepEqual(first.action, { type: 'explore', op: 'read', anchors: [], nodes: ['func:app/calc.py#add'], hop: 1, limit: 20 });
  const format = peer.requests[0]?.chat?.response_format;
  assert.equal(format?.type, 'json_object');
  assert.equal(peer.requests[0]?.chat?.stop, undefined, 'a JSON reply needs no terminator');
  // A JSON reply cut short fails to parse; the fallback takes the step and is recorded in JSON.
  const second = await agent.act(observation('obs 1', 1), signal());
  assert.equal(second.fallbackReason, 'invalid-json-param');
  assert.equal(second.parseFailure, 'invalid-json-param');
  peer.push({ kind: 'content', content: '{"function": "noop", "arguments": {}}' });
  await agent.act(observation('obs 2', 2), signal());
  const history = sentMessages(2);
  assert.equal(history[history.length - 2]?.content, '{"function":"submit","arguments":{"thought":"rule"}}');
  const openai = createModelAgent({ client: client(), structuredOutput: 'json_schema' });
  peer.push({ kind: 'content', content: '{"function": "noop", "arguments": {}}' });
  await openai.act(observation('obs 0'), signal());
  const schemaFormat = peer.requests[3]?.chat?.response_format;
  assert.ok(schemaFormat?.type === 'json_schema' && schemaFormat.json_schema.name === 'planner_action');
});

test('the history is trimmed to the prompt budget, and a server that still finds it too long gets half once', async () => {
  const long = 'x'.repeat(3000);
  for (let i = 0; i < 5; i++) peer.push({ kind: 'content', content: submitBlock });
  // 2,000 tokens at three characters each: the system prompt, the first and the last observation fit, not all five.
  const agent = createModelAgent({ client: client(), maxInputTokens: 4000, systemPrompt: 'sys' });
  for (let i = 0; i < 5; i++) await agent.act(observation(`${i} ${long}`, i), signal());
  const sent = sentMessages(4);
  assert.deepEqual(
    sent.map((m) => `${m.role}:${(m.content ?? '').slice(0, 1)}`),
    ['system:s', 'user:0', 'assistant:<', 'user:3', 'assistant:<', 'user:4'],
  );
  assert.equal(peer.requests.length, 5);
  peer.push(
    { kind: 'status', status: 400, body: { error: { message: 'Requested tokens (9000) exceed context window of 8192' } } },
    { kind: 'content', content: submitBlock },
  );
  const decision = await agent.act(observation(`5 ${long}`, 5), signal());
  assert.deepEqual(decision.action, { type: 'submit', thought: 'done' });
  const retried = sentMessages(6);
  assert.ok(retried.length < sentMessages(5).length, 'the second try sends fewer messages');
  assert.ok((decision.model?.trimmed_messages ?? 0) > 0);
});

test('an observation longer than the budget is cut with a marker saying how much was left out', async () => {
  peer.push({ kind: 'content', content: submitBlock });
  const agent = createModelAgent({ client: client(), observationBudget: 10 });
  await agent.act(observation('0123456789abcdef'), signal());
  assert.equal(sentMessages(0)[1]?.content, '0123456789\n[… 6 more characters of this observation left out]');
});

test('honours Retry-After on HTTP 429 and succeeds on the next attempt', async () => {
  peer.push({ kind: 'status', status: 429, retryAfter: '0.3', body: { error: { message: 'slow down' } } }, { kind: 'content', content: submitBlock });
  const started = performance.now();
  const completion = await client({ backoffMs: 1 }).complete([{ role: 'user', content: 'hi' }]);
  assert.equal(completion.attempts, 2);
  assert.ok(performance.now() - started >= 280, 'the client did not wait for Retry-After');
});

test('caps a long Retry-After at maxBackoffMs', async () => {
  peer.push({ kind: 'status', status: 429, retryAfter: '3600' }, { kind: 'content', content: submitBlock });
  const started = performance.now();
  const completion = await client({ maxBackoffMs: 50 }).complete([{ role: 'user', content: 'hi' }]);
  assert.equal(completion.attempts, 2);
  assert.ok(performance.now() - started < 2000);
});

test('retries HTTP 500 and succeeds', async () => {
  peer.push({ kind: 'status', status: 500, body: 'Internal Server Error' }, { kind: 'content', content: submitBlock });
  const completion = await client().complete([{ role: 'user', content: 'hi' }]);
  assert.equal(completion.attempts, 2);
  assert.equal(completion.content, submitBlock);
  assert.equal(peer.requests.length, 2);
});

test('does not retry HTTP 400 and names the status and the server text', async () => {
  peer.push({ kind: 'status', status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens" } } });
  const error = await client()
    .complete([{ role: 'user', content: 'hi' }])
    .then(
      () => assert.fail('expected a 400'),
      (e: unknown) => e,
    );
  assert.ok(error instanceof ModelClientError);
  assert.deepEqual([error.code, error.status, error.attempts], ['http-4xx', 400, 1]);
  assert.match(error.message, /HTTP 400: This model's maximum context length is 8192 tokens/);
  assert.equal(peer.requests.length, 1);
});

test('a caller abort stops at once, without retry or fallback', async () => {
  peer.push({ kind: 'content', content: submitBlock, delayMs: 5000 });
  const { factory, state } = scriptedFallback([{ type: 'noop' }]);
  const agent = createModelAgent({ client: client({ timeoutMs: 10_000 }), fallback: factory });
  const controller = new AbortController();
  const acting = agent.act(observation('obs 0'), controller.signal);
  // Abort once the request is in flight at the peer.
  while (peer.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  controller.abort();
  const error = await acting.then(
    () => assert.fail('expected an abort'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ModelClientError);
  assert.equal(error.code, 'aborted');
  assert.ok(performance.now() - started < 1000);
  assert.equal(peer.requests.length, 1);
  assert.equal(state.created, 0);
});

test('answers bad-response for a malformed body or one that is not a completion, without retry', async () => {
  peer.push({ kind: 'raw', body: '{"choices": [' }, { kind: 'raw', body: '{"object": "list", "data": []}' });
  for (const pattern of [/not JSON/, /not a chat completion \(choices/]) {
    const error = await client()
      .complete([{ role: 'user', content: 'hi' }])
      .then(
        () => assert.fail('expected bad-response'),
        (e: unknown) => e,
      );
    assert.ok(error instanceof ModelClientError);
    assert.equal(error.code, 'bad-response');
    assert.match(error.message, pattern);
  }
  assert.equal(peer.requests.length, 2);
});

test('retries a refused connection and reports a network error', async () => {
  const gone = await startOpenAiTestPeer();
  const baseUrl = gone.baseUrl;
  await gone.close();
  const error = await createChatClient({ baseUrl, model: 'm', temperature: 0, topP: 1, maxTokens: 8, timeoutMs: 1000, retries: 2, backoffMs: 1 })
    .complete([{ role: 'user', content: 'hi' }])
    .then(
      () => assert.fail('expected a network error'),
      (e: unknown) => e,
    );
  assert.ok(error instanceof ModelClientError);
  assert.deepEqual([error.code, error.attempts], ['network', 3]);
});

test('with tools, sends the five tools, reads a tool call and answers it with a tool message', async () => {
  peer.push(
    { kind: 'tool-calls', calls: [{ name: 'explore', arguments: '{"op": "read", "nodes": ["func:app/calc.py#add"]}' }] },
    {
      kind: 'tool-calls',
      calls: [
        { name: 'submit', arguments: '{}' },
        { name: 'noop', arguments: '{}' },
      ],
    },
    { kind: 'content', content: submitBlock },
  );
  const agent = createModelAgent({ client: client(), useTools: true });
  const first = await agent.act(observation('obs 0'), signal());
  assert.deepEqual(first.action, { type: 'explore', op: 'read', anchors: [], nodes: ['func:app/calc.py#add'], hop: 1, limit: 20 });
  assert.match(first.response ?? '', /<tool_call name="explore">/);
  const request = peer.requests[0]?.chat;
  assert.deepEqual(
    request?.tools?.map((t) => t.function.name),
    ['explore', 'memory', 'repair', 'submit', 'noop'],
  );
  assert.equal(request?.tool_choice, 'auto');
  const second = await agent.act(observation('obs 1', 1), signal());
  assert.equal(second.protocolError?.code, 'invalid-multi-block');
  const third = await agent.act(observation('obs 2', 2), signal());
  assert.deepEqual(third.action, { type: 'submit', thought: 'done' });
  const history = sentMessages(2).slice(2);
  assert.deepEqual(
    history.map((m) => [m.role, m.role === 'tool' ? m.tool_call_id : m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id).join(',') : '']),
    [
      ['assistant', 'call_0'],
      ['tool', 'call_0'],
      ['assistant', 'call_0,call_1'],
      ['tool', 'call_0'],
      ['tool', 'call_1'],
    ],
  );
  assert.equal(history[1]?.content, 'obs 1');
  assert.equal(history[3]?.content, 'obs 2');
});

test('with tools and a fallback, records the fallback action as a tool call the contract accepts', async () => {
  peer.push({ kind: 'tool-calls', calls: [{ name: 'explore', arguments: '{"op": "read"}' }] }, { kind: 'content', content: submitBlock });
  const { factory } = scriptedFallback([{ type: 'submit', thought: 'rule' }]);
  const agent = createModelAgent({ client: client(), useTools: true, fallback: factory });
  const first = await agent.act(observation('obs 0'), signal());
  assert.deepEqual([first.action, first.fallbackReason], [{ type: 'submit', thought: 'rule' }, 'missing-required-param']);
  await agent.act(observation('obs 1', 1), signal());
  const [assistant, tool] = sentMessages(1).slice(2);
  assert.equal(assistant?.role, 'assistant');
  const call = assistant?.role === 'assistant' ? assistant.tool_calls?.[0] : undefined;
  assert.deepEqual(call?.function, { name: 'submit', arguments: '{"thought":"rule"}' });
  assert.deepEqual(tool, { role: 'tool', tool_call_id: call?.id, content: 'obs 1' });
});

test('trims long histories to the system prompt, the first observation and the last messages', async () => {
  for (let i = 0; i < 6; i++) peer.push({ kind: 'content', content: submitBlock });
  const agent = createModelAgent({ client: client(), maxHistoryMessages: 3 });
  for (let i = 0; i < 6; i++) await agent.act(observation(`obs ${i}`, i), signal());
  const last = sentMessages(5);
  assert.deepEqual(
    last.map((m) => `${m.role}:${m.content ?? ''}`.slice(0, 20)),
    ['system:You are the G', 'user:obs 0', `assistant:${submitBlock}`.slice(0, 20), 'user:obs 4', `assistant:${submitBlock}`.slice(0, 20), 'user:obs 5'],
  );
  const short: ChatMessage[] = [
    { role: 'system', content: 's' },
    { role: 'user', content: 'u' },
  ];
  assert.deepEqual(trimHistory(short, 0), short);
});

test('sends stop strings only when configured', async () => {
  peer.push({ kind: 'content', content: submitBlock }, { kind: 'content', content: submitBlock });
  await client().complete([{ role: 'user', content: 'hi' }]);
  await client({ stop: ['<|im_end|>'] }).complete([{ role: 'user', content: 'hi' }]);
  assert.deepEqual(
    peer.requests.map((r) => r.chat?.stop),
    [undefined, ['<|im_end|>']],
  );
});

test('samples n choices for callers that ask for several', async () => {
  peer.push({ kind: 'content', content: 'a', moreChoices: ['b', 'c'] });
  const completion = await client().complete([{ role: 'user', content: 'hi' }], { n: 3 });
  assert.deepEqual(
    completion.choices.map((c) => c.content),
    ['a', 'b', 'c'],
  );
  assert.equal(peer.requests[0]?.chat?.n, 3);
});

test('example turns go after the system prompt and before the first observation, and are never trimmed', async () => {
  for (let i = 0; i < 4; i++) peer.push({ kind: 'content', content: submitBlock });
  const turns: ChatMessage[] = [
    { role: 'user', content: 'example observation' },
    { role: 'assistant', content: submitBlock },
  ];
  const agent = createModelAgent({ client: client(), systemPrompt: 'sys', exampleTurns: turns, maxHistoryMessages: 2 });
  for (let i = 0; i < 4; i++) await agent.act(observation(`obs ${i}`, i), signal());
  assert.deepEqual(
    sentMessages(3).map((m) => `${m.role}:${(m.content ?? '').slice(0, 11)}`),
    ['system:sys', 'user:example obs', 'assistant:<function=s', 'user:obs 0', 'assistant:<function=s', 'user:obs 3'],
  );
});

test('a server-specific sampling field goes into the request only when the client is given it', async () => {
  peer.push({ kind: 'content', content: 'a' }, { kind: 'content', content: 'b' });
  await client({ extraBody: { repeat_penalty: 1, top_k: 0 } }).complete([{ role: 'user', content: 'hi' }]);
  await client().complete([{ role: 'user', content: 'hi' }]);
  const [withExtra, without] = peer.requests.map((r) => r.body as Record<string, unknown>);
  assert.equal(withExtra?.['repeat_penalty'], 1);
  assert.equal(withExtra?.['top_k'], 0);
  assert.equal(withExtra?.['model'], 'planner-test', 'an extra field never replaces one of OpenAI’s');
  assert.equal('repeat_penalty' in (without ?? {}), false);
});
