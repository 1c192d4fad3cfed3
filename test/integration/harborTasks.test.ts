/**
 * Harbor tasks end to end, on real Docker and on the local backend: `gp dataset prepare harbor`
 * converts the real public simple task (test/fixtures/formats/harbor-tasks/simple-task, whose
 * Dockerfile starts FROM python:3.11-slim, which cannot be pulled here, so it is prepared with
 * `--base-image graph-planner/base:latest`, the offline base test/integration/setup.sh builds) and
 * our own silent-verifier task (test/fixtures/harbor-tasks/, FROM that base already); `gp images
 * build --tasks` builds both images offline; then episodes run through the real rollout, sandboxes
 * and environment with a scripted agent that applies the solution's effect as a patch (or a wrong
 * one) and submits. The verifier's reward must reach the trajectory's end line and the report; a
 * verifier that writes no reward must leave its episode not gradable, never a zero.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, cpSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import Docker from 'dockerode';
import type { Agent, AgentFactory } from '../../server/src/agents/index.js';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { episodeDepsFromConfig } from '../../server/src/launch/index.js';
import { repairActionSchema, submitActionSchema } from '../../server/src/protocol/actions.js';
import { runReportSchema, trajectoryLineSchema, type RunReport, type TrajectoryEnd } from '../../server/src/protocol/runs.js';
import { testRunRecordSchema } from '../../server/src/protocol/testReport.js';
import { planEpisodes, runRollout } from '../../server/src/rollout/index.js';
import { loadTasks } from '../../server/src/tasks/index.js';
import { runGp } from '../support/cli.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-harbor-it-'));
const docker = new Docker();
const runNames: string[] = [];
const tasksFile = join(dir, 'prepared', 'test.jsonl');

const solution = 'diff --git a/solution.py b/solution.py\nnew file mode 100644\n--- /dev/null\n+++ b/solution.py\n@@ -0,0 +1 @@\n+print(2 + 2)\n';
const wrong = solution.replace('2 + 2', '2 + 3');
const greeting = 'diff --git a/hello.py b/hello.py\n--- a/hello.py\n+++ b/hello.py\n@@ -1,2 +1,2 @@\n def greet():\n-    return "helo"\n+    return "hello"\n';

before(async () => {
  const source = join(dir, 'source');
  mkdirSync(source);
  cpSync('test/fixtures/formats/harbor-tasks/simple-task', join(source, 'simple-task'), { recursive: true });
  cpSync('test/fixtures/harbor-tasks/silent-verifier', join(source, 'silent-verifier'), { recursive: true });
  const prepared = await runGp(root, ['dataset', 'prepare', 'harbor', source, '--out', join(dir, 'prepared'), '--base-image', 'graph-planner/base:latest']);
  assert.equal(prepared.code, 0, `${prepared.out}\n${prepared.err}`);
  assert.match(prepared.out, /Read 2 task folders: 2 converted, 0 skipped\./);
  const built = await runGp(root, ['images', 'build', '--tasks', tasksFile]);
  assert.equal(built.code, 0, `${built.out}\n${built.err}`);
  assert.match(built.out, /graph-planner\/harbor-harbor-test__simple-task:latest \(harbor-test__simple-task\): (built|up-to-date)/);
  assert.match(built.out, /graph-planner\/harbor-graph-planner__silent-verifier:latest \(graph-planner__silent-verifier\): (built|up-to-date)/);
});

after(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const run of runNames)
    assert.deepEqual(await docker.listContainers({ all: true, filters: { label: [`graph-planner.run=${run}`] } }), [], `run ${run} left containers behind`);
});

/** Applies `diff` with a repair (when given), then submits. */
function scriptedAgent(diffs: Readonly<Record<string, string>>): AgentFactory {
  return (task) => {
    let steps = 0;
    const agent: Agent = {
      name: 'scripted',
      act: async () => {
        steps += 1;
        const diff = diffs[task.task_id];
        if (steps === 1 && diff !== undefined)
          return { action: repairActionSchema.parse({ type: 'repair', thought: 'apply the solution', patches: [{ diff }] }) };
        return { action: submitActionSchema.parse({ type: 'submit', thought: 'done' }) };
      },
    };
    return agent;
  };
}

interface Ran {
  readonly report: RunReport;
  readonly runDir: string;
  readonly ends: Map<string, TrajectoryEnd>;
}

async function rollout(backend: 'docker' | 'local', label: string, diffs: Readonly<Record<string, string>>, only?: string): Promise<Ran> {
  const runName = `harbor-it-${backend}-${label}-${process.pid}`;
  runNames.push(runName);
  const runDir = join(dir, 'runs', runName);
  const config = experimentConfigSchema.parse({ sandbox: { backend } });
  const loaded = await loadTasks(tasksFile);
  assert.deepEqual(loaded.problems, []);
  const planned = loaded.tasks
    .filter((t) => only === undefined || t.task.task_id === only)
    .map((t) => ({ task: t.task, baseDir: join(dir, 'prepared'), source: `test.jsonl:${t.line}` }));
  const deps = { ...episodeDepsFromConfig(config, runName, runDir), makeAgent: scriptedAgent(diffs) };
  const result = await runRollout(planEpisodes(planned, 1), {
    runDir,
    runName,
    command: 'harbor-it',
    agent: 'scripted',
    dataset: tasksFile,
    parallel: 1,
    signal: new AbortController().signal,
    deps,
  });
  const report = runReportSchema.parse(JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')));
  assert.deepEqual(report, JSON.parse(JSON.stringify(result.report)));
  const ends = new Map<string, TrajectoryEnd>();
  for (const name of readdirSync(join(runDir, 'trajectories'))) {
    const lines = readFileSync(join(runDir, 'trajectories', name), 'utf8')
      .trim()
      .split('\n')
      .map((l) => trajectoryLineSchema.parse(JSON.parse(l)));
    const start = lines[0];
    assert.equal(start?.type === 'start' && start.backend, backend, `${name} ran on ${backend}`);
    const end = lines.at(-1);
    assert.equal(end?.type, 'end');
    if (end?.type === 'end') ends.set(end.task_id, end);
  }
  return { report, runDir, ends };
}

function testRuns(runDir: string) {
  return readFileSync(join(runDir, 'test_runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => testRunRecordSchema.parse(JSON.parse(l)));
}

for (const backend of ['docker', 'local'] as const) {
  test(`${backend}: the solution's patch earns the verifier's reward of 1 in the end line and the report`, async () => {
    const { report, runDir, ends } = await rollout(backend, 'pass', { 'harbor-test__simple-task': solution }, 'harbor-test__simple-task');
    const end = ends.get('harbor-test__simple-task');
    assert.equal(end?.resolved, true);
    assert.equal(end?.termination_reason, 'submitted');
    assert.deepEqual(end?.grade, { kind: 'verifier', reward: 1, rewards: { reward: 1 }, from: 'reward.txt', resolved: true, exitCode: 0 });
    assert.match(end?.patch ?? '', /^\+print\(2 \+ 2\)$/m);
    const outcome = report.tasks[0];
    assert.equal(outcome?.verifier_reward, 1);
    assert.equal(report.resolved, 1);
    const [run] = testRuns(runDir);
    assert.equal(run?.backend, backend);
    assert.equal(run?.parser, 'verifier');
    assert.match(readFileSync(join(runDir, run?.logPath ?? ''), 'utf8'), /^PASS: Correct output\n--- \/logs\/verifier\/reward\.txt ---\n1\.0\n$/);
  });

  test(`${backend}: a wrong patch earns the verifier's zero, said in the report`, async () => {
    const { report, ends } = await rollout(backend, 'fail', { 'harbor-test__simple-task': wrong }, 'harbor-test__simple-task');
    const end = ends.get('harbor-test__simple-task');
    assert.equal(end?.resolved, false);
    assert.equal(end?.termination_reason, 'submitted');
    assert.equal(end?.grade?.kind === 'verifier' && end.grade.reward, 0);
    assert.equal(end?.infrastructure, undefined, 'a zero the verifier wrote is an outcome');
    assert.equal(report.tasks[0]?.verifier_reward, 0);
    assert.match(report.tasks[0]?.failure_reason ?? '', /the verifier's reward is 0 \(reward\.txt\)/);
    assert.equal(report.total, 1);
  });

  test(`${backend}: a verifier that writes no reward leaves the episode not gradable, not a zero`, async () => {
    const { report, runDir, ends } = await rollout(backend, 'silent', { 'graph-planner__silent-verifier': greeting }, 'graph-planner__silent-verifier');
    const end = ends.get('graph-planner__silent-verifier');
    assert.equal(end?.resolved, false);
    assert.equal(end?.termination_reason, 'error');
    assert.equal(end?.infrastructure?.code, 'not-gradable');
    assert.match(end?.infrastructure?.cause ?? '', /wrote neither \/logs\/verifier\/reward\.json nor \/logs\/verifier\/reward\.txt/);
    assert.equal(end?.grade?.kind, 'invalid');
    assert.equal(report.total, 0, 'no outcome: out of the resolved rate');
    assert.deepEqual(
      report.infrastructure_failures?.map((f) => [f.task_id, f.code]),
      [['graph-planner__silent-verifier', 'not-gradable']],
    );
    // The verifier did run, on the patched file the Dockerfile (or the local copy of it) put in /app.
    const [run] = testRuns(runDir);
    assert.match(readFileSync(join(runDir, run?.logPath ?? ''), 'utf8'), /^PASS$/m);
  });
}

test("docker: the task's cpus and memory are the container's limits", async () => {
  const runName = `harbor-it-limits-${process.pid}`;
  runNames.push(runName);
  const config = experimentConfigSchema.parse({ sandbox: { backend: 'docker', cpus: 2, memory: '4GiB' } });
  const loaded = await loadTasks(tasksFile);
  const silent = loaded.tasks.find((t) => t.task.task_id === 'graph-planner__silent-verifier');
  assert.ok(silent);
  const deps = episodeDepsFromConfig(config, runName, join(dir, 'runs', runName));
  const sandbox = await deps.openSandbox({
    task: silent.task,
    baseDir: join(dir, 'prepared'),
    episodeId: 'limits',
    source: `test.jsonl:${silent.line}`,
    attempt: 1,
  });
  try {
    const info = await docker.getContainer(sandbox.id).inspect();
    assert.equal(info.HostConfig.NanoCpus, 1e9);
    assert.equal(info.HostConfig.Memory, 1024 * 1024 * 1024);
    assert.equal(info.HostConfig.NetworkMode, 'none');
  } finally {
    await sandbox.close();
  }
});
