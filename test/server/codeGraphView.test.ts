/**
 * The code-graph view's requests over a real LSP connection, on a real episode: `gp rollout` (the
 * CLI from source, local backend, the rule agent) of a sample task whose dataset has gold patches
 * beside it; then `episode/codeGraph` on its trajectory (the task file the trajectory now names,
 * the gold placed by the pre-image the run kept, the episode's reads and edit, the distance and the
 * layout) and `runs/localisation` on its run folder. An unreadable trajectory is an answer, not a crash.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import type { EpisodeCodeGraphResult, RunLocalisationResult } from '../../server/src/protocol/codeGraphView.js';
import { startHarness, type Harness } from '../support/lspHarness.js';

const repoRoot = resolve(__dirname, '../..');
let root: string;
let runDir: string;
let h: Harness;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'gp-code-graph-view-'));
  mkdirSync(join(root, 'datasets', 'sample'), { recursive: true });
  cpSync(join(repoRoot, 'docker/repoenv_sample/sample_repo'), join(root, 'repos', 'sample_repo'), { recursive: true });
  const tasks = readFileSync(join(repoRoot, 'datasets/sample/tasks.jsonl'), 'utf8').replaceAll(
    '../../docker/repoenv_sample/sample_repo',
    '../../repos/sample_repo',
  );
  writeFileSync(join(root, 'datasets', 'sample', 'tasks.jsonl'), tasks);
  cpSync(join(repoRoot, 'datasets/sample/gold_predictions_tasks.jsonl'), join(root, 'datasets', 'sample', 'gold_predictions_tasks.jsonl'));
  writeFileSync(
    join(root, 'sample.yaml'),
    'experiment:\n  name: graph\nlogging:\n  output_dir: out\nsandbox:\n  backend: local\nenv:\n  semantic_search: off\n',
  );
  const cli = ['--import', pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href, join(repoRoot, 'server/src/cli/main.ts')];
  const rollout = spawnSync(process.execPath, [...cli, 'rollout', 'datasets/sample/tasks.jsonl', '--task', 'sample-calc-add', '--config', 'sample.yaml'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 240_000,
  });
  assert.equal(rollout.status, 0, `gp rollout failed:\n${rollout.stdout}\n${rollout.stderr}`);
  const runs = readdirSync(join(root, 'out'));
  assert.equal(runs.length, 1);
  runDir = join(root, 'out', runs[0] ?? '');
  h = await startHarness({}, root);
});
after(async () => {
  await h?.close();
  rmSync(root, { recursive: true, force: true });
});

test('an episode of a real rollout shows on the code graph with its gold placed by the pre-image the run kept', async () => {
  const trajectory = join(runDir, 'trajectories', 'sample-calc-add.jsonl');
  const lines = readFileSync(trajectory, 'utf8').trim().split('\n');
  const start = JSON.parse(lines[0] ?? '{}') as { task_file?: { path: string; line: number } };
  assert.deepEqual(start.task_file, { path: join(root, 'datasets', 'sample', 'tasks.jsonl'), line: 1 });
  // The end line keeps the graph's edges at the nodes the episode was shown: the test that calls add among them.
  const end = JSON.parse(lines.at(-1) ?? '{}') as { graph_edges?: Array<{ src: string; dst: string; kind: string }> };
  assert.ok(
    end.graph_edges?.some((e) => e.dst === 'func:app/calc.py#add' && e.kind === 'calls'),
    JSON.stringify(end.graph_edges?.slice(0, 10)),
  );
  const result = (await h.client.sendRequest('graphPlanner/episode/codeGraph', { path: trajectory })) as EpisodeCodeGraphResult;
  assert.ok(result.ok, result.ok ? '' : result.message);
  const g = result.graph;
  assert.equal(g.taskId, 'sample-calc-add');
  assert.deepEqual(g.gold.functions, [{ id: 'func:app/calc.py#add', evidence: 'pre-image' }]);
  assert.equal(g.gold.source, join(root, 'datasets', 'sample', 'gold_predictions_tasks.jsonl'));
  const add = g.nodes.find((n) => n.id === 'func:app/calc.py#add');
  assert.ok(add !== undefined && add.read !== null && add.edited !== null && add.gold === 'pre-image', JSON.stringify(add));
  assert.equal(g.nodes.find((n) => n.id === 'file:app/calc.py')?.gold, 'diff-header');
  assert.equal(g.steps[0]?.kind, 'reset');
  assert.ok(
    g.steps.every((s) => s.distance === 0),
    'the issue’s hints name add, the gold function, from the start',
  );
  assert.deepEqual(g.recall, { files: { gold: 1, seen: 1, read: 1, edited: 1 }, functions: { gold: 1, seen: 1, read: 1, edited: 1 } });
  assert.ok(g.width > 0 && g.height > 0 && g.nodes.every((n) => n.width > 0 && n.x > 0 && n.y > 0));
});

test('a run’s localisation is scored over its episodes', async () => {
  const result = (await h.client.sendRequest('graphPlanner/runs/localisation', { dir: runDir })) as RunLocalisationResult;
  assert.deepEqual(result, {
    groups: [
      { step: null, episodes: 1, scoredFiles: 1, scoredFunctions: 1, files: { seen: 1, read: 1, edited: 1 }, functions: { seen: 1, read: 1, edited: 1 } },
    ],
    episodes: 1,
    withoutGold: 0,
    problems: [],
  });
});

test('a trajectory that is gone is an answer that says so', async () => {
  const result = (await h.client.sendRequest('graphPlanner/episode/codeGraph', { path: join(runDir, 'trajectories', 'nope.jsonl') })) as EpisodeCodeGraphResult;
  assert.deepEqual(result, { ok: false, message: `${join(runDir, 'trajectories', 'nope.jsonl')} does not exist any more.` });
});
