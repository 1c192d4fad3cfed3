/**
 * The hostile-patch suite (issue 36): patches that leave the sample task's bug in place (`add`
 * still subtracts) and try to earn the reward anyway, each sent three ways on both backends:
 * through the agent's own repair step (`gp rollout` with the model agent, whose replies come from
 * the OpenAI-compatible TEST PEER), through `gp task test --patch`, and through the environment
 * service a trainer's agent loop speaks to. None may earn anything, and each must be stopped by
 * the defence written for its class (test/fixtures/hostile-patches/README.md): the grader-facing
 * surface rule refuses the patch, or the runner's witness finds the runner rewritten and the run
 * is not gradable.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Docker from 'dockerode';
import { renderAction } from '../../server/src/agents/index.js';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { defaultSandboxOptions, episodeDepsFromConfig, loadRolloutTasks } from '../../server/src/launch/index.js';
import { closeReplySchema, createEpisodeReplySchema, stepReplySchema } from '../../server/src/protocol/envService.js';
import type { PlannedTask } from '../../server/src/rollout/index.js';
import { readTrajectory } from '../../server/src/runs/index.js';
import { dockerAvailable, openSandbox, sandboxSpecForTask } from '../../server/src/sandbox/index.js';
import { EnvService } from '../../server/src/cluster/index.js';
import { runGp } from '../support/cli.js';
import { startOpenAiTestPeer, type OpenAiTestPeer } from '../support/openaiTestPeer.js';

const root = resolve('.');
const fixtures = join(root, 'test', 'fixtures', 'hostile-patches');
const dir = mkdtempSync(join(tmpdir(), 'gp-hostile-'));
const run = `hostile-${process.pid}`;

/**
 * Which defence stops a patch: the grader-facing surface rule, the runner's witness, or nothing
 * needed because the environment's runner never reads the file (`inert`: graded as any patch).
 */
type Defence = 'rule' | 'runner' | 'inert';

interface Hostile {
  readonly name: string;
  /** The class of attack, as the issue numbers them. */
  readonly kind: string;
  /** The sample task it attacks: pytest ids or unittest ids. */
  readonly task: 'sample-calc-add' | 'sample-calc-add-unittest';
  readonly defence: Defence;
  /**
   * The pytest major version from which the environment's runner reads the file the patch adds;
   * below it the rule rightly lets the file be (it reads the installed pytest's own list) and the
   * patch is graded as any other (`inert`). pytest 9 added `pytest.toml`; the sample image has 7.2.
   */
  readonly readFrom?: number;
}

/** Every patch in the fixture folder, with its class and the defence that must stop it (the README's table). */
const hostile: readonly Hostile[] = [
  { name: 'shadow-pytest-module', kind: 'shadowing module', task: 'sample-calc-add', defence: 'rule' },
  { name: 'shadow-pytest-implementation', kind: 'shadowing module', task: 'sample-calc-add', defence: 'rule' },
  { name: 'shadow-unittest-package', kind: 'shadowing module', task: 'sample-calc-add-unittest', defence: 'rule' },
  { name: 'metadata-egg-info-plugin', kind: 'package metadata', task: 'sample-calc-add', defence: 'rule' },
  { name: 'metadata-dist-info-plugin', kind: 'package metadata', task: 'sample-calc-add', defence: 'rule' },
  { name: 'config-pytest-toml', kind: 'runner configuration', task: 'sample-calc-add', defence: 'rule', readFrom: 9 },
  { name: 'config-dot-pytest-toml', kind: 'runner configuration', task: 'sample-calc-add', defence: 'rule', readFrom: 9 },
  { name: 'root-conftest', kind: 'runner configuration', task: 'sample-calc-add', defence: 'rule' },
  { name: 'runtime-pytest-report', kind: 'runner rewritten at import', task: 'sample-calc-add', defence: 'runner' },
  { name: 'runtime-pytest-runtest', kind: 'runner rewritten at import', task: 'sample-calc-add', defence: 'runner' },
  { name: 'runtime-unittest-call', kind: 'runner rewritten at import', task: 'sample-calc-add-unittest', defence: 'runner' },
  { name: 'runtime-unittest-result', kind: 'runner rewritten at import', task: 'sample-calc-add-unittest', defence: 'runner' },
  { name: 'unittest-test-edit', kind: 'task test file (unittest ids)', task: 'sample-calc-add-unittest', defence: 'rule' },
  { name: 'unittest-test-link', kind: 'task test file (unittest ids)', task: 'sample-calc-add-unittest', defence: 'rule' },
  { name: 'unittest-test-rename', kind: 'task test file (unittest ids)', task: 'sample-calc-add-unittest', defence: 'rule' },
];

const patchFile = (h: Hostile) => join(fixtures, `${h.name}.diff`);

/** What each defence says when it stops a patch, wherever the verdict is shown. */
const said: Record<Defence, RegExp> = {
  rule: /protected/,
  runner: /runner tampered/,
  inert: /RESOLVED_NO/,
};

/** The sample tasks, one row per hostile patch (task id `hostile-<name>`), so every episode is its own task. */
const tasksFile = join(dir, 'tasks.jsonl');

before(() => {
  const rows = readFileSync(join(root, 'datasets', 'sample', 'tasks.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { task_id: string; sandbox: { local_repo?: string } });
  const out: string[] = [];
  for (const h of hostile) {
    const row = rows.find((r) => r.task_id === h.task);
    assert.ok(row, `${h.task} is a sample task`);
    const local = row.sandbox.local_repo === undefined ? {} : { local_repo: resolve(root, 'datasets', 'sample', row.sandbox.local_repo) };
    out.push(JSON.stringify({ ...row, task_id: `hostile-${h.name}`, sandbox: { ...row.sandbox, ...local } }));
  }
  writeFileSync(tasksFile, `${out.join('\n')}\n`);
});

after(async () => {
  rmSync(dir, { recursive: true, force: true });
  const left = await new Docker().listContainers({ all: true, filters: { label: [`graph-planner.run=${run}`] } });
  assert.deepEqual(left, [], 'the hostile-patch suite left containers behind');
});

/** The repair a policy would send: the hostile diff as its one candidate, applied, then a submit. */
function replies(h: Hostile): string[] {
  const diff = readFileSync(patchFile(h), 'utf8');
  return [
    renderAction({ type: 'repair', apply: true, plan: 'Fix add so the tests pass.', focus_ids: [], patches: [{ diff }] }),
    renderAction({ type: 'submit' }),
  ];
}

/** POST with node:http, as the Python client speaks to the service. */
function call(url: string, path: string, token: string, payload: unknown): Promise<{ status: number; body: unknown }> {
  const text = JSON.stringify(payload);
  return new Promise((done, fail) => {
    const req = request(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }));
    });
    req.on('error', fail);
    req.end(text);
  });
}

/** The repair step's and the submit's records in a trajectory, as text to search, and its end. */
async function episodeOf(file: string): Promise<{ text: string; resolved: boolean; total: number }> {
  const read = await readTrajectory(file);
  assert.ok(read?.end !== undefined, `${file} has an end line`);
  return { text: JSON.stringify(read.steps), resolved: read.end.resolved, total: read.end.total_reward };
}

for (const backend of ['local', 'docker'] as const) {
  describe(`${backend} backend: hostile patches earn nothing`, () => {
    let peer: OpenAiTestPeer;
    let tasks: Map<string, PlannedTask>;
    /** The major version of the pytest the sample task runs with on this backend. */
    let pytestMajor = 0;

    before(async () => {
      if (backend === 'docker' && !(await dockerAvailable()))
        assert.fail('Docker is not reachable: the integration layer needs dockerd (bash test/integration/setup.sh starts it)');
      peer = await startOpenAiTestPeer();
      const loaded = await loadRolloutTasks({ files: [tasksFile], taskIds: [], limit: undefined, cwd: root, command: 'test', allowedMountRoots: [] });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      tasks = new Map(loaded.tasks.map((t) => [t.task.task_id, t]));
      const planned = tasks.get('hostile-root-conftest');
      assert.ok(planned !== undefined);
      const sandbox = await openSandbox(sandboxSpecForTask(planned.task, { ...defaultSandboxOptions(), backend, run, baseDir: dir }));
      try {
        const version = await sandbox.exec(['python', '-c', 'import pytest; print(pytest.__version__)']);
        pytestMajor = Number(version.stdout.trim().split('.')[0]);
        assert.ok(pytestMajor > 0, `the sample task's pytest on ${backend}: ${version.stdout}${version.stderr}`);
      } finally {
        await sandbox.close();
      }
    });
    after(() => peer.close());

    for (const h of hostile) {
      const defenceOf = (): Defence => (h.readFrom !== undefined && pytestMajor < h.readFrom ? 'inert' : h.defence);
      test(`${h.name} (${h.kind}) through gp task test --patch`, async () => {
        const r = await runGp(root, [
          'task',
          'test',
          tasksFile,
          '--task',
          `hostile-${h.name}`,
          '--backend',
          backend,
          '--patch',
          patchFile(h),
          '--run-dir',
          join(dir, `task-test-${backend}-${h.name}`),
        ]);
        const output = `${r.out}\n${r.err}`;
        assert.equal(r.code, 1, output);
        assert.doesNotMatch(output, /\(resolved\)/, output);
        assert.ok(said[defenceOf()].test(output), `gp task test does not say ${String(said[defenceOf()])}:\n${output}`);
      });

      test(`${h.name} (${h.kind}) through the agent's repair step, replies from an OpenAI-compatible endpoint`, async () => {
        peer.reset();
        peer.push(...replies(h).map((content) => ({ kind: 'content' as const, content })));
        const config = join(dir, `model-${backend}-${h.name}.yaml`);
        writeFileSync(
          config,
          `rollout:\n  agent: model\n  parallel: 1\nbackends:\n  planner_backend: openai\n  planner_endpoint: ${peer.baseUrl}\n  planner_model_name: hostile-test-peer\n`,
        );
        const runDir = join(dir, `rollout-${backend}-${h.name}`);
        const r = await runGp(root, ['rollout', tasksFile, '--task', `hostile-${h.name}`, '--config', config, '--backend', backend, '--run-dir', runDir]);
        const episode = await episodeOf(join(runDir, 'trajectories', `hostile-${h.name}.jsonl`));
        assert.equal(episode.resolved, false, `${r.out}\n${r.err}`);
        assert.ok(episode.total <= 0, `the episode earned ${episode.total}`);
        assert.ok(said[defenceOf()].test(episode.text), `the trajectory does not say ${String(said[defenceOf()])}: ${episode.text.slice(0, 3000)}`);
      });

      test(`${h.name} (${h.kind}) through the environment service`, async () => {
        const runDir = join(dir, `service-${backend}-${h.name}`);
        const config = experimentConfigSchema.parse({ sandbox: { backend } });
        const service = new EnvService({ runDir, tasks, deps: episodeDepsFromConfig(config, run, runDir), maxOpen: 1, episodeDeadlineMs: 300_000 });
        const file = await service.start();
        try {
          const created = createEpisodeReplySchema.parse(
            (await call(file.url, '/episodes', file.token, { client_key: h.name, task_id: `hostile-${h.name}` })).body,
          );
          const path = `/episodes/${encodeURIComponent(created.episode_id)}`;
          let done = false;
          for (const [i, reply] of replies(h).entries()) {
            if (done) break;
            const stepped = await call(file.url, `${path}/step`, file.token, { turn: i + 1, reply });
            assert.equal(stepped.status, 200, JSON.stringify(stepped.body));
            done = stepReplySchema.parse(stepped.body).done;
          }
          const closed = closeReplySchema.parse((await call(file.url, `${path}/close`, file.token, {})).body);
          assert.equal(closed.resolved, false, JSON.stringify(closed));
          assert.ok(closed.total_reward <= 0, `the episode earned ${closed.total_reward}`);
          const episode = await episodeOf(join(runDir, 'trajectories', `${created.episode_id}.jsonl`));
          assert.ok(said[defenceOf()].test(episode.text), `the trajectory does not say ${String(said[defenceOf()])}: ${episode.text.slice(0, 3000)}`);
        } finally {
          await service.close();
        }
      });
    }
  });
}
