/**
 * The group view's request over a real LSP connection, on a run folder the real environment
 * service wrote: episodes created over HTTP with their GRPO group (as Verl's agent loop sends its
 * `uid`) and driven with rendered replies, the training step read from the trainer's side when each
 * ends (as `gp train` does), then `graphPlanner/episode/group` answering each step's groups with
 * rewards, Verl's advantages under the run's config and aligned steps; and the metrics page's
 * `graphPlanner/runs/stepSamples` on a sample table with a repeated step and a bad line.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { renderAction } from '../../server/src/agents/index.js';
import type { Action } from '../../server/src/protocol/actions.js';
import { episodeGroupResultSchema, type EpisodeGroupResult, type GroupSelection } from '../../server/src/protocol/episodeGroup.js';
import { episodeCompareResultSchema } from '../../server/src/protocol/episodeView.js';
import { runStepSamplesResultSchema } from '../../server/src/protocol/stepSamplesView.js';
import { runLayout } from '../../server/src/runs/index.js';
import { EnvService } from '../../server/src/cluster/index.js';
import { startHarness, type Harness } from '../support/lspHarness.js';
import { plannedTasks, testDeps } from '../unit/rolloutDoubles.js';

const token = 'group-view-token';
let runDir: string;
let h: Harness;

function call(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          if ((res.statusCode ?? 0) >= 400) reject(new Error(`${path}: ${res.statusCode ?? 0} ${JSON.stringify(parsed)}`));
          else resolve(parsed);
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const noop: Action = { type: 'noop', thought: 'Look around first.' };
const submit: Action = { type: 'submit', thought: 'Done.' };

/** One rollout as an agent loop runs it: create with the group, send the replies, close. */
async function rollout(url: string, key: string, task: string, group: string, replies: readonly (Action | string)[]): Promise<string> {
  const created = await call(url, '/episodes', { client_key: key, task_id: task, group_id: group });
  const id = String(created['episode_id']);
  for (const [i, reply] of replies.entries()) {
    const answer = await call(url, `/episodes/${encodeURIComponent(id)}/step`, { turn: i + 1, reply: typeof reply === 'string' ? reply : renderAction(reply) });
    if (answer['done'] === true) break;
  }
  await call(url, `/episodes/${encodeURIComponent(id)}/close`, { reason: 'max_steps' });
  return id;
}

let step: number | undefined = 1;
const ids: Record<string, string> = {};

before(async () => {
  runDir = mkdtempSync(join(tmpdir(), 'gp-group-view-'));
  const tasks = new Map(plannedTasks(['t1', 't2']).map((t) => [t.task.task_id, t]));
  const service = new EnvService({
    runDir,
    tasks,
    deps: testDeps(() => ({ steps: 3 })).deps,
    maxOpen: 8,
    episodeDeadlineMs: 60_000,
    token,
    trainingStep: () => step,
  });
  const { url } = await service.start();
  try {
    // Step 1: task t1's group of three (two submit, one is cut at the step limit), task t2's of two.
    ids['a0'] = await rollout(url, 'a0', 't1', 'uid-a', [noop, submit]);
    ids['a1'] = await rollout(url, 'a1', 't1', 'uid-a', [noop, noop, submit]);
    ids['a2'] = await rollout(url, 'a2', 't1', 'uid-a', ['I am not sure which tool to call yet.', noop]);
    ids['b0'] = await rollout(url, 'b0', 't2', 'uid-b', [submit]);
    ids['b1'] = await rollout(url, 'b1', 't2', 'uid-b', [submit]);
    // The trainer logged step 1: what ends from now on belongs to step 2.
    step = 2;
    ids['c0'] = await rollout(url, 'c0', 't1', 'uid-c', [submit]);
  } finally {
    await service.close();
  }
  h = await startHarness({}, runDir);
});
after(async () => {
  await h.close();
  rmSync(runDir, { recursive: true, force: true });
});

async function group(selection: GroupSelection): Promise<EpisodeGroupResult> {
  const raw: unknown = await h.client.sendRequest('graphPlanner/episode/group', { run: runDir, selection });
  const parsed = episodeGroupResultSchema.safeParse(raw);
  assert.ok(parsed.success, `the answer does not match the schema the page validates with: ${JSON.stringify(raw).slice(0, 500)}`);
  return parsed.data;
}

test('a training episode’s trajectory names its GRPO group and member, and its end event its training step', () => {
  const start = JSON.parse(readFileSync(runLayout(runDir).trajectory(ids['a1'] ?? ''), 'utf8').split('\n')[0] ?? '{}') as { training?: unknown };
  assert.deepEqual(start.training, { group_id: 'uid-a', group_member: 1 });
  const ends = readFileSync(runLayout(runDir).events, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; episode_id?: string; training?: unknown })
    .filter((e) => e.kind === 'episode-end');
  assert.deepEqual(ends.find((e) => e.episode_id === ids['c0'])?.training, { group_id: 'uid-c', group_member: 0, step: 2 });
});

test('a step’s group: each rollout’s reward and Verl’s GRPO advantage, the other groups of the step, aligned rows and the first divergence', async () => {
  const g = await group({ kind: 'step', step: 1, taskId: 't1', groupId: null });
  assert.ok(g.ok, JSON.stringify(g));
  assert.deepEqual([g.step, g.taskId, g.groupId, g.steps], [1, 't1', 'uid-a', [1, 2]]);
  assert.deepEqual(
    g.columns.map((c) => [c.groupMember, c.state, c.totalReward]),
    [
      [0, 'resolved', 1],
      [1, 'resolved', 1],
      [2, 'unresolved', -0.5],
    ],
  );
  // Verl: mean 0.5, sample standard deviation sqrt((0.25 + 0.25 + 1) / 2), epsilon 1e-6.
  const std = Math.sqrt(1.5 / 2);
  g.columns.forEach((c, i) => assert.ok(Math.abs((c.advantage ?? NaN) - (i < 2 ? 0.5 : -1) / (std + 1e-6)) < 1e-9, `advantage of column ${i}: ${c.advantage}`));
  assert.match(g.advantage.note ?? '', /resolved_config\.yaml cannot be read/, 'without the run’s config the defaults are assumed, and said');
  assert.deepEqual(
    g.choices.map((c) => [c.taskId, c.groupId, c.size]),
    [
      ['t1', 'uid-a', 3],
      ['t2', 'uid-b', 2],
    ],
  );
  // The third rollout's reply that did not parse has a row of its own before the noop all three
  // share; the second rollout's extra noop comes before the submit it shares with the first.
  assert.deepEqual(
    g.rows.map((r) => r.cells.map((c) => (c === null ? null : `${c.row.kind}${c.row.step}`))),
    [
      [null, null, 'invalid1'],
      ['noop1', 'noop1', 'noop2'],
      [null, 'noop2', null],
      ['submit2', 'submit3', 'invalid3'],
    ],
  );
  assert.equal(g.divergence, 0);
  assert.deepEqual(
    g.rows[0]?.cells.map((c) => c?.differs ?? null),
    [null, null, true],
  );
  assert.deepEqual(
    g.rows.map((r) => r.same),
    [false, true, false, false],
  );
  assert.equal(g.rows[1]?.cells[0]?.texts.thought, 'Look around first.');
  assert.ok(g.rows.every((r) => r.cells.length === 3));
});

test('the latest step, an episode’s own group, and a task’s episodes across steps', async () => {
  const latest = await group({ kind: 'step', step: null, taskId: null, groupId: null });
  assert.ok(latest.ok);
  assert.deepEqual([latest.step, latest.groupId, latest.columns.length], [2, 'uid-c', 1]);
  const own = await group({ kind: 'episode', episodeId: ids['b1'] ?? '' });
  assert.ok(own.ok);
  assert.deepEqual([own.step, own.groupId, own.columns.map((c) => c.episodeId)], [1, 'uid-b', [ids['b0'], ids['b1']]]);
  assert.equal(own.divergence, null, 'two rollouts that both submitted at once never diverge');
  const task = await group({ kind: 'task', taskId: 't1' });
  assert.ok(task.ok);
  assert.deepEqual([task.step, task.columns.length], [null, 4]);
  assert.match(task.advantage.note ?? '', /not one GRPO group/);
  const missing = await group({ kind: 'step', step: 9, taskId: null, groupId: null });
  assert.deepEqual(missing, { ok: false, message: "No GRPO group ended in training step 9; the run's steps with groups are 1, 2." });
});

test('the advantage follows the run’s config: norm_adv_by_std_in_grpo off gives r − mean, and says so', async () => {
  writeFileSync(runLayout(runDir).resolvedConfig, 'training:\n  adv_estimator: grpo\nverl_overrides:\n  algorithm:\n    norm_adv_by_std_in_grpo: false\n');
  const g = await group({ kind: 'step', step: 1, taskId: 't1', groupId: null });
  assert.ok(g.ok);
  assert.deepEqual(
    g.columns.map((c) => c.advantage),
    [0.5, 0.5, -1],
  );
  assert.equal(g.advantage.normByStd, false);
  assert.match(g.advantage.note ?? '', /norm_adv_by_std_in_grpo is off/);
  rmSync(runLayout(runDir).resolvedConfig);
});

test('the metrics page’s sample tables: the steps that have one, the last table of a repeated step, and a bad line said', async () => {
  const line = (s: number, attempt: number, total: number) =>
    JSON.stringify({
      ts: '2026-01-01T00:00:00Z',
      attempt,
      step: s,
      total,
      episodes: [
        { episode_id: 'e', task_id: 't1', total_reward: 1, resolved: true, steps: 2, termination_reason: 'submitted', trajectory: 'trajectories/e.jsonl' },
      ],
    });
  writeFileSync(runLayout(runDir).stepSamples, `${line(1, 1, 5)}\n${line(2, 1, 6)}\n{"step": "three"}\n${line(2, 2, 7)}\n`);
  const ask = async (s: number | null) =>
    runStepSamplesResultSchema.parse(await h.client.sendRequest('graphPlanner/runs/stepSamples', { dir: runDir, step: s }));
  const latest = await ask(null);
  assert.deepEqual(latest.steps, [1, 2]);
  assert.deepEqual([latest.samples?.step, latest.samples?.attempt, latest.samples?.total], [2, 2, 7], 'the resumed attempt’s table of step 2 wins');
  assert.equal(latest.problems.length, 1);
  assert.match(latest.problems[0] ?? '', /line 3/);
  assert.equal((await ask(1)).samples?.total, 5);
  assert.equal((await ask(4)).samples, null);
  appendFileSync(runLayout(runDir).stepSamples, `${line(3, 2, 1)}\n`);
  assert.deepEqual((await ask(null)).steps, [1, 2, 3]);
});

test('the comparison carries each side’s thought, tool result and observation for its filters', async () => {
  const raw: unknown = await h.client.sendRequest('graphPlanner/episode/compare', {
    left: runLayout(runDir).trajectory(ids['a0'] ?? ''),
    right: runLayout(runDir).trajectory(ids['a2'] ?? ''),
  });
  const c = episodeCompareResultSchema.parse(raw);
  assert.ok(c.ok);
  const noopRow = c.rows.find((r) => r.left?.kind === 'noop' && r.right?.kind === 'noop');
  assert.equal(noopRow?.leftTexts?.thought, 'Look around first.');
  assert.equal(noopRow?.leftTexts?.result, 'nothing done');
  assert.ok((noopRow?.rightTexts?.observation ?? '') !== '', 'the observation the model read next');
  const unparsed = c.rows.find((r) => r.right?.kind === 'invalid');
  assert.equal(unparsed?.rightTexts?.thought, null, 'a reply that did not parse has no thought');
});
