/**
 * Episodes on the code graph: the subgraph a real trajectory recorded (`sample-calc-add`, a
 * resolved rule-agent episode of the sample tasks), node ids read for containment, diffs placed on
 * the lines they change, gold nodes found by each kind of evidence (the run's pre-image, the task's
 * repository, recorded spans, the hunk header; the graph's real parser), the distance to gold step
 * by step (same file, through the file, unknown), localisation recall of an episode and of a run
 * grouped by training step, and the task's gold found from a run folder as `gp rollout` leaves it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { EpisodeGoldFinder, parseDefinitions } from '../../server/src/launch/episodeGold.js';
import type { TrajectoryLine } from '../../server/src/protocol/runs.js';
import { episodeCodeGraph, localiseEpisode, type EpisodeGoldSource } from '../../server/src/graphView/codeGraphView.js';
import { diffMatches, diffPlaces } from '../../server/src/graphView/diffPlaces.js';
import { buildEpisodeModel, type EpisodeModel } from '../../server/src/episodes/episodeModel.js';
import { exploredSubgraph } from '../../server/src/graphView/exploredSubgraph.js';
import { distanceBySteps, distancesFromGold } from '../../server/src/graphView/goldDistance.js';
import { changedNodes } from '../../server/src/graphView/goldNodes.js';
import { groupRecall } from '../../server/src/graphView/localisationRecall.js';
import { containerCandidates, parseNodeId, qualifiedKey } from '../../server/src/graphView/nodeIds.js';
import { runLocalisation } from '../../server/src/graphView/runLocalisation.js';
import { codeGraphHostMessageSchema } from '../../server/src/protocol/codeGraphView.js';
import { codeGraphWebviewMessageSchema } from '../../server/src/protocol/codeGraphWebview.js';
import { parseTrajectory } from '../../server/src/runs/trajectory.js';
import { fixturePath, fixtureText } from '../support/fixtures.js';

const repoRoot = resolve(__dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'gp-code-graph-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const calcAdd = (): EpisodeModel => buildEpisodeModel(parseTrajectory(fixtureText('trajectories/sample-calc-add.jsonl')));
const sampleCalc = readFileSync(join(repoRoot, 'docker/repoenv_sample/sample_repo/app/calc.py'), 'utf8');
const goldCalcAdd = (
  JSON.parse(readFileSync(join(repoRoot, 'datasets/sample/gold_predictions_tasks.jsonl'), 'utf8').split('\n')[0] ?? '{}') as { model_patch: string }
).model_patch;

/** A run folder holding copies of the fixture trajectories, launched as the e2e rollout launches it. */
function runFolder(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'trajectories'), { recursive: true });
  for (const f of ['sample-calc-add', 'sample-version']) cpSync(fixturePath(`trajectories/${f}.jsonl`), join(dir, 'trajectories', `${f}.jsonl`));
  writeFileSync(
    join(dir, 'launch.json'),
    JSON.stringify({
      command: 'rollout',
      args: ['datasets/sample/tasks.jsonl', '--config', 'configs/experiments/sample.yaml'],
      cwd: repoRoot,
      agent: 'rule',
      written_at: '2026-11-23T00:00:00Z',
    }),
  );
  return dir;
}

describe('node ids', () => {
  test('read their kind, file and qualified name, and name their containers', () => {
    assert.deepEqual(parseNodeId('method:pkg/a.py#Cls.meth@2'), { kind: 'method', path: 'pkg/a.py', qualName: 'Cls.meth', repeat: '@2' });
    assert.deepEqual(parseNodeId('file:pkg/a.py'), { kind: 'file', path: 'pkg/a.py', qualName: '', repeat: '' });
    assert.equal(parseNodeId('nonsense'), undefined);
    assert.equal(parseNodeId('func:pkg/a.py#'), undefined);
    assert.deepEqual(containerCandidates('method:p.py#A.f'), ['class:p.py#A']);
    assert.deepEqual(containerCandidates('func:p.py#f'), ['file:p.py']);
    assert.deepEqual(containerCandidates('func:p.py#outer.inner'), ['class:p.py#outer', 'func:p.py#outer', 'method:p.py#outer']);
    assert.equal(qualifiedKey('method:a/b.py#Cls.meth@2'), 'a/b.py#Cls.meth');
    assert.equal(qualifiedKey('file:a/b.py'), undefined);
  });
});

describe('the explored subgraph of a real trajectory', () => {
  const sub = exploredSubgraph(calcAdd());
  const node = (id: string) => {
    const n = sub.nodes.get(id);
    assert.ok(n, `${id} is in the subgraph: ${[...sub.nodes.keys()].join(', ')}`);
    return n;
  };

  test('records when each node was first seen, expanded, read and edited', () => {
    // The hints after reset name add, its file and the test file; step 1 expands them, step 2 reads add and mul.
    assert.deepEqual(node('func:app/calc.py#add').first, { seen: 0, expanded: 1, read: 2 });
    assert.deepEqual(node('func:app/calc.py#mul').first, { seen: 1, read: 2 });
    assert.equal(node('func:tests/test_calc.py#test_addition').first.seen, 1);
    assert.deepEqual(node('func:app/calc.py#add').span, { start: 4, end: 6 });
    assert.deepEqual(
      sub.steps.map((s) => s.kind),
      ['reset', 'expand', 'read', 'repair', 'submit'],
    );
    // The kept repair and the submit each leave the repository's diff to be placed on nodes.
    assert.deepEqual(
      sub.diffs.map((d) => d.step),
      [3, 4],
    );
  });

  test('adds the class a recorded method is in, joined by containment read from the ids', () => {
    assert.equal(node('class:tests/test_calc_unittest.py#CalcTest').first.seen, undefined);
    const edge = sub.edges.find((e) => e.dst === 'method:tests/test_calc_unittest.py#CalcTest.test_add' && e.kind === 'contains');
    assert.deepEqual(edge, {
      src: 'class:tests/test_calc_unittest.py#CalcTest',
      dst: 'method:tests/test_calc_unittest.py#CalcTest.test_add',
      kind: 'contains',
      evidence: 'id',
    });
    assert.ok(sub.edges.some((e) => e.src === 'file:tests/test_calc_unittest.py' && e.dst === 'class:tests/test_calc_unittest.py#CalcTest'));
  });

  test('keeps an expansion one hop along an edge kind, and not a file-mate with no edge', () => {
    assert.ok(
      sub.edges.some(
        (e) =>
          e.evidence === 'expand' && e.kind === 'calls' && e.src === 'func:app/calc.py#add' && e.dst === 'method:tests/test_calc_unittest.py#CalcTest.test_add',
      ),
    );
    // The expansion reached mul from add as a file-mate (`same_file`), which is no edge between them.
    assert.ok(
      !sub.edges.some(
        (e) => (e.src === 'func:app/calc.py#add' && e.dst === 'func:app/calc.py#mul') || (e.dst === 'func:app/calc.py#add' && e.src === 'func:app/calc.py#mul'),
      ),
    );
  });
});

describe('finds and working memory', () => {
  test('record when a node was found and when it entered working memory', () => {
    const lines = fixtureText('trajectories/sample-calc-add.jsonl')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as TrajectoryLine);
    const read = lines.find((l) => l.type === 'step' && l.step === 2);
    assert.ok(read?.type === 'step');
    // Step 2 as if it had found `mul` and kept add in memory, as a model agent's steps do.
    const mul = { id: 'func:app/calc.py#mul', kind: 'function' as const, name: 'mul', path: 'app/calc.py', span: { start: 9, end: 11 } };
    read.action = { type: 'explore', op: 'find', anchors: [{ kind: 'function', text: 'mul' }], nodes: [], hop: 1, limit: 5 };
    read.observation.last = { kind: 'find', nodes: [mul], unmatched: [] };
    read.observation.memory.nodes = [
      { id: 'func:app/calc.py#add', kind: 'function', path: 'app/calc.py', span: { start: 4, end: 6 } },
      { id: 'func:nowhere#x', kind: 'not-a-kind', path: 'nowhere', span: { start: 1, end: 1 } },
    ];
    const sub = exploredSubgraph(buildEpisodeModel(parseTrajectory(lines.map((l) => JSON.stringify(l)).join('\n') + '\n')));
    assert.deepEqual(sub.nodes.get('func:app/calc.py#mul')?.first, { seen: 1, found: 2 });
    assert.equal(sub.nodes.get('func:app/calc.py#add')?.first.remembered, 2);
    // A memory record whose kind is not a node kind takes the kind its id says.
    assert.equal(sub.nodes.get('func:nowhere#x')?.kind, 'function');
  });
});

describe('the page’s messages', () => {
  test('a real view passes the page’s schema, a tampered one does not, and the page may ask for nothing else', async () => {
    const graph = await episodeCodeGraph(join(scratch, 'none', 'trajectories', 'x.jsonl'), calcAdd(), {
      patch: goldCalcAdd,
      source: null,
      note: null,
      parse: parseDefinitions,
    });
    assert.ok(codeGraphHostMessageSchema.safeParse({ type: 'graph', graph }).success);
    assert.ok(
      !codeGraphHostMessageSchema.safeParse({ type: 'graph', graph: { ...graph, nodes: [{ ...graph.nodes[0], gold: 'a guess' }] } }).success,
      'an evidence the view does not know',
    );
    assert.ok(!codeGraphHostMessageSchema.safeParse({ type: 'step', step: -1 }).success);
    assert.ok(codeGraphWebviewMessageSchema.safeParse({ type: 'openNode', file: 'app/calc.py', line: 4 }).success);
    assert.ok(!codeGraphWebviewMessageSchema.safeParse({ type: 'openNode', file: 'app/calc.py', line: 0 }).success);
    assert.ok(!codeGraphWebviewMessageSchema.safeParse({ type: 'openNode', file: 'x'.repeat(5000), line: 1 }).success);
    assert.ok(!codeGraphWebviewMessageSchema.safeParse({ type: 'runCommand', command: 'rm -rf /' }).success);
  });
});

describe('diff places', () => {
  test('takes removed lines and insertion points on the side the diff was made against, with the hunk header', () => {
    const diff = [
      'diff --git a/m.py b/m.py',
      '--- a/m.py',
      '+++ b/m.py',
      '@@ -3,5 +3,8 @@ class A:',
      '     def f(self):',
      '-        return 1',
      '+        return 2',
      ' ',
      '     def g(self):',
      '+        pass',
      '+',
      '+    def h(self):',
      '         pass',
      '',
    ].join('\n');
    const places = diffPlaces(diff);
    assert.equal(places.files.length, 1);
    assert.deepEqual(places.files[0]?.places, [{ line: 4 }, { line: 6, insertIndent: 8 }]);
    assert.equal(places.files[0]?.hunks[0]?.context, 'class A:');
    assert.ok(
      diffMatches('x\ny\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n', places.files[0] ?? { path: '', places: [], hunks: [] }),
    );
    assert.ok(!diffMatches('x\n    def f(self):\n        return 1\n', places.files[0] ?? { path: '', places: [], hunks: [] }));
  });

  test('lists a created file apart', () => {
    const places = diffPlaces('diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x = 1\n');
    assert.deepEqual(places, { files: [], created: ['new.py'] });
  });
});

describe('gold nodes', () => {
  const noTexts = { texts: () => Promise.resolve([]), recorded: [] };

  test('are placed by parsing the repository file when it is the text the patch was made against', async () => {
    const gold = await changedNodes(goldCalcAdd, {
      texts: () => Promise.resolve([{ evidence: 'repository', text: sampleCalc }]),
      parse: parseDefinitions,
      recorded: [],
    });
    assert.deepEqual(gold.files, ['app/calc.py']);
    assert.deepEqual(
      gold.functions.map((f) => [f.id, f.evidence, f.span]),
      [['func:app/calc.py#add', 'repository', { start: 4, end: 6 }]],
    );
  });

  test('skip a text that is not the one the patch was made against', async () => {
    const fixed = sampleCalc.replace('lhs - rhs', 'lhs + rhs');
    const recorded = [{ id: 'func:app/calc.py#add', kind: 'function' as const, path: 'app/calc.py', span: { start: 4, end: 6 } }];
    const gold = await changedNodes(goldCalcAdd, {
      texts: () => Promise.resolve([{ evidence: 'repository', text: fixed }]),
      parse: parseDefinitions,
      recorded,
    });
    assert.deepEqual(
      gold.functions.map((f) => [f.id, f.evidence]),
      [['func:app/calc.py#add', 'recorded-span']],
    );
  });

  test('place a method appended after another in its class, not in the method before it', async () => {
    const text = 'class A:\n    def f(self):\n        return 1\n\n\nx = 1\n';
    const patch =
      'diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -2,3 +2,6 @@ class A:\n     def f(self):\n         return 1\n+\n+    def g(self):\n+        return 2\n \n';
    const gold = await changedNodes(patch, { texts: () => Promise.resolve([{ evidence: 'pre-image', text }]), parse: parseDefinitions, recorded: [] });
    assert.deepEqual(
      gold.functions.map((f) => [f.id, f.evidence]),
      [['class:m.py#A', 'pre-image']],
    );
  });

  test('fall back on the hunk header, and say so when nothing places a change', async () => {
    const patch = 'diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -10,2 +10,2 @@ def helper(x):\n-    return x\n+    return -x\n     # end\n';
    const gold = await changedNodes(patch, noTexts);
    assert.deepEqual(
      gold.functions.map((f) => [f.id, f.evidence, f.span]),
      [['func:m.py#helper', 'hunk-header', null]],
    );
    const bare = await changedNodes(patch.replace(' def helper(x):', ''), noTexts);
    assert.deepEqual(bare.functions, []);
    assert.match(bare.notes.join(' '), /m\.py: 1 changed line could not be placed/);
    // A module-level change in a parsed file is no definition, and nothing is guessed.
    const moduleLevel = await changedNodes('--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n', {
      texts: () => Promise.resolve([{ evidence: 'repository', text: 'x = 1\n' }]),
      parse: parseDefinitions,
      recorded: [],
    });
    assert.deepEqual([moduleLevel.files, moduleLevel.functions, moduleLevel.notes], [['m.py'], [], []]);
  });
});

describe('distance to gold', () => {
  const edges = [
    { src: 'file:a.py', dst: 'func:a.py#f', kind: 'contains' as const, evidence: 'id' as const },
    { src: 'file:a.py', dst: 'func:a.py#g', kind: 'contains' as const, evidence: 'id' as const },
    { src: 'file:b.py', dst: 'func:b.py#h', kind: 'contains' as const, evidence: 'id' as const },
  ];

  test('is 1 from the gold function’s file, 2 from a function beside it, and unknown across files with no known edge', () => {
    const d = distancesFromGold(['func:a.py#f'], edges);
    assert.equal(d.get('func:a.py#f'), 0);
    assert.equal(d.get('file:a.py'), 1);
    assert.equal(d.get('func:a.py#g'), 2);
    assert.equal(d.get('func:b.py#h'), undefined);
    assert.equal(d.get('file:b.py'), undefined);
  });

  test('falls step by step as the episode sees the gold, and is unknown without gold', () => {
    const sub = exploredSubgraph(calcAdd());
    const distances = distanceBySteps(sub, new Set(['func:tests/test_calc.py#test_multiplication']));
    // After reset the hints name the test file (1 from the test inside it); step 1's expansion shows the test itself.
    assert.deepEqual(
      distances.map((d) => d.distance),
      [1, 0, 0, 0, 0],
    );
    assert.deepEqual(
      distances.map((d) => d.seen),
      [3, 9, 9, 9, 9],
    );
    assert.ok(distanceBySteps(sub, new Set()).every((d) => d.distance === null));
    // A gold node in a file the episode never met has no known path: unknown, not a number.
    const far = distanceBySteps(sub, new Set(['func:lib/other.py#far', 'file:lib/other.py']));
    assert.ok(far.every((d) => d.distance === null));
  });

  test('counts hops through the graph edges the end line recorded, which reach nodes the episode never met', () => {
    const lines = fixtureText('trajectories/sample-calc-add.jsonl')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as TrajectoryLine);
    const end = lines.at(-1);
    assert.ok(end?.type === 'end');
    end.graph_edges = [{ src: 'func:lib/other.py#far', dst: 'func:app/calc.py#add', kind: 'calls' }];
    const sub = exploredSubgraph(buildEpisodeModel(parseTrajectory(lines.map((l) => JSON.stringify(l)).join('\n') + '\n')));
    // add is a hint from reset: one recorded call away from the gold.
    assert.deepEqual(
      distanceBySteps(sub, new Set(['func:lib/other.py#far'])).map((d) => d.distance),
      [1, 1, 1, 1, 1],
    );
    // Recorded edges count hops but are not drawn: the far node is not in the subgraph.
    assert.equal(sub.nodes.has('func:lib/other.py#far'), false);
  });
});

describe('the code-graph view and localisation recall', () => {
  const repository = (path: string) => Promise.resolve(path === 'app/calc.py' ? sampleCalc : undefined);
  const source: EpisodeGoldSource = { patch: goldCalcAdd, source: 'gold.jsonl', note: null, repositoryText: repository, parse: parseDefinitions };

  test('marks the gold nodes with their evidence and the episode’s edits, laid out without overlaps', async () => {
    const graph = await episodeCodeGraph(join(scratch, 'none', 'trajectories', 'x.jsonl'), calcAdd(), source);
    const add = graph.nodes.find((n) => n.id === 'func:app/calc.py#add');
    assert.equal(add?.gold, 'repository');
    assert.equal(add?.edited, 3);
    assert.equal(graph.nodes.find((n) => n.id === 'file:app/calc.py')?.gold, 'diff-header');
    assert.equal(graph.nodes.find((n) => n.id === 'func:app/calc.py#mul')?.edited, null);
    assert.deepEqual(
      graph.steps.map((s) => s.distance),
      [0, 0, 0, 0, 0],
    );
    assert.deepEqual(graph.gold, {
      source: 'gold.jsonl',
      files: ['app/calc.py'],
      functions: [{ id: 'func:app/calc.py#add', evidence: 'repository' }],
      note: null,
    });
    assert.deepEqual(graph.recall, { files: { gold: 1, seen: 1, read: 1, edited: 1 }, functions: { gold: 1, seen: 1, read: 1, edited: 1 } });
    for (const a of graph.nodes) {
      for (const b of graph.nodes) {
        if (a === b) continue;
        const apart = Math.abs(a.x - b.x) * 2 >= a.width + b.width || Math.abs(a.y - b.y) * 2 >= a.height + b.height;
        assert.ok(apart, `${a.id} and ${b.id} overlap`);
      }
    }
    assert.ok(graph.edges.every((e) => e.points.length >= 2));
  });

  test('past its limit, leaves out nodes only seen in passing, counted on their file, and keeps what the episode did', async () => {
    const full = await episodeCodeGraph(join(scratch, 'none', 'trajectories', 'x.jsonl'), calcAdd(), source);
    const small = await episodeCodeGraph(join(scratch, 'none', 'trajectories', 'x.jsonl'), calcAdd(), source, 5);
    assert.equal(small.total, full.nodes.length);
    assert.equal(small.omitted, small.total - small.nodes.length);
    assert.ok(small.omitted > 0);
    const ids = small.nodes.map((n) => n.id);
    // Hints, expansions, reads, edits and gold stay; the tests only an expansion showed go.
    for (const id of ['func:app/calc.py#add', 'func:app/calc.py#mul', 'file:app/calc.py', 'file:tests/test_calc.py'])
      assert.ok(ids.includes(id), `${id} is drawn: ${ids.join(', ')}`);
    assert.ok(!ids.includes('func:tests/test_calc.py#test_addition'));
    const hidden = small.nodes.find((n) => n.id === 'file:tests/test_calc.py')?.hidden ?? 0;
    assert.equal(hidden, full.nodes.filter((n) => n.path === 'tests/test_calc.py' && !ids.includes(n.id)).length);
    assert.ok(hidden > 0);
  });

  test('lays each file out as an outline: a definition right of its file, files one under another', async () => {
    const graph = await episodeCodeGraph(join(scratch, 'none', 'trajectories', 'x.jsonl'), calcAdd(), source);
    const at = (id: string) => graph.nodes.find((n) => n.id === id) ?? assert.fail(`${id} is drawn`);
    assert.ok(at('func:app/calc.py#add').x > at('file:app/calc.py').x);
    assert.ok(at('method:tests/test_calc_unittest.py#CalcTest.test_add').x > at('class:tests/test_calc_unittest.py#CalcTest').x);
    // An expansion recorded these files' containment first; they still hang from their files.
    assert.ok(at('func:tests/test_calc.py#test_addition').x > at('file:tests/test_calc.py').x);
    assert.ok(at('func:app/calc.py#mul').x > at('file:app/calc.py').x);
    const column0 = graph.nodes.filter((n) => n.kind === 'file').map((n) => n.x - n.width / 2);
    assert.ok(
      graph.nodes.filter((n) => n.kind !== 'file').every((n) => n.x - n.width / 2 > Math.max(...column0)),
      'every definition is right of the files’ column',
    );
    // add (line 4) comes before mul (line 9) in its file, on its file's row.
    assert.equal(at('func:app/calc.py#add').y, at('file:app/calc.py').y);
    assert.ok(at('func:app/calc.py#mul').y > at('func:app/calc.py#add').y);
    for (const n of graph.nodes) assert.ok(n.x + n.width / 2 <= graph.width && n.y + n.height / 2 <= graph.height, `${n.id} inside the drawing`);
  });

  test('takes the run’s pre-image over the repository, and counts a gold function the episode never met', async () => {
    const dir = join(scratch, 'preimage-run');
    mkdirSync(join(dir, 'preimages'), { recursive: true });
    mkdirSync(join(dir, 'trajectories'), { recursive: true });
    const sha = createHash('sha256').update(sampleCalc).digest('hex');
    writeFileSync(join(dir, 'preimages', sha), sampleCalc);
    const lines = fixtureText('trajectories/sample-calc-add.jsonl')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as TrajectoryLine);
    const repair = lines.find((l) => l.type === 'step' && l.observation.last?.kind === 'repair');
    assert.ok(repair?.type === 'step' && repair.observation.last?.kind === 'repair');
    for (const c of repair.observation.last.candidates) c.preimages = [{ path: 'app/calc.py', sha256: sha }];
    const file = join(dir, 'trajectories', 'sample-calc-add.jsonl');
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const model = buildEpisodeModel(parseTrajectory(readFileSync(file, 'utf8')));
    // Gold in add and in a second function the episode never saw, in a file it never met.
    const patch = `${goldCalcAdd}diff --git a/app/extra.py b/app/extra.py\n--- a/app/extra.py\n+++ b/app/extra.py\n@@ -1,2 +1,2 @@\n def extra():\n-    return 1\n+    return 2\n`;
    const extra = 'def extra():\n    return 1\n';
    const local = await localiseEpisode(file, model, { ...source, patch, repositoryText: (p) => Promise.resolve(p === 'app/extra.py' ? extra : undefined) });
    assert.deepEqual(local.summary.functions, [
      { id: 'func:app/calc.py#add', evidence: 'pre-image' },
      { id: 'func:app/extra.py#extra', evidence: 'repository' },
    ]);
    assert.deepEqual(local.recall, { files: { gold: 2, seen: 1, read: 1, edited: 1 }, functions: { gold: 2, seen: 1, read: 1, edited: 1 } });
  });

  test('says so when the gold patch is not a diff, and scores nothing against it', async () => {
    const local = await localiseEpisode(join(scratch, 'none', 'trajectories', 'x.jsonl'), calcAdd(), { ...source, patch: 'just some text\n' });
    assert.equal(local.recall, null);
    assert.match(local.summary.note ?? '', /gold patch in gold\.jsonl names no file/);
  });

  test('averages a group’s recall over the episodes with gold to score', () => {
    const one = { files: { gold: 2, seen: 2, read: 1, edited: 0 }, functions: { gold: 1, seen: 1, read: 1, edited: 1 } };
    const two = { files: { gold: 1, seen: 0, read: 0, edited: 0 }, functions: { gold: 0, seen: 0, read: 0, edited: 0 } };
    assert.deepEqual(groupRecall(3, [one, two, null]), {
      step: 3,
      episodes: 3,
      scoredFiles: 2,
      scoredFunctions: 1,
      files: { seen: 0.5, read: 0.25, edited: 0 },
      functions: { seen: 1, read: 1, edited: 1 },
    });
  });
});

describe('gold from a run folder', () => {
  test('finds the task file through launch.json, the gold patch beside it and the task’s repository', async () => {
    const dir = runFolder('launched');
    const finder = new EpisodeGoldFinder();
    const file = join(dir, 'trajectories', 'sample-calc-add.jsonl');
    const start = parseTrajectory(readFileSync(file, 'utf8')).start;
    const found = await finder.find(file, start);
    assert.equal(found.patch, goldCalcAdd);
    assert.equal(found.source, join(repoRoot, 'datasets/sample/gold_predictions_tasks.jsonl'));
    assert.equal(await found.repositoryText?.('app/calc.py'), sampleCalc);
    assert.equal(await found.repositoryText?.('../../../../etc/passwd'), undefined);
    const none = await finder.find(join(dir, 'trajectories', 'sample-version.jsonl'), parseTrajectory(fixtureText('trajectories/sample-version.jsonl')).start);
    assert.equal(none.patch, undefined);
    assert.match(none.note ?? '', /has no gold patch for sample-version/);
  });

  test('prefers the task file the trajectory names, and says when none is known', async () => {
    const start = parseTrajectory(fixtureText('trajectories/sample-calc-add.jsonl')).start;
    assert.ok(start);
    const finder = new EpisodeGoldFinder();
    const named = await finder.find(join(scratch, 'nowhere', 'trajectories', 'x.jsonl'), {
      ...start,
      task_file: { path: join(repoRoot, 'datasets/sample/tasks.jsonl'), line: 1 },
    });
    assert.equal(named.patch, goldCalcAdd);
    const unknown = await finder.find(join(scratch, 'nowhere', 'trajectories', 'x.jsonl'), start);
    assert.equal(unknown.patch, undefined);
    assert.match(unknown.note ?? '', /task file of this episode is unknown/);
  });

  test('scores a run’s episodes, grouped by training step when the run samples them per step', async () => {
    const dir = runFolder('scored');
    const finder = new EpisodeGoldFinder();
    const find = (p: string, s: Parameters<EpisodeGoldFinder['find']>[1]) => finder.find(p, s);
    const whole = await runLocalisation(dir, find);
    assert.deepEqual(whole, {
      groups: [
        { step: null, episodes: 2, scoredFiles: 1, scoredFunctions: 1, files: { seen: 1, read: 1, edited: 1 }, functions: { seen: 1, read: 1, edited: 1 } },
      ],
      episodes: 2,
      withoutGold: 1,
      problems: [],
    });
    const sample = (step: number, episode: string) => ({
      ts: '2026-11-23T00:00:00Z',
      attempt: 1,
      step,
      total: 1,
      episodes: [
        {
          episode_id: episode,
          task_id: episode,
          total_reward: 0,
          resolved: false,
          steps: 3,
          termination_reason: 'submitted',
          trajectory: `trajectories/${episode}.jsonl`,
        },
      ],
    });
    writeFileSync(join(dir, 'step_samples.jsonl'), `${JSON.stringify(sample(1, 'sample-version'))}\n${JSON.stringify(sample(2, 'sample-calc-add'))}\n`);
    const stepped = await runLocalisation(dir, find);
    assert.deepEqual(
      stepped.groups.map((g) => [g.step, g.episodes, g.scoredFiles, g.files.read]),
      [
        [1, 1, 0, 0],
        [2, 1, 1, 1],
      ],
    );
    // A trajectory torn in its first line has no task to find gold for: counted, without gold, never fatal.
    writeFileSync(join(dir, 'step_samples.jsonl'), '');
    writeFileSync(join(dir, 'trajectories', 'broken.jsonl'), '{"type":"start"');
    const torn = await runLocalisation(dir, find);
    assert.deepEqual([torn.episodes, torn.withoutGold, torn.problems], [3, 2, []]);
    const empty = await runLocalisation(join(scratch, 'no-such-run'), find);
    assert.match(empty.problems.join(' '), /has no trajectories yet/);
  });
});
