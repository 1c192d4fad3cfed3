/**
 * The planner environment on real sandboxes: the sample task's repository on the local backend (a
 * working copy) and in a Docker container, driven action by action, then whole rule-agent episodes.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { resolve } from 'node:path';
import Docker from 'dockerode';
import { createRuleAgent } from '../../server/src/agents/ruleAgent.js';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { openPlannerEnv, type EnvOptions, type PlannerEnv } from '../../server/src/env/index.js';
import { defaultSandboxOptions, envOptionsFromConfig } from '../../server/src/launch/index.js';
import type { RepairAction } from '../../server/src/protocol/actions.js';
import { observationSchema, type ActionResult } from '../../server/src/protocol/observation.js';
import { repairHeadline } from '../../server/src/protocol/repairCandidates.js';
import { openSandbox, sandboxSpecForTask, type Sandbox } from '../../server/src/sandbox/index.js';
import { loadTasks } from '../../server/src/tasks/loadTasks.js';
import { gradePassed, runTaskTests } from '../../server/src/testing/index.js';
import type { TaskEntry } from '../../server/src/tasks/index.js';

const datasetFile = resolve('datasets/sample/tasks.jsonl');
const run = `env-test-${process.pid}`;
const opened: Sandbox[] = [];

async function sampleTask(id = 'sample-calc-add'): Promise<TaskEntry> {
  const loaded = await loadTasks(datasetFile);
  const found = loaded.tasks.find((t) => t.task.task_id === id);
  assert.ok(found, `${id} is in ${datasetFile}`);
  return found.task;
}

function options(task: TaskEntry, over: Partial<EnvOptions['limits']> = {}, rewards: Partial<EnvOptions['rewards']> = {}): EnvOptions {
  const config = experimentConfigSchema.parse({ env: { failure_penalty: 1, step_penalty: 0.05, timeout_penalty: 0.5 } });
  const base = envOptionsFromConfig(config, task);
  return { ...base, limits: { ...base.limits, ...over }, rewards: { ...base.rewards, ...rewards } };
}

async function open(backend: 'local' | 'docker', task: TaskEntry, over: Partial<EnvOptions['limits']> = {}): Promise<PlannerEnv> {
  const sandbox = await openSandbox(sandboxSpecForTask(task, { ...defaultSandboxOptions(), backend, run, baseDir: resolve('datasets/sample') }));
  opened.push(sandbox);
  return openPlannerEnv(task, sandbox, options(task, over));
}

after(async () => {
  await Promise.all(opened.map((s) => s.close()));
  const left = await new Docker().listContainers({ all: true, filters: { label: [`graph-planner.run=${run}`] } });
  assert.deepEqual(left, [], 'the env tests left containers behind');
});

for (const backend of ['local', 'docker'] as const) {
  test(`${backend}: explore, read, repair without applying, repair that keeps the passing candidate, submit`, async () => {
    const task = await sampleTask();
    const env = await open(backend, task);
    const first = await env.reset();
    observationSchema.parse(first);
    assert.ok(first.hints?.includes('func:app/calc.py#add'), `hints: ${first.hints?.join(', ')}`);
    assert.match(first.text, /func:app\/calc\.py#add/, 'the rendered text names the node id the model may cite');

    const found = await env.step({ type: 'explore', op: 'find', anchors: [{ kind: 'function', text: 'add' }], nodes: [], hop: 1, limit: 5 });
    assert.equal(found.observation.last?.kind, 'find');
    assert.equal(found.reward, -0.05);
    const read = await env.step({ type: 'explore', op: 'read', anchors: [], nodes: ['func:app/calc.py#add'], hop: 1, limit: 3 });
    const snippet = read.observation.last?.kind === 'read' ? read.observation.last.snippets[0] : undefined;
    assert.ok(snippet && /return lhs - rhs/.test(snippet.text), JSON.stringify(read.observation.last));
    const line = snippet.start + snippet.text.split('\n').findIndex((l) => l.includes('lhs - rhs'));

    const edit = (text: string) => ({ edits: [{ path: 'app/calc.py', start: line, end: line, new_text: text }] });
    const dry = await env.step({
      type: 'repair',
      apply: false,
      plan: 'Use + in add.',
      focus_ids: ['func:app/calc.py#add'],
      patches: [edit('    return lhs + rhs\n')],
    });
    assert.equal(dry.observation.last?.kind === 'repair' && dry.observation.last.candidates[0]?.diff.includes('+    return lhs + rhs'), true);
    assert.equal(await env.patch(), '', 'apply=false leaves the repository untouched');

    const fixed = await env.step({
      type: 'repair',
      apply: true,
      plan: 'Use + in add.',
      focus_ids: ['func:app/calc.py#add'],
      patches: [
        edit('    return lhs // rhs\n'),
        { edits: [{ path: 'app/calc.py', start: 90, end: 90, new_text: 'x\n' }] },
        edit('    return lhs + rhs\n'),
        edit('    return rhs + lhs\n'),
      ],
    });
    const result = fixed.observation.last;
    assert.ok(result?.kind === 'repair');
    assert.equal(result.applied, true);
    assert.equal(result.kept, 2);
    assert.equal(result.proposed, 4);
    const after = result.candidates[3];
    assert.ok(after);
    assert.equal(after.tests, undefined, 'the candidate after the kept one is not tried');
    assert.equal(after.error, undefined);
    assert.match(after.diff, /^- {4}return lhs - rhs$/m, 'a candidate not tried still records its diff with the removed line');
    assert.match(after.diff, /^\+ {4}return rhs \+ lhs$/m);
    assert.equal(repairHeadline(result), '4 candidates from the action · #1 tests failed · #2 refused · #3 kept · #4 not tried: #3 passed first');
    assert.equal(result.candidates[0]?.tests?.passed, false, 'the wrong candidate was tested and failed');
    assert.equal(result.candidates[1]?.error?.code, 'outside-focus', 'the out-of-window candidate was refused by the guard');
    assert.match(await env.patch(), /\+ {4}return lhs \+ rhs/);
    assert.ok(fixed.timings.task_commands_ms > 0);

    const reread = await env.step({ type: 'explore', op: 'read', anchors: [], nodes: ['func:app/calc.py#add'], hop: 1, limit: 1 });
    assert.match(
      reread.observation.last?.kind === 'read' ? (reread.observation.last.snippets[0]?.text ?? '') : '',
      /lhs \+ rhs/,
      'the graph re-parsed the changed file',
    );

    const submitted = await env.step({ type: 'submit' });
    assert.equal(submitted.done, true);
    assert.equal(submitted.terminationReason, 'submitted');
    assert.equal(submitted.reward, 1);
    assert.equal(env.grade?.kind, 'swebench');
  });
}

test('local: repairs and the submit reuse the diff the last repair left instead of asking the sandbox again', async () => {
  const task = await sampleTask();
  const sandbox = await openSandbox(sandboxSpecForTask(task, { ...defaultSandboxOptions(), backend: 'local', run, baseDir: resolve('datasets/sample') }));
  opened.push(sandbox);
  let diffs = 0;
  const diff = sandbox.diff.bind(sandbox);
  sandbox.diff = () => {
    diffs += 1;
    return diff();
  };
  const env = await openPlannerEnv(task, sandbox, options(task));
  await env.reset();
  const line =
    1 +
    (await sandbox.readFile('app/calc.py'))
      .toString('utf8')
      .split('\n')
      .findIndex((l) => l.includes('lhs - rhs'));
  const repairWith = (text: string) =>
    env.step({
      type: 'repair',
      apply: true,
      plan: 'Fix add.',
      focus_ids: ['func:app/calc.py#add'],
      patches: [{ edits: [{ path: 'app/calc.py', start: line, end: line, new_text: text }] }],
    });
  const failed = (await repairWith('    return lhs // rhs\n')).observation.last;
  assert.ok(failed?.kind === 'repair' && !failed.applied && failed.candidates[0]?.tests?.passed === false, JSON.stringify(failed));
  assert.equal(failed.diff, '', 'a failed candidate is undone, so the repository is as the step found it');
  assert.equal(diffs, 1, 'the first repair asks once, for the state its candidates start from');
  const fixed = (await repairWith('    return lhs + rhs\n')).observation.last;
  assert.ok(fixed?.kind === 'repair' && fixed.applied);
  assert.equal(diffs, 2, 'the second repair starts from the first one’s diff and asks only after keeping a candidate');
  assert.match(fixed.diff, /\+ {4}return lhs \+ rhs/);
  const submitted = await env.step({ type: 'submit' });
  const last = submitted.observation.last;
  assert.ok(last?.kind === 'submit' && last.resolved);
  assert.equal(last.patch, fixed.diff, 'the submit grades the patch the repair left');
  assert.equal(await env.patch(), fixed.diff);
  assert.equal(diffs, 2, 'neither the submit nor the episode’s patch asked the sandbox');
});

test('tests grade the source as it is, not bytecode left by an earlier version of the same size and second', async () => {
  const task = await sampleTask();
  // In the container: Python there writes bytecode (this machine's own environment may say not to).
  const sandbox = await openSandbox(sandboxSpecForTask(task, { ...defaultSandboxOptions(), backend: 'docker', run, baseDir: resolve('datasets/sample') }));
  opened.push(sandbox);
  const original = (await sandbox.readFile('app/calc.py')).toString('utf8');
  // Python trusts a .pyc whose recorded source mtime (whole seconds) and size match, so two
  // same-sized versions written within one second look alike to it; a repair's candidates are.
  const write = async (text: string) => {
    await sandbox.writeFile('app/calc.py', text);
    await sandbox.exec(['touch', '-d', '@1700000000', 'app/calc.py']);
  };
  await write(original.replace('lhs - rhs', 'lhs * rhs'));
  assert.equal(gradePassed((await runTaskTests(sandbox, task, { timeoutMs: defaultSandboxOptions().testTimeoutMs })).record.grade), false);
  await write(original.replace('lhs - rhs', 'lhs + rhs'));
  assert.equal(gradePassed((await runTaskTests(sandbox, task, { timeoutMs: defaultSandboxOptions().testTimeoutMs })).record.grade), true);
});

test('a reply that failed to parse costs a step and comes back naming the code and the fix', async () => {
  const task = await sampleTask();
  const env = await open('local', task);
  await env.reset();
  const out = await env.step({ code: 'unknown-action', detail: "'fly' is not an action", hint: 'Use one of explore, memory, repair, submit, noop.' });
  assert.equal(out.observation.step, 1);
  assert.equal(out.reward, -0.05);
  assert.match(out.observation.text, /unknown-action: 'fly' is not an action/);
  assert.match(out.observation.text, /Use one of explore/);
});

test('max_steps ends the episode with failure and timeout penalties', async () => {
  const task = await sampleTask();
  const env = await open('local', task, { maxSteps: 3 });
  await env.reset();
  const rewards = [];
  let last;
  for (let i = 0; i < 3; i++) {
    last = await env.step({ type: 'noop' });
    rewards.push(last.reward);
  }
  assert.deepEqual(rewards, [-0.05, -0.05, -1.5]);
  assert.equal(last?.terminationReason, 'max_steps');
  await assert.rejects(env.step({ type: 'noop' }), /episode is over/);
});

test('repo_op_limit counts repository operations, not noops', async () => {
  const task = await sampleTask();
  const env = await open('local', task, { repoOpLimit: 2, maxSteps: 10 });
  await env.reset();
  const find = { type: 'explore' as const, op: 'find' as const, anchors: [{ kind: 'symbol' as const, text: 'add' }], nodes: [], hop: 1, limit: 3 };
  assert.equal((await env.step({ type: 'noop' })).done, false);
  assert.equal((await env.step(find)).done, false);
  assert.equal((await env.step({ type: 'noop' })).done, false);
  const out = await env.step(find);
  assert.equal(out.done, true);
  assert.equal(out.terminationReason, 'repo_op_limit');
});

test('a submit whose tests outlive the step limit ends with step_timeout, not a grade', async () => {
  const task = { ...(await sampleTask()), sandbox: { ...(await sampleTask()).sandbox, test_command: 'sleep 5; python -m pytest -rA' } };
  const env = await open('local', task, { stepTimeoutMs: 1500 });
  await env.reset();
  const out = await env.step({ type: 'submit' });
  assert.equal(out.terminationReason, 'step_timeout');
  assert.equal(out.reward, -1.5);
});

test('an episode past its time limit ends with episode_timeout on the next step', async () => {
  const task = await sampleTask();
  const env = await open('local', task, { episodeTimeoutMs: 50 });
  await env.reset();
  await new Promise((r) => setTimeout(r, 80));
  const out = await env.step({ type: 'noop' });
  assert.equal(out.terminationReason, 'episode_timeout');
  assert.equal(out.reward, -1.5);
});

test('a repair without patches and without a patch model says how to configure one', async () => {
  const task = await sampleTask();
  const env = await open('local', task);
  await env.reset();
  const out = await env.step({ type: 'repair', apply: true, plan: 'fix add', focus_ids: ['func:app/calc.py#add'] });
  assert.equal(out.observation.last?.kind === 'repair' ? out.observation.last.error?.code : undefined, 'no-patch-model');
});

for (const backend of ['local', 'docker'] as const) {
  test(`${backend}: the rule agent resolves the sample task on its own`, async () => {
    const task = await sampleTask();
    const env = await open(backend, task);
    const agent = createRuleAgent();
    let observation = await env.reset();
    const actions: string[] = [];
    let outcome;
    const controller = new AbortController();
    const repairs: Array<{ action: RepairAction; result: Extract<ActionResult, { kind: 'repair' }> }> = [];
    do {
      const decision = await agent.act(observation, controller.signal);
      assert.ok(decision.action);
      actions.push(decision.action.type === 'explore' ? `explore:${decision.action.op}` : decision.action.type);
      outcome = await env.step(decision.action);
      observation = outcome.observation;
      if (decision.action.type === 'repair' && observation.last?.kind === 'repair') repairs.push({ action: decision.action, result: observation.last });
    } while (!outcome.done);
    assert.equal(outcome.terminationReason, 'submitted', actions.join(' → '));
    assert.equal(outcome.reward, 1, actions.join(' → '));
    assert.ok(actions.includes('repair'));
    // One numbering across the thought, the action's list and the result (issue 37).
    for (const { action, result } of repairs) {
      const listed = action.patches?.length ?? 0;
      assert.ok(listed > 1, `the rule agent tried ${listed} mutations`);
      assert.match(action.thought ?? '', new RegExp(`^Trying ${listed} mutations, #1–#${listed} in the order listed`));
      assert.equal(result.proposed, listed);
      assert.deepEqual(
        result.candidates.map((c) => c.index),
        Array.from({ length: listed }, (_, i) => i),
        'the result lists every candidate under its place in the action',
      );
      for (const c of result.candidates) if (c.error === undefined) assert.match(c.diff, /^-[^-]/m, `candidate ${c.index + 1} records its removed line`);
      if (result.kept !== undefined) {
        const n = result.kept + 1;
        const headline = repairHeadline(result);
        assert.match(headline, new RegExp(`^${listed} candidates from the action · `));
        assert.match(headline, new RegExp(`#${n} kept`));
        if (n < listed) assert.match(headline, new RegExp(`#${n + 1}${n + 1 < listed ? `–#${listed}` : ''} not tried: #${n} passed first`));
      }
    }
    assert.ok(
      repairs.some((r) => r.result.kept !== undefined && r.result.kept + 1 < r.result.candidates.length),
      'a repair kept a candidate before the last one, so candidates were left untried',
    );
  });
}

test('local: a repair that edits the task’s own test to pass is refused by default; with penalise it is applied, flagged, and its submit pays for it', async () => {
  // The sample task with SWE-bench lists: tests/test_calc.py holds its own tests, so it is protected.
  const base = await sampleTask();
  const task = { ...base, FAIL_TO_PASS: ['tests/test_calc.py::test_addition'], PASS_TO_PASS: ['tests/test_calc.py::test_multiplication'] };
  const hack = { edits: [{ path: 'tests/test_calc.py', start: 6, end: 7, new_text: '    assert True\n' }] };
  const repairHack = {
    type: 'repair' as const,
    apply: true,
    plan: 'Make the test pass.',
    focus_ids: ['func:tests/test_calc.py#test_addition'],
    patches: [hack],
  };
  const openWith = async (mode: 'refuse' | 'penalise') => {
    const sandbox = await openSandbox(sandboxSpecForTask(task, { ...defaultSandboxOptions(), backend: 'local', run, baseDir: resolve('datasets/sample') }));
    opened.push(sandbox);
    const config = experimentConfigSchema.parse({ env: { failure_penalty: 1, protected_paths: mode, protected_penalty: 0.75 } });
    const env = await openPlannerEnv(task, sandbox, envOptionsFromConfig(config, task));
    await env.reset();
    return env;
  };

  const refusing = await openWith('refuse');
  const refused = await refusing.step(repairHack);
  const message = JSON.stringify(refused.observation.last);
  assert.match(message, /protected-path/);
  assert.match(message, /tests\/test_calc\.py is protected \(task-tests\): it holds the task's own tests/);
  assert.equal(await refusing.patch(), '', 'nothing was applied');

  const penalising = await openWith('penalise');
  const applied = await penalising.step(repairHack);
  assert.ok(applied.observation.last?.kind === 'repair' && applied.observation.last.applied, JSON.stringify(applied.observation.last));
  const submitted = await penalising.step({ type: 'submit' });
  const last = submitted.observation.last;
  assert.ok(last?.kind === 'submit');
  assert.equal(last.resolved, true, 'the hack does make the tests pass');
  assert.deepEqual(last.protected_paths, ['tests/test_calc.py'], 'the submit flags the protected file its patch changes');
  assert.equal(submitted.reward, 1 - 0.75, 'the reward pays the penalty');
});

test('local: a submit whose patch reaches for the network records it with its evidence, and the reward is unchanged', async () => {
  const task = await sampleTask();
  const env = await open('local', task);
  await env.reset();
  const fix = {
    edits: [
      {
        path: 'app/calc.py',
        start: 4,
        end: 6,
        new_text: 'def add(lhs, rhs):\n    """Return the sum of lhs and rhs."""\n    import socket\n    return lhs + rhs\n',
      },
    ],
  };
  const repaired = await env.step({ type: 'repair', apply: true, plan: 'Add, and open a socket.', focus_ids: ['func:app/calc.py#add'], patches: [fix] });
  assert.ok(repaired.observation.last?.kind === 'repair' && repaired.observation.last.applied, JSON.stringify(repaired.observation.last));
  const submitted = await env.step({ type: 'submit' });
  const last = submitted.observation.last;
  assert.ok(last?.kind === 'submit');
  assert.equal(last.resolved, true);
  assert.equal(submitted.reward, 1, 'the flag does not change the reward');
  assert.deepEqual(last.suspected_hacks, [{ kind: 'network', path: 'app/calc.py', line: 6, evidence: 'import socket', rule: 'opens a socket' }]);
});

test('local: a submit whose working copy holds a grader file the repairs could not have written (a test run left it) is refused, ungraded, and earns the failure', async () => {
  const task = await sampleTask();
  const env = await open('local', task);
  await env.reset();
  // What code under test can do while a candidate's tests run: leave a conftest.py for the next run.
  const sandbox = opened[opened.length - 1];
  assert.ok(sandbox !== undefined);
  await sandbox.writeFile(
    'conftest.py',
    'import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = "passed"\n',
  );
  const submitted = await env.step({ type: 'submit' });
  const last = submitted.observation.last;
  assert.ok(last?.kind === 'submit');
  assert.equal(last.resolved, false);
  assert.deepEqual(last.protected_paths, ['conftest.py']);
  assert.ok(
    last.grade.kind === 'log' && /^refused: the submitted patch changes what the grader reads: conftest\.py \(runner-config/.test(last.grade.reason),
    JSON.stringify(last.grade),
  );
  assert.equal(last.tests.duration_ms, 0, 'no tests ran');
  assert.equal(submitted.reward, -1, 'a failed submit: the failure penalty');
  assert.equal(submitted.done, true);
});
