/**
 * A fork's plan (launch/forkLaunch.ts) and what its agents are told of the replayed steps
 * (`Agent.prime`): the steps a fork may start at, the prefix it replays, the `gp rollout` command
 * line it becomes (task file from the parent's launch record, the parent's resolved config on its
 * backend, hints without embeddings when the recording had none), and its refusals.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseArgs } from 'node:util';
import { parseConfigFlags } from '../../server/src/config/index.js';
import { forkPrefix, forkRolloutArgs, forkableSteps, readForkParent, rolloutOptions } from '../../server/src/launch/index.js';
import { createModelAgent, RuleAgent } from '../../server/src/agents/index.js';
import type { ChatClient } from '../../server/src/agents/index.js';
import type { EpisodeModel } from '../../server/src/episodes/index.js';
import type { ChatMessage } from '../../server/src/protocol/modelApi.js';
import { summariseModel } from '../../server/src/rollout/modelFigures.js';

const fixture = 'test/fixtures/trajectories/sample-calc-add.jsonl';
const dir = mkdtempSync(join(tmpdir(), 'gp-fork-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function parentModel(): Promise<EpisodeModel> {
  const read = await readForkParent(fixture);
  assert.ok(read.ok, read.ok ? '' : read.message);
  return read.model;
}

/** A run folder holding the fixture as its episode, launched by `gp rollout` with `tasks` from `cwd`. */
function parentRun(name: string, launch: object | undefined, resolvedConfig = true): string {
  const run = join(dir, name);
  mkdirSync(join(run, 'trajectories'), { recursive: true });
  cpSync(fixture, join(run, 'trajectories', 'sample-calc-add.jsonl'));
  if (launch !== undefined) writeFileSync(join(run, 'launch.json'), JSON.stringify(launch));
  if (resolvedConfig) writeFileSync(join(run, 'resolved_config.yaml'), 'experiment:\n  name: parent\n');
  return run;
}

test('a fork starts at any recorded step of a finished episode, and replays the steps before it', async () => {
  const model = await parentModel();
  assert.deepEqual(forkableSteps(model), { first: 1, last: 4 });
  const prefix = forkPrefix(model, fixture, 3);
  assert.ok(prefix.ok);
  assert.deepEqual(
    prefix.prefix.steps.map((s) => [s.step, s.action?.type]),
    [
      [1, 'explore'],
      [2, 'explore'],
    ],
  );
  assert.equal(prefix.prefix.taskId, 'sample-calc-add');
  assert.equal(prefix.prefix.parent.step, 3);
  assert.equal(prefix.prefix.reset, model.start?.observation);
  assert.deepEqual(forkPrefix(model, fixture, 1).ok && forkPrefix(model, fixture, 1), {
    ok: true,
    prefix: { ...prefix.prefix, steps: [], parent: { ...prefix.prefix.parent, step: 1 } },
  });
  for (const step of [0, 5, 2.5]) {
    const refused = forkPrefix(model, fixture, step);
    assert.ok(!refused.ok);
    assert.match(refused.message, new RegExp(`--step ${step} is not a step of .*sample-calc-add\\.jsonl: it can be continued from step 1 to 4\\.`));
  }
});

test('an episode cut short may go on one step past its recording; a step without an action cannot be replayed', async () => {
  const model = await parentModel();
  const cut: EpisodeModel = { ...model, steps: model.steps.slice(0, 2), end: undefined, cutShort: true };
  assert.deepEqual(forkableSteps(cut), { first: 1, last: 3 });
  assert.ok(forkPrefix(cut, fixture, 3).ok);
  const second = model.steps[1];
  assert.ok(second !== undefined);
  const { action: _dropped, ...withoutAction } = second.record;
  const noAction: EpisodeModel = { ...model, steps: [model.steps[0], { ...second, record: withoutAction }, ...model.steps.slice(2)] as EpisodeModel['steps'] };
  const refused = forkPrefix(noAction, fixture, 4);
  assert.ok(!refused.ok);
  assert.match(refused.message, /step 2 of .* records no action, so the steps before 4 cannot be replayed\./);
});

test("a fork is a gp rollout of the parent's task under its run's resolved config, on its backend, in a folder beside it", async () => {
  const model = await parentModel();
  const tasks = join(dir, 'tasks.jsonl');
  writeFileSync(tasks, '{}\n');
  const run = parentRun('parent', { command: 'rollout', args: ['tasks.jsonl', '--parallel', '2'], cwd: dir, agent: 'rule', written_at: 'x' });
  const trajectory = join(run, 'trajectories', 'sample-calc-add.jsonl');
  const planned = await forkRolloutArgs(
    { trajectory, step: 3, count: 4, agent: 'model', sets: ['planner_sampling.temperature=0.7'], cwd: dir, now: new Date(Date.UTC(2026, 10, 29, 3, 4, 5)) },
    model,
  );
  assert.ok(planned.ok, planned.ok ? '' : planned.message);
  assert.deepEqual(planned.args, [
    'tasks.jsonl',
    '--task=sample-calc-add',
    '--config',
    'parent/resolved_config.yaml',
    '--backend',
    'local',
    // The recording's hints did not use embeddings, so the fork's do not either.
    '--set',
    'env.semantic_search=off',
    '--agent=model',
    '--attempts',
    '4',
    '--set=planner_sampling.temperature=0.7',
    '--fork-of',
    'parent/trajectories/sample-calc-add.jsonl',
    '--fork-step',
    '3',
    '--run-dir',
    'parent-fork-20261129-030405',
  ]);
  assert.deepEqual(planned.parent, { run, episode_id: 'sample-calc-add', trajectory, step: 3 });
  // A second fork in the same second gets a folder of its own.
  mkdirSync(planned.runDir);
  const again = await forkRolloutArgs({ trajectory, step: 3, count: 1, cwd: dir, now: new Date(Date.UTC(2026, 10, 29, 3, 4, 5)) }, model);
  assert.ok(again.ok);
  assert.equal(again.runDir, `${planned.runDir}-2`);
  // A config the person names replaces the run's, and with it the recorded backend.
  const own = await forkRolloutArgs({ trajectory, step: 2, count: 1, config: 'mine.yaml', cwd: dir, now: new Date() }, model);
  assert.ok(own.ok);
  assert.deepEqual(own.args.slice(0, 4), ['tasks.jsonl', '--task=sample-calc-add', '--config', 'mine.yaml']);
  assert.equal(own.args.includes('--backend'), false);
});

test('a fork whose parent run lacks what it needs says what to name', async () => {
  const model = await parentModel();
  const trajectoryOf = (run: string) => join(run, 'trajectories', 'sample-calc-add.jsonl');
  const request = (run: string) => ({ trajectory: trajectoryOf(run), step: 2, count: 1, cwd: dir, now: new Date() });
  const noLaunch = parentRun('no-launch', undefined);
  const a = await forkRolloutArgs(request(noLaunch), model);
  assert.ok(!a.ok);
  assert.match(a.message, /no-launch has .*; name the task file with --tasks FILE\./);
  const train = parentRun('train', { command: 'train', args: ['cfg.yaml'], cwd: dir, agent: 'model', written_at: 'x' });
  const b = await forkRolloutArgs(request(train), model);
  assert.ok(!b.ok);
  assert.match(b.message, /names no task file; name it with --tasks FILE\./);
  const gone = parentRun('gone', { command: 'rollout', args: ['missing.jsonl'], cwd: dir, agent: 'rule', written_at: 'x' });
  const c = await forkRolloutArgs(request(gone), model);
  assert.ok(!c.ok);
  assert.match(c.message, /the task file .*missing\.jsonl is gone; name the task file with --tasks FILE\./);
  const noConfig = parentRun('no-config', { command: 'rollout', args: ['tasks.jsonl'], cwd: dir, agent: 'rule', written_at: 'x' }, false);
  writeFileSync(join(dir, 'tasks.jsonl'), '{}\n');
  const d = await forkRolloutArgs(request(noConfig), model);
  assert.ok(!d.ok);
  assert.match(d.message, /has no resolved_config\.yaml, so its config is unknown; name one with --config YAML\./);
  const unreadable = join(dir, 'torn.jsonl');
  const [startLine, , ...rest] = (await import('node:fs')).readFileSync(fixture, 'utf8').trimEnd().split('\n');
  writeFileSync(unreadable, `${[startLine, '{"type":"step", not json', ...rest].join('\n')}\n`);
  const e = await readForkParent(unreadable);
  assert.ok(e.ok);
  const f = forkPrefix(e.model, unreadable, 1);
  assert.ok(!f.ok);
  assert.match(f.message, /torn\.jsonl: line 2: .*a fork replays the recording as it is, so it must read whole\./);
});

test('the rule agent told of the replayed steps goes on from them instead of starting over', async () => {
  const model = await parentModel();
  const [first, second] = model.steps;
  assert.ok(model.start !== undefined && first !== undefined && second !== undefined);
  // Told of steps 1 and 2 (an expand, then a read), it acts on what the read returned: it repairs.
  const primed = new RuleAgent();
  primed.prime(model.start.observation, { action: first.record.action });
  primed.prime(first.record.observation, { action: second.record.action });
  const next = await primed.act(second.record.observation);
  assert.equal(next.action?.type, model.steps[2]?.record.action?.type, 'it takes the step the parent took next');
  // Had the repair failed, it reads on: never the nodes the replayed read already read.
  const repaired = model.steps[2]?.record.observation;
  assert.ok(repaired?.last?.kind === 'repair');
  const failed = { ...repaired, last: { ...repaired.last, applied: false } };
  const readAgain = await primed.act(failed);
  const readBefore = second.record.action?.type === 'explore' ? second.record.action.nodes : [];
  assert.ok(readBefore.length > 0);
  const again = readAgain.action?.type === 'explore' && readAgain.action.op === 'read' ? readAgain.action.nodes : [];
  assert.deepEqual(
    again.filter((n) => readBefore.includes(n)),
    [],
    `it reads ${again.join(', ')} after ${readBefore.join(', ')}`,
  );
});

test('the model agent told of the replayed steps has them in its history, as it would have written them', async () => {
  const model = await parentModel();
  const [first, second] = model.steps;
  assert.ok(model.start !== undefined && first !== undefined && second !== undefined);
  const sent: ChatMessage[][] = [];
  const client: ChatClient = {
    model: 'test-peer',
    complete: (messages) => {
      sent.push([...messages]);
      return Promise.resolve({ content: 'not an action', toolCalls: [], finishReason: 'stop', usage: undefined, ms: 1, attempts: 1 } as never);
    },
  } as ChatClient;
  const agent = createModelAgent({ client });
  assert.ok(agent.prime !== undefined);
  agent.prime(model.start.observation, { action: first.record.action });
  agent.prime(first.record.observation, { protocolError: { code: 'extra-text', message: 'x' } as never, response: 'a reply that did not parse' });
  await agent.act(second.record.observation, new AbortController().signal);
  const messages = sent[0] ?? [];
  const roles = messages.slice(1).map((m) => m.role);
  assert.deepEqual(roles.slice(-5), ['user', 'assistant', 'user', 'assistant', 'user'], 'each replayed step is an observation and a reply');
  assert.match(String(messages.at(-4)?.content), /expand/, 'the replayed action is written as the model writes actions');
  assert.equal(messages.at(-2)?.content, 'a reply that did not parse', 'a reply that did not parse stays as it was');
});

test("a recording's task id that looks like a flag stays the task id when the command line is read back", async () => {
  const model = await parentModel();
  assert.ok(model.start !== undefined);
  const hostile: EpisodeModel = { ...model, start: { ...model.start, task_id: '--config=/etc/passwd' } };
  writeFileSync(join(dir, 'tasks.jsonl'), '{}\n');
  const run = parentRun('hostile', { command: 'rollout', args: ['tasks.jsonl'], cwd: dir, agent: 'rule', written_at: 'x' });
  const planned = await forkRolloutArgs(
    { trajectory: join(run, 'trajectories', 'sample-calc-add.jsonl'), step: 2, count: 1, sets: ['--run-name=x'], cwd: dir, now: new Date() },
    hostile,
  );
  assert.ok(planned.ok);
  const config = parseConfigFlags(planned.args);
  const values = parseArgs({ args: config.rest, options: rolloutOptions, allowPositionals: true, strict: true }).values;
  assert.deepEqual(values.task, ['--config=/etc/passwd']);
  assert.equal(values.config, 'hostile/resolved_config.yaml');
  assert.ok(
    config.errors.some((e) => /--set/.test(e)) || config.flags.overrides.every((o) => !o.flag.startsWith('--run-name')),
    'a --set value is never read as a flag of its own',
  );
});

test("a fork's replayed steps are not in its model's share: they were its parent's", () => {
  const usage = { model_steps: 2, parse_failures: {}, fallback_steps: 0, calls: 2, prompt_tokens: 10, completion_tokens: 5, generation_ms: 100 };
  const fork = summariseModel([{ resolved: false, steps: 6, model: { ...usage, replayed_steps: 2 } } as never], false);
  const whole = summariseModel([{ resolved: false, steps: 6, model: usage } as never], false);
  assert.equal(fork?.steps, 4);
  assert.equal(fork?.model_step_share, 0.5);
  assert.equal(whole?.steps, 6);
});

test("gp trajectory show names a fork's parent, marks its replayed steps and says where a replay diverged", async () => {
  const { runCli } = await import('../../server/src/cli/main.js');
  const lines = (await import('node:fs'))
    .readFileSync(fixture, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const fork = { run: '/runs/parent', episode_id: 'sample-calc-add', trajectory: '/runs/parent/trajectories/sample-calc-add.jsonl', step: 2 };
  const forked = lines.map((l) => {
    if (l['type'] === 'start') return { ...l, fork };
    if (l['type'] === 'step' && l['step'] === 1) return { ...l, replayed: true };
    if (l['type'] === 'end') return { ...l, fork_divergence: { step: 2, where: 'reward', recorded: '0.5', replayed: '0' } };
    return l;
  });
  const file = join(dir, 'forked.jsonl');
  writeFileSync(file, `${forked.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const out: string[] = [];
  assert.equal(await runCli(['trajectory', 'show', file], { out: (l) => out.push(l), err: () => undefined }, dir), 0);
  const text = out.join('\n');
  assert.match(text, /fork of sample-calc-add \(\/runs\/parent\/trajectories\/sample-calc-add\.jsonl\) from step 2: steps 1\.\.1 replayed from it/);
  assert.match(text, /step 1 [^\n]*\n {2}replayed from the fork's parent/);
  assert.doesNotMatch(text, /step 2 [^\n]*\n {2}replayed from the fork's parent/);
  assert.match(text, /the fork's replay diverged at step 2 \(reward\): recorded 0\.5; replayed 0/);
});

test("the viewer's header names a fork's parent and its step rows mark the replayed steps", async () => {
  const { episodeHeader, stepRow } = await import('../../server/src/episodes/episodeRows.js');
  const { buildEpisodeModel } = await import('../../server/src/episodes/index.js');
  const { parseTrajectory } = await import('../../server/src/runs/index.js');
  const lines = (await import('node:fs'))
    .readFileSync(fixture, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const fork = { run: '/runs/parent', episode_id: 'sample-calc-add', trajectory: '/runs/parent/trajectories/sample-calc-add.jsonl', step: 3 };
  const text = lines
    .map((l) => (l['type'] === 'start' ? { ...l, fork } : l['type'] === 'step' && Number(l['step']) < 3 ? { ...l, replayed: true } : l))
    .map((l) => JSON.stringify(l))
    .join('\n');
  const model = buildEpisodeModel(parseTrajectory(text));
  assert.deepEqual(episodeHeader('f.jsonl', model).fork, { episodeId: 'sample-calc-add', trajectory: fork.trajectory, step: 3 });
  assert.deepEqual(
    model.steps.map((v) => stepRow(v).replayed ?? false),
    [true, true, false, false],
  );
  const plain = buildEpisodeModel(parseTrajectory((await import('node:fs')).readFileSync(fixture, 'utf8')));
  assert.equal(episodeHeader('f.jsonl', plain).fork, undefined);
});
