/**
 * The episode runner and the pool with scripted test doubles (`rolloutDoubles.ts`) in place of the
 * real sandbox, environment and agent: what an episode writes, how failures, deadlines and
 * interrupts end it, the pool's bound, resume, what an interrupted run reports, and the backend
 * that ran.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runEventSchema, runReportSchema, runStatusSchema, trajectoryLineSchema } from '../../server/src/protocol/runs.js';
import { planEpisodes, runEpisode, runRollout, selectEpisodes, type RolloutOptions } from '../../server/src/rollout/index.js';
import { readReportView } from '../../server/src/views/index.js';
import { readTrajectory, runLayout } from '../../server/src/runs/index.js';
import { backendLine, totalsLine } from '../../server/src/cli/rolloutSummary.js';
import { plannedTasks, testDeps, type Doubles } from './rolloutDoubles.js';

function runDir(): string {
  return mkdtempSync(join(tmpdir(), 'gp-rollout-'));
}

function options(dir: string, doubles: Doubles, extra: Partial<RolloutOptions> = {}): RolloutOptions {
  return {
    runDir: dir,
    runName: 'test-run',
    command: 'gp rollout tasks.jsonl',
    agent: 'scripted',
    dataset: 'tasks.jsonl',
    parallel: 2,
    signal: new AbortController().signal,
    deps: doubles.deps,
    ...extra,
  };
}

function lines(path: string) {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => trajectoryLineSchema.parse(JSON.parse(l)));
}

const episodeContext = (dir: string, signal = new AbortController().signal) => ({ runDir: dir, signal, track: () => undefined });

test('an episode writes a start line, one step line per action with timings, and an end line', async () => {
  const dir = runDir();
  const doubles = testDeps(() => ({ steps: 2, agentDelayMs: 20, stepReward: -0.1 }));
  const [spec] = planEpisodes(plannedTasks(['t1']), 1);
  assert.ok(spec);
  const result = await runEpisode(spec, doubles.deps, episodeContext(dir));
  const all = lines(join(dir, result.trajectory));
  assert.deepEqual(
    all.map((l) => l.type),
    ['start', 'step', 'step', 'step', 'end'],
  );
  const steps = all.filter((l) => l.type === 'step');
  assert.deepEqual(
    steps.map((s) => s.step),
    [1, 2, 3],
  );
  for (const s of steps) assert.ok(s.timings.agent_ms >= 15, `agent_ms ${s.timings.agent_ms} measures the agent's 20 ms`);
  assert.equal(steps[2]?.timings.task_commands_ms, 3);
  assert.equal(result.end.resolved, true);
  assert.equal(result.end.steps, 3);
  assert.equal(result.end.termination_reason, 'submitted');
  assert.ok(Math.abs(result.end.total_reward - (1 - 0.2)) < 1e-9, `total reward is the sum of step rewards, got ${result.end.total_reward}`);
  assert.equal(result.end.patch, '--- a\n+++ b\n');
  assert.equal(doubles.occupancy.open, 0, 'the sandbox is closed');
});

test('an agent that throws ends its episode with reason error and the message; the run goes on', async () => {
  const dir = runDir();
  const doubles = testDeps((id) => (id === 'bad' ? { agentThrowsAt: 2 } : {}));
  const result = await runRollout(planEpisodes(plannedTasks(['bad', 'good']), 1), options(dir, doubles));
  const bad = result.finished.find((f) => f.end.task_id === 'bad');
  assert.equal(bad?.end.termination_reason, 'error');
  assert.match(bad?.end.error ?? '', /agent failed at step 2/);
  assert.equal(result.finished.find((f) => f.end.task_id === 'good')?.end.resolved, true);
  assert.equal(result.state, 'finished');
  assert.equal(doubles.occupancy.open, 0);
  assert.match(result.report.tasks.find((t) => t.task_id === 'bad')?.failure_reason ?? '', /^error: agent failed at step 2/);
});

test('an environment that throws ends the episode with reason error and closes the sandbox', async () => {
  const dir = runDir();
  const doubles = testDeps(() => ({ envThrowsAt: 1 }));
  const [spec] = planEpisodes(plannedTasks(['t']), 1);
  assert.ok(spec);
  const result = await runEpisode(spec, doubles.deps, episodeContext(dir));
  assert.equal(result.end.termination_reason, 'error');
  assert.match(result.end.error ?? '', /env failed at step 1/);
  assert.equal(doubles.sandboxes[0]?.closed, true);
});

test('a sandbox that does not open gives a trajectory with only an end line saying why', async () => {
  const dir = runDir();
  const doubles = testDeps(() => ({ openFails: 'image graph-planner/x is missing' }));
  const [spec] = planEpisodes(plannedTasks(['t']), 1);
  assert.ok(spec);
  const result = await runEpisode(spec, doubles.deps, episodeContext(dir));
  const all = lines(join(dir, result.trajectory));
  assert.deepEqual(
    all.map((l) => l.type),
    ['end'],
  );
  assert.equal(result.end.termination_reason, 'error');
  assert.match(result.end.error ?? '', /image graph-planner\/x is missing/);
});

test('the episode deadline covers an agent that ignores its signal: env.abort(episode_timeout) ends it', async () => {
  const dir = runDir();
  const doubles = testDeps(() => ({ agentHangsAt: 2, episodeTimeoutMs: 150 }));
  const [spec] = planEpisodes(plannedTasks(['t']), 1);
  assert.ok(spec);
  const started = Date.now();
  const result = await runEpisode(spec, doubles.deps, episodeContext(dir));
  assert.ok(Date.now() - started < 2000, 'it did not wait for the agent');
  assert.equal(result.end.termination_reason, 'episode_timeout');
  assert.deepEqual(doubles.envs[0]?.aborts, ['episode_timeout']);
  const all = lines(join(dir, result.trajectory));
  const last = all.at(-2);
  assert.equal(last?.type, 'step');
  assert.ok(last?.type === 'step' && last.action === undefined && last.termination_reason === 'episode_timeout' && last.done);
  assert.equal(result.end.steps, 1, 'one action was executed');
  assert.ok(Math.abs(result.end.total_reward - -0.5) < 1e-9, 'the abort penalty counts');
  assert.equal(doubles.sandboxes[0]?.closed, true);
});

test('a step that never returns is cut by the episode deadline too', async () => {
  const dir = runDir();
  const doubles = testDeps(() => ({ envHangsAt: 1, episodeTimeoutMs: 100 }));
  const [spec] = planEpisodes(plannedTasks(['t']), 1);
  assert.ok(spec);
  const result = await runEpisode(spec, doubles.deps, episodeContext(dir));
  assert.equal(result.end.termination_reason, 'episode_timeout');
  assert.equal(doubles.sandboxes[0]?.closed, true);
});

test('the pool never runs more than --parallel episodes at once, and does reach it', async () => {
  for (const parallel of [1, 3]) {
    const dir = runDir();
    const doubles = testDeps(() => ({ steps: 2, stepDelayMs: 15 }));
    const ids = Array.from({ length: 8 }, (_, i) => `t${i}`);
    const result = await runRollout(planEpisodes(plannedTasks(ids), 1), options(dir, doubles, { parallel }));
    assert.equal(doubles.occupancy.most, parallel, `most sandboxes open at once with --parallel ${parallel}`);
    assert.equal(doubles.occupancy.opened, 8);
    assert.equal(result.report.total, 8);
    assert.equal(result.report.resolved, 8);
  }
});

test('status.json, events.jsonl and report.json describe the run and validate', async () => {
  const dir = runDir();
  const doubles = testDeps((id) => (id === 't2' ? { resolved: false } : {}));
  await runRollout(planEpisodes(plannedTasks(['t1', 't2']), 2), options(dir, doubles));
  const layout = runLayout(dir);
  const status = runStatusSchema.parse(JSON.parse(readFileSync(layout.status, 'utf8')));
  assert.equal(status.state, 'finished');
  assert.deepEqual(status.episodes, { total: 4, finished: 4, resolved: 2, errored: 0 });
  const events = readFileSync(layout.events, 'utf8')
    .trim()
    .split('\n')
    .map((l) => runEventSchema.parse(JSON.parse(l)));
  assert.equal(events[0]?.kind, 'run-start');
  assert.equal(events.at(-1)?.kind, 'run-end');
  assert.equal(events.filter((e) => e.kind === 'episode-end').length, 4);
  const report = runReportSchema.parse(JSON.parse(readFileSync(layout.report, 'utf8')));
  assert.deepEqual(
    report.tasks.map((t) => t.episode_id),
    ['t1#1', 't1#2', 't2#1', 't2#2'],
  );
  assert.equal(report.resolved_rate, 0.5);
  assert.match(report.tasks[2]?.failure_reason ?? '', /tests failed: 1 test\(s\) failed/);
});

test('a submit with suspected reward hacking carries its evidence; the end line, report.json and the report page count it', async () => {
  const dir = runDir();
  const evidence = {
    kind: 'runner-internals' as const,
    path: 'app/calc.py',
    line: 4,
    evidence: 'import _pytest.runner',
    rule: "names pytest's private package _pytest",
  };
  const doubles = testDeps((id) => (id === 'hacky' ? { suspectedHacks: [evidence, { ...evidence, kind: 'git' as const, line: 5 }] } : {}));
  await runRollout(planEpisodes(plannedTasks(['hacky', 'honest']), 1), options(dir, doubles));
  const layout = runLayout(dir);
  const report = runReportSchema.parse(JSON.parse(readFileSync(layout.report, 'utf8')));
  const trajectory = (task: string) => join(dir, report.tasks.find((t) => t.task_id === task)?.trajectory ?? '');
  const hacky = lines(trajectory('hacky'));
  const submit = hacky.find((l) => l.type === 'step' && l.observation.last?.kind === 'submit');
  assert.ok(submit?.type === 'step' && submit.observation.last?.kind === 'submit');
  assert.deepEqual(submit.observation.last.suspected_hacks?.[0], evidence, 'the step records the evidence');
  const end = hacky.at(-1);
  assert.ok(end?.type === 'end');
  assert.equal(end.suspected_hacks, 2, 'the end line counts the signals');
  const honestEnd = lines(trajectory('honest')).at(-1);
  assert.ok(honestEnd?.type === 'end' && honestEnd.suspected_hacks === undefined, 'an honest episode carries no count');
  assert.equal(report.suspected_hacks, 1, 'report.json counts the episodes with suspected hacks');
  assert.deepEqual(
    report.tasks.map((t) => [t.task_id, t.suspected_hacks]),
    [
      ['hacky', 2],
      ['honest', undefined],
    ],
  );
  const view = await readReportView(dir);
  assert.ok(view.ok);
  assert.equal(view.report.summary.suspectedHacks, 1);
  assert.deepEqual(
    view.report.tasks.map((t) => t.episodes.map((e) => e.suspectedHacks)),
    [[2], [0]],
  );
});

test('resume keeps finished episodes byte for byte and redoes a torn and a missing one', async () => {
  const dir = runDir();
  const plan = planEpisodes(plannedTasks(['a', 'b', 'c']), 1);
  const first = testDeps();
  await runRollout(plan.slice(0, 2), options(dir, first, { parallel: 1 }));
  const layout = runLayout(dir);
  const finishedA = readFileSync(layout.trajectory('a'), 'utf8');
  // b is cut short: its end line is gone and a step line is half written, as after kill -9.
  const bLines = readFileSync(layout.trajectory('b'), 'utf8').trim().split('\n');
  writeFileSync(layout.trajectory('b'), `${bLines.slice(0, 2).join('\n')}\n{"type":"step","ste`);

  const selection = await selectEpisodes(plan, dir);
  assert.deepEqual(
    selection.finished.map((f) => f.end.episode_id),
    ['a'],
  );
  assert.deepEqual(
    selection.toRun.map((s) => s.episodeId),
    ['b', 'c'],
  );
  assert.deepEqual(selection.restarted, ['b']);

  const second = testDeps();
  const result = await runRollout(plan, options(dir, second));
  assert.deepEqual(second.occupancy.openedIds.sort(), ['b', 'c'], 'only the unfinished episodes ran');
  assert.equal(readFileSync(layout.trajectory('a'), 'utf8'), finishedA, 'the finished trajectory is untouched');
  const b = await readTrajectory(layout.trajectory('b'));
  assert.equal(b?.torn, false);
  assert.deepEqual(b?.problems, []);
  assert.ok(b?.end, 'b finished this time');
  assert.equal(result.resumed, 1);
  assert.equal(result.report.total, 3);
  const events = readFileSync(layout.events, 'utf8')
    .trim()
    .split('\n')
    .map((l) => runEventSchema.parse(JSON.parse(l)));
  const lastStart = events.filter((e) => e.kind === 'run-start').at(-1);
  assert.equal(lastStart?.kind === 'run-start' ? lastStart.resumed : -1, 1, 'run-start counts the resumed episodes');
});

test('an interrupt stops new episodes, ends running ones through env.abort, closes every sandbox', async () => {
  const dir = runDir();
  const doubles = testDeps(() => ({ agentHangsAt: 2 }));
  const controller = new AbortController();
  const ids = Array.from({ length: 6 }, (_, i) => `t${i}`);
  const running = runRollout(planEpisodes(plannedTasks(ids), 1), options(dir, doubles, { signal: controller.signal, parallel: 2 }));
  while (doubles.envs.length < 2) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 30));
  controller.abort();
  const result = await running;
  assert.equal(result.state, 'interrupted');
  assert.equal(doubles.occupancy.opened, 2, 'no episode started after the interrupt');
  assert.equal(doubles.occupancy.open, 0, 'every sandbox was closed');
  assert.deepEqual(
    doubles.envs.map((e) => e.aborts),
    [['interrupted'], ['interrupted']],
  );
  const status = runStatusSchema.parse(JSON.parse(readFileSync(runLayout(dir).status, 'utf8')));
  assert.equal(status.state, 'interrupted');
  assert.equal(result.notFinished.length, 6);
  // An interrupted episode is not finished: a resume runs it again.
  const selection = await selectEpisodes(planEpisodes(plannedTasks(ids), 1), dir);
  assert.equal(selection.toRun.length, 6);
  assert.ok(doubles.sandboxes.every((s) => s.closed));
  const t0 = await readTrajectory(runLayout(dir).trajectory('t0'));
  assert.equal(t0?.end?.termination_reason, 'interrupted');
});

test('a run where every episode errors ends failed and says why', async () => {
  const dir = runDir();
  const doubles = testDeps(() => ({ openFails: 'Docker daemon not reachable' }));
  const result = await runRollout(planEpisodes(plannedTasks(['a', 'b']), 1), options(dir, doubles));
  assert.equal(result.state, 'failed');
  assert.match(result.reason ?? '', /every episode ended with an error \(first: Docker daemon not reachable\)/);
});

test('attempts give episode ids task#n, each with its own trajectory file', () => {
  const plan = planEpisodes(plannedTasks(['x y']), 3);
  assert.deepEqual(
    plan.map((p) => p.episodeId),
    ['x y#1', 'x y#2', 'x y#3'],
  );
  const files = plan.map((p) => runLayout('/r').trajectoryRelative(p.episodeId));
  assert.equal(new Set(files).size, 3);
  for (const f of files) assert.match(f, /^trajectories\/[A-Za-z0-9._-]+\.jsonl$/);
});

test('a sandbox still opening when Ctrl-C arrives is closed once it opens, before the run returns', async () => {
  const dir = runDir();
  const doubles = testDeps(() => ({ openDelayMs: 150 }));
  const controller = new AbortController();
  const running = runRollout(planEpisodes(plannedTasks(['a', 'b', 'c']), 1), options(dir, doubles, { signal: controller.signal, parallel: 2 }));
  // Wait for both opens to begin rather than a fixed time: a slow machine may not have reached them after 30 ms.
  while (doubles.opensBegun() < 2) await new Promise((r) => setTimeout(r, 5));
  assert.equal(doubles.occupancy.opened, 0, 'both opens are still under way when the interrupt arrives');
  controller.abort();
  const result = await running;
  assert.equal(result.state, 'interrupted');
  assert.equal(doubles.occupancy.opened, 2, 'the two opening sandboxes did open');
  assert.equal(doubles.occupancy.open, 0, 'and were closed before runRollout returned');
  assert.equal(doubles.envs.length, 0, 'no environment was opened on them');
});

test('an interrupted run counts what ran and what did not in status.json, report.json and its summary line', async () => {
  const dir = runDir();
  const doubles = testDeps((id) => (id === 'a' || id === 'b' ? { steps: 0 } : { agentHangsAt: 1 }));
  const controller = new AbortController();
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  const running = runRollout(planEpisodes(plannedTasks(ids), 1), options(dir, doubles, { signal: controller.signal, parallel: 2 }));
  while (doubles.envs.length < 4) await new Promise((r) => setTimeout(r, 5));
  controller.abort();
  const result = await running;
  const expected = 'interrupted: 2 of 6 episodes ran, 2 resolved; 4 did not run';
  assert.equal(result.reason, expected);
  const status = runStatusSchema.parse(JSON.parse(readFileSync(runLayout(dir).status, 'utf8')));
  assert.equal(status.exit_reason, expected);
  assert.deepEqual(status.episodes, { total: 6, finished: 2, resolved: 2, errored: 0 });
  const report = runReportSchema.parse(JSON.parse(readFileSync(runLayout(dir).report, 'utf8')));
  assert.deepEqual([report.state, report.planned, report.total, report.not_finished, report.resolved], ['interrupted', 6, 2, 4, 2]);
  assert.equal(totalsLine(report).startsWith(`${expected} (100.0% of those that ran)`), true, totalsLine(report));
  assert.doesNotMatch(totalsLine(report), /^2\/2 resolved/);
});

test('a finished run says so in its report and keeps the plain totals line', async () => {
  const dir = runDir();
  const result = await runRollout(
    planEpisodes(plannedTasks(['a', 'b']), 1),
    options(
      dir,
      testDeps(() => ({ steps: 0 })),
    ),
  );
  assert.deepEqual([result.report.state, result.report.planned, result.report.not_finished], ['finished', 2, 0]);
  assert.match(totalsLine(result.report), /^2\/2 resolved \(100\.0%\), mean/);
});

test('a fall-back of auto to local is recorded per episode, summed in status.json and report.json, and announced once', async () => {
  const dir = runDir();
  const fallback = { code: 'daemon-unreachable' as const, reason: 'no Docker daemon at unix:///nonexistent (connect ENOENT /nonexistent)' };
  const announced: string[] = [];
  const doubles = testDeps(() => ({ steps: 0, fallback }));
  const result = await runRollout(
    planEpisodes(plannedTasks(['a', 'b', 'c']), 1),
    options(dir, doubles, { observer: { backendFallback: (f) => announced.push(f.reason) } }),
  );
  assert.deepEqual(announced, [fallback.reason], 'one announcement for three episodes');
  const summary = { episodes: { docker: 0, local: 3 }, fallbacks: [{ ...fallback, episodes: 3 }] };
  assert.deepEqual(result.backend, summary);
  assert.deepEqual(result.report.backend, summary);
  const status = runStatusSchema.parse(JSON.parse(readFileSync(runLayout(dir).status, 'utf8')));
  assert.deepEqual(status.backend, summary);
  const start = lines(runLayout(dir).trajectory('b'))[0];
  assert.deepEqual(start?.type === 'start' ? [start.backend, start.backend_fallback] : undefined, ['local', fallback]);
  const events = readFileSync(runLayout(dir).events, 'utf8')
    .trim()
    .split('\n')
    .map((l) => runEventSchema.parse(JSON.parse(l)));
  assert.equal(events.filter((e) => e.kind === 'warning' && e.message.includes('fell back')).length, 1);
  assert.equal(
    backendLine(summary),
    "backend: local (auto fell back: no Docker daemon at unix:///nonexistent (connect ENOENT /nonexistent); commands run on this host without a container's CPU and process limits, and without network or file isolation where bubblewrap cannot run)",
  );
});

test('a resumed run counts the backends of the episodes an earlier process finished', async () => {
  const dir = runDir();
  const plan = planEpisodes(plannedTasks(['a', 'b']), 1);
  const fallback = { code: 'image-missing' as const, reason: 'the Docker daemon at unix:///var/run/docker.sock has no image x' };
  await runRollout(
    plan.slice(0, 1),
    options(
      dir,
      testDeps(() => ({ steps: 0, fallback })),
    ),
  );
  const result = await runRollout(
    plan,
    options(
      dir,
      testDeps(() => ({ steps: 0 })),
    ),
  );
  assert.deepEqual(result.report.backend, { episodes: { docker: 0, local: 2 }, fallbacks: [{ ...fallback, episodes: 1 }] });
  assert.match(
    backendLine(result.report.backend ?? { episodes: { docker: 0, local: 0 }, fallbacks: [] }),
    /^backend: local \(auto fell back: the Docker daemon .* has no image x \(1 episode\); commands run on this host/,
  );
});

test('a resumed run removes what its dead owners left, even when no episode of theirs was cut short', async () => {
  // The earlier process finished `a` and was killed after creating a container for `b`, before
  // `b` wrote anything: no episode is restarted, yet a container may be there.
  const dir = runDir();
  const doubles = testDeps();
  await runRollout(planEpisodes(plannedTasks(['a']), 1), options(dir, doubles));
  const calls: boolean[] = [];
  const resumed = await runRollout(
    planEpisodes(plannedTasks(['a', 'b']), 1),
    options(dir, testDeps(), { reapContainers: async (includeLive) => (calls.push(includeLive), includeLive ? 0 : 1) }),
  );
  assert.deepEqual(calls, [false, true], "the dead owners' containers at the start, every container of the run at the end");
  assert.ok(resumed.warnings.includes('removed 1 container(s) an earlier process of this run left behind'), resumed.warnings.join('\n'));
});

test('a submit whose tests cannot be graded ends the episode as an infrastructure failure: no outcome, not in the rate, run again on resume', async () => {
  const dir = runDir();
  const doubles = testDeps((id) => (id === 'broken' ? { notGradable: 'pytest collected no tests (exit code 5): the tests never ran' } : {}));
  const result = await runRollout(planEpisodes(plannedTasks(['broken', 'good']), 1), options(dir, doubles));
  assert.deepEqual(
    result.finished.map((f) => f.end.task_id),
    ['good'],
    'only the gradable episode is an outcome',
  );
  assert.equal(result.report.total, 1);
  assert.deepEqual(
    result.report.infrastructure_failures?.map((f) => [f.task_id, f.code, f.cause]),
    [['broken', 'not-gradable', 'pytest collected no tests (exit code 5): the tests never ran']],
  );
  const end = (await readTrajectory(join(dir, 'trajectories', 'broken.jsonl')))?.end;
  assert.equal(end?.termination_reason, 'error');
  assert.match(end?.error ?? '', /^not gradable: pytest collected no tests/);
});
