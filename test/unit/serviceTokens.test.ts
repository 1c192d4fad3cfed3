/**
 * Training steps record the policy's tokens the agent loop sends with each reply (issue 23, item 2;
 * docs/trainer-bridge.md#tokens), over real HTTP on loopback with scripted episodes
 * (test/unit/rolloutDoubles.ts): the environment service writes them into the step as they came,
 * the prompts told as changes read back into whole prompts, a malformed `tokens` is a 400 that
 * names the field and leaves the episode waiting for the same turn, and the same holds through the
 * front door of a sandbox host (an in-process `SandboxHost` registered with a real `HostPool`).
 * The Python side is python/tests/test_step_tokens.py and test_agent_loop.py.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { stepBodyMaxBytes } from '../../server/src/protocol/envService.js';
import { hostSpecSchema } from '../../server/src/protocol/sandboxHosts.js';
import type { StepTokens } from '../../server/src/protocol/runs.js';
import { readTrajectory, runLayout } from '../../server/src/runs/index.js';
import { wholePrompts } from '../../server/src/episodes/index.js';
import { EnvService, HostPool, SandboxHost } from '../../server/src/cluster/index.js';
import { plannedTasks, testDeps } from './rolloutDoubles.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-service-tokens-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const token = 'tokens-test-token-0123456789';
const explore = '<function=explore>\n<parameter=op>find</parameter>\n<parameter=anchors>["add"]</parameter>\n</function>';
const submit = '<function=submit>\n</function>';

interface Reply {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

async function call(url: string, path: string, body: unknown): Promise<Reply> {
  const answer = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: answer.status, body: (await answer.json()) as Reply['body'] };
}

const tasks = new Map(plannedTasks(['t1']).map((t) => [t.task.task_id, t]));

async function episode(url: string, key: string): Promise<string> {
  const created = await call(url, '/episodes', { client_key: key, task_id: 't1', group_id: 'g' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return `/episodes/${encodeURIComponent(String(created.body['episode_id']))}`;
}

/** Three turns as the agent loop sends them: the first prompt whole, then changes, one with a rewritten junction. */
const turns: { reply: string; tokens: StepTokens }[] = [
  { reply: explore, tokens: { prompt_token_ids: [1, 2, 3, 4], completion_token_ids: [10, 11, 12], logprobs: [-0.5, -1.25, -0.03125] } },
  { reply: explore, tokens: { prompt_delta: { kept: 7, token_ids: [20, 21] }, completion_token_ids: [13, 14], logprobs: [-2, -0.75] } },
  { reply: submit, tokens: { prompt_delta: { kept: 10, token_ids: [30] }, completion_token_ids: [15] } },
];
const prompts = [
  [1, 2, 3, 4],
  [1, 2, 3, 4, 10, 11, 12, 20, 21],
  [1, 2, 3, 4, 10, 11, 12, 20, 21, 13, 30],
];

/** Sends the turns, closes the episode, and checks what its trajectory in `runDir` holds. */
async function runTurnsAndCheck(url: string, runDir: string, key: string): Promise<void> {
  const path = await episode(url, key);
  for (const [i, turn] of turns.entries()) {
    const answer = await call(url, `${path}/step`, { turn: i + 1, ...turn });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }
  const closed = await call(url, `${path}/close`, { reason: 'max_steps' });
  assert.equal(closed.status, 200, JSON.stringify(closed.body));
  const id = decodeURIComponent(path.split('/')[2] ?? '');
  const trajectory = await readTrajectory(runLayout(runDir).trajectory(id));
  assert.ok(trajectory !== undefined);
  assert.deepEqual(trajectory.problems, []);
  assert.deepEqual(
    trajectory.steps.map((s) => s.tokens),
    turns.map((t) => t.tokens),
    'each step holds the tokens sent with its reply, as they came',
  );
  assert.deepEqual(
    trajectory.steps.map((s) => s.response),
    turns.map((t) => t.reply),
  );
  assert.deepEqual(wholePrompts(trajectory.steps), prompts);
}

describe('the environment service records a training step’s tokens', () => {
  test('each step holds the tokens sent with its reply, and the prompts told as changes read back whole', async () => {
    const runDir = join(dir, 'direct');
    const service = new EnvService({ runDir, tasks, deps: testDeps(() => ({ steps: 5 })).deps, maxOpen: 2, episodeDeadlineMs: 60_000, token });
    const { url } = await service.start();
    try {
      await runTurnsAndCheck(url, runDir, 'direct');
    } finally {
      await service.close();
    }
  });

  test('a malformed tokens is a 400 naming the field, and the episode still waits for the same turn', async () => {
    const runDir = join(dir, 'refused');
    const service = new EnvService({ runDir, tasks, deps: testDeps(() => ({ steps: 5 })).deps, maxOpen: 2, episodeDeadlineMs: 60_000, token });
    const { url } = await service.start();
    try {
      const path = await episode(url, 'refused');
      const refused: [unknown, RegExp][] = [
        [{ prompt_token_ids: [1], completion_token_ids: [3, -1] }, /^tokens\.completion_token_ids\.1: a token id is never negative/],
        [{ prompt_token_ids: [1.5], completion_token_ids: [3] }, /^tokens\.prompt_token_ids\.0: a token id is a whole number/],
        [{ prompt_token_ids: ['7'], completion_token_ids: [3] }, /^tokens\.prompt_token_ids\.0:/],
        [{ completion_token_ids: [3, 4], logprobs: [-0.1] }, /^tokens\.logprobs: needs one log-probability per completion token/],
        [{ prompt_token_ids: [1], prompt_delta: { kept: 0, token_ids: [] }, completion_token_ids: [3] }, /^tokens\.prompt_delta: .*not both/],
        [{ prompt_token_ids: [1] }, /^tokens\.completion_token_ids:/],
        [{ prompt_delta: { kept: 0, token_ids: [5] }, completion_token_ids: [3] }, /^tokens\.prompt_delta: turn 1 .* the turn before sent no prompt tokens/],
      ];
      for (const [tokens, message] of refused) {
        const answer = await call(url, `${path}/step`, { turn: 1, reply: explore, tokens });
        assert.equal(answer.status, 400, JSON.stringify(tokens));
        assert.equal(answer.body.error?.code, 'invalid-body');
        assert.match(answer.body.error?.message ?? '', message);
      }
      // JSON has no NaN: a client that writes one sends a body that is not JSON.
      const nan = await call(url, `${path}/step`, `{"turn":1,"reply":"x","tokens":{"completion_token_ids":[1],"logprobs":[NaN]}}`);
      assert.equal(nan.status, 400);
      assert.equal(nan.body.error?.code, 'not-json');
      // Nothing of the refused bodies advanced the episode: turn 1 is still the one it waits for.
      const first = await call(url, `${path}/step`, { turn: 1, reply: explore, tokens: { prompt_token_ids: [1, 2], completion_token_ids: [3] } });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const tooFar = await call(url, `${path}/step`, {
        turn: 2,
        reply: explore,
        tokens: { prompt_delta: { kept: 4, token_ids: [9] }, completion_token_ids: [3] },
      });
      assert.equal(tooFar.status, 400);
      assert.match(tooFar.body.error?.message ?? '', /^tokens\.prompt_delta\.kept: 4 is more than the 3 tokens of the previous turn's prompt and completion/);
      // A step without tokens is recorded without them, and a change cannot follow it.
      assert.equal((await call(url, `${path}/step`, { turn: 2, reply: explore })).status, 200);
      const orphan = await call(url, `${path}/step`, {
        turn: 3,
        reply: explore,
        tokens: { prompt_delta: { kept: 0, token_ids: [9] }, completion_token_ids: [3] },
      });
      assert.equal(orphan.status, 400);
      assert.match(orphan.body.error?.message ?? '', /the turn before sent no prompt tokens/);
      assert.equal((await call(url, `${path}/close`, { reason: 'max_steps' })).status, 200);
      const trajectory = await readTrajectory(join(runDir, 'trajectories', `${decodeURIComponent(path.split('/')[2] ?? '')}.jsonl`));
      assert.deepEqual(
        trajectory?.steps.map((s) => s.tokens),
        [{ prompt_token_ids: [1, 2], completion_token_ids: [3] }, undefined, undefined],
        'the refused bodies left nothing; the turn without tokens, and the end the close made, have none',
      );
    } finally {
      await service.close();
    }
  });

  test('a step body may hold a whole prompt of hundreds of thousands of tokens, and no more than its cap', async () => {
    const runDir = join(dir, 'large');
    const service = new EnvService({ runDir, tasks, deps: testDeps(() => ({ steps: 5 })).deps, maxOpen: 2, episodeDeadlineMs: 60_000, token });
    const { url } = await service.start();
    try {
      const path = await episode(url, 'large');
      // About 2.9 MB: over the 2 MB every other body may hold, well under the step's cap.
      const prompt = Array.from({ length: 400_000 }, (_, i) => 100_000 + (i % 50_000));
      const large = await call(url, `${path}/step`, { turn: 1, reply: explore, tokens: { prompt_token_ids: prompt, completion_token_ids: [1] } });
      assert.equal(large.status, 200, JSON.stringify(large.body).slice(0, 300));
      const over = await call(url, `${path}/step`, { turn: 2, reply: 'x'.repeat(stepBodyMaxBytes), tokens: { completion_token_ids: [1] } });
      assert.equal(over.status, 413);
      assert.equal(over.body.error?.code, 'body-too-large');
      assert.equal((await call(url, `${path}/close`, { reason: 'max_steps' })).status, 200);
    } finally {
      await service.close();
    }
  });
});

describe('through a sandbox host', () => {
  test('the front door passes the tokens on, the host records them, and they come back in the run folder', async () => {
    const pool = new HostPool({ healthIntervalMs: 60_000 });
    const registry = await pool.start();
    const spec = hostSpecSchema.parse({ run_name: 'tokens', registry, config_text: '', tasks_text: '', episode_deadline_ms: 60_000, cli: ['node'] });
    const doubles = testDeps(() => ({ steps: 5 }));
    const host = new SandboxHost({
      spec,
      node: 'node-a',
      slots: 2,
      listen: '127.0.0.1',
      scratch: join(dir, 'host-scratch'),
      tasks,
      depsFor: () => doubles.deps,
      images: () => Promise.resolve([]),
      reap: () => Promise.resolve(0),
      log: () => undefined,
    });
    const runDir = join(dir, 'front');
    const front = new EnvService({ runDir, tasks, deps: doubles.deps, maxOpen: 2, episodeDeadlineMs: 60_000, hosts: pool, token });
    try {
      await host.start();
      assert.equal(await pool.waitForHosts(1, 10_000, new AbortController().signal), true);
      const { url } = await front.start();
      await runTurnsAndCheck(url, runDir, 'through-host');
      // The host checks a change against the turn before, and its 400 reaches the client as it came.
      const path = await episode(url, 'through-host-refused');
      const refused = await call(url, `${path}/step`, {
        turn: 1,
        reply: explore,
        tokens: { prompt_delta: { kept: 0, token_ids: [1] }, completion_token_ids: [2] },
      });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error?.code, 'invalid-body');
      assert.match(refused.body.error?.message ?? '', /^tokens\.prompt_delta: turn 1/);
      assert.equal((await call(url, `${path}/close`, { reason: 'interrupted' })).status, 200);
    } finally {
      await front.close();
      await host.stop();
      await pool.close();
    }
  });
});

describe('wholePrompts', () => {
  test('a change after a step without tokens, or keeping more than there was, is not read back', () => {
    const first: StepTokens = { prompt_token_ids: [1], completion_token_ids: [2] };
    assert.deepEqual(wholePrompts([{ tokens: first }, {}, { tokens: { prompt_delta: { kept: 1, token_ids: [3] }, completion_token_ids: [4] } }]), [
      [1],
      undefined,
      undefined,
    ]);
    assert.deepEqual(wholePrompts([{ tokens: first }, { tokens: { prompt_delta: { kept: 3, token_ids: [3] }, completion_token_ids: [4] } }]), [[1], undefined]);
    assert.deepEqual(wholePrompts([{ tokens: first }, { tokens: { prompt_delta: { kept: 0, token_ids: [3] }, completion_token_ids: [4] } }]), [[1], [3]]);
  });
});
