/**
 * The experiment overview is computed from one `checkConfigText` result: these tests pin what the
 * webview shows for the Verl table, the overrides, the GPU layout and the findings.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkConfigText, flattenVerlOverrides, verlMappedFields } from '../../server/src/config/index.js';
import { experimentOverview } from '../../server/src/lsp/experimentOverview.js';
import { yamlCodeActions } from '../../server/src/lsp/yamlCodeActions.js';
import { toDiagnostics } from '../../server/src/lsp/yamlDiagnostics.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { experimentOverviewSchema, type ExperimentOverview, type VerlSetting } from '../../server/src/protocol/index.js';

const uri = 'file:///ws/configs/experiments/e.yaml';

function overviewOf(text: string): ExperimentOverview {
  const overview = experimentOverview(checkConfigText(text), uri, 3);
  // What the server returns must pass the schema the webview validates with.
  assert.ok(experimentOverviewSchema.safeParse(overview).success, 'the overview does not match its protocol schema');
  return overview;
}

function setting(o: ExperimentOverview, key: string): VerlSetting {
  const s = o.settings.find((x) => x.key === key);
  assert.ok(s !== undefined, `no row for ${key} in ${o.settings.map((x) => x.key).join(', ')}`);
  return s;
}

test('lists every field with maps_to metadata, with its Verl key, in schema order', () => {
  const o = overviewOf('experiment:\n  name: t\n');
  assert.equal(o.parsed, true);
  assert.deepEqual(
    o.settings.map((s) => s.key),
    verlMappedFields.map((f) => f.path.join('.')),
  );
  assert.ok(o.settings.length >= 20);
  assert.equal(setting(o, 'resources.num_gpus').mapsTo, 'trainer.n_gpus_per_node');
  assert.equal(setting(o, 'training.rollout_n').mapsTo, 'actor_rollout_ref.rollout.n');
  assert.equal(setting(o, 'logging.wandb.run_name').mapsTo, 'trainer.experiment_name');
  // A field without maps_to (env.max_steps) is not a Verl setting.
  assert.ok(!o.settings.some((s) => s.key === 'env.max_steps'));
});

test('says whether each value comes from the file, the defaults, or replaces a rejected value', () => {
  const text = 'resources:\n  num_gpus: 8\n  ray_num_gpus: 8\nparallel:\n  tensor_parallel_planner: two\n';
  const o = overviewOf(text);
  const gpus = setting(o, 'resources.num_gpus');
  assert.deepEqual([gpus.value, gpus.source], ['8', 'file']);
  assert.deepEqual(gpus.range, { start: { line: 1, character: 2 }, end: { line: 1, character: 10 } });
  const nodes = setting(o, 'resources.num_nodes');
  assert.deepEqual([nodes.value, nodes.source, nodes.range], ['1', 'default', undefined]);
  const tp = setting(o, 'parallel.tensor_parallel_planner');
  assert.deepEqual([tp.value, tp.source], ['1', 'invalid']);
  assert.equal(setting(o, 'training.lr').value, 'null');
});

test('flattens verl_overrides to dotted Hydra keys and marks the settings they override', () => {
  const o = overviewOf('verl_overrides:\n  trainer:\n    n_gpus_per_node: 4\n    logger: [console, file]\n  critic: {}\n');
  assert.deepEqual(
    o.overrides.map(({ key, value }) => [key, value]),
    [
      ['trainer.n_gpus_per_node', '4'],
      ['trainer.logger', '["console", "file"]'],
      ['critic', '{}'],
    ],
  );
  assert.equal(o.overrides[0]?.range?.start.line, 2);
  assert.equal(setting(o, 'resources.num_gpus').overridden, true);
  assert.equal(setting(o, 'logging.log_backend').overridden, true);
  assert.equal(setting(o, 'resources.num_nodes').overridden, false);
  assert.deepEqual(flattenVerlOverrides({}, []), []);
  assert.deepEqual(flattenVerlOverrides({ a: { b: { c: null } } }, []), [[['a', 'b', 'c'], null]]);
});

test('lays out the GPUs: device maps, shared and missing indices, and Ray budgets against needs', () => {
  const text = [
    'backends:',
    '  device_map_planner: [0, 1]',
    '  device_map_cgm: [1, 5]',
    'parallel:',
    '  tensor_parallel_planner: 2',
    '  tensor_parallel_cgm: 2',
    '  rollout_workers: 3',
    'resources:',
    '  num_gpus: 4',
    '  num_nodes: 2',
    '  ray_num_gpus: 4',
    '  ray_num_cpus: 8',
    '',
  ].join('\n');
  const gpus = overviewOf(text).gpus;
  assert.ok(gpus !== null);
  assert.deepEqual([gpus.numNodes, gpus.gpusPerNode, gpus.replicas], [2, 4, 1]);
  assert.deepEqual(gpus.planner, { backend: 'local', deviceMap: [0, 1], tensorParallel: 2 });
  assert.deepEqual(gpus.cgm, { backend: 'local', deviceMap: [1, 5], tensorParallel: 2 });
  // Both maps name GPU 1, but the models fit apart on 8 GPUs, so preflight notes no sharing and neither does the layout.
  assert.deepEqual(gpus.sharedGpus, []);
  assert.equal(gpus.sharedByTrainer, false);
  assert.deepEqual(gpus.missingGpus, [5]);
  assert.deepEqual(gpus.rayGpus, { have: 4, need: 8 });
  assert.deepEqual(gpus.rayCpus, { have: 8, need: 12 });
});

test('says the trainer places a model whose map is empty, and that a one-GPU debug run shares it', () => {
  const gpus = overviewOf('resources:\n  num_gpus: 1\n').gpus;
  assert.ok(gpus !== null);
  assert.equal(gpus.planner.deviceMap, null);
  assert.equal(gpus.cgm.deviceMap, null);
  assert.equal(gpus.sharedByTrainer, true);
  const remote = overviewOf('backends:\n  cgm_backend: openai\n  cgm_endpoint: http://localhost:8000\n').gpus;
  assert.equal(remote?.cgm.backend, 'openai');
  assert.equal(remote?.sharedByTrainer, false);
});

test('lists the findings errors first, then by line, each with its range in the document', () => {
  const o = overviewOf('env:\n  max_step: 6\n  failure_penalty: -1.0\n');
  assert.deepEqual(
    o.findings.map((f) => [f.severity, f.code]),
    [
      ['error', 'schema/unknown-key'],
      ['error', 'preflight/negative-penalty'],
      ['info', 'preflight/shared-devices'],
    ],
  );
  const penalty = o.findings[1];
  assert.deepEqual(penalty?.range, { start: { line: 2, character: 19 }, end: { line: 2, character: 23 } });
  assert.match(penalty?.message ?? '', /rewards failure/);
});

test('adds the findings the caller located beside the check', () => {
  const check = checkConfigText('env:\n  max_steps: 6\n');
  const extra = {
    code: 'preflight/path-missing',
    severity: 'warning' as const,
    message: 'gone',
    path: [],
    related: [],
    fixes: [],
    range: { start: 0, end: 4 },
    relatedRanges: [],
  };
  const o = experimentOverview(check, uri, null, [extra]);
  assert.ok(o.findings.some((f) => f.code === 'preflight/path-missing' && f.range.end.character === 4));
  assert.equal(o.version, null);
});

test('says the document does not parse and still lists its syntax errors', () => {
  const o = overviewOf('env: [1,\n  x: {\n');
  assert.equal(o.parsed, false);
  assert.match(o.reason ?? '', /does not parse/);
  assert.deepEqual([o.settings, o.overrides, o.gpus], [[], [], null]);
  assert.ok(o.findings.length > 0 && o.findings.every((f) => f.code === 'yaml/syntax'));
});

test('each finding carries the quick fixes the light bulb offers for it, by the same titles, and none that cannot apply', () => {
  const text = 'env:\n  failure_penalty: -1.0\n  max_step: 6\n';
  const check = checkConfigText(text);
  const o = experimentOverview(check, uri, 1);
  const doc = TextDocument.create(uri, 'yaml', 1, text);
  const actions = yamlCodeActions(doc, toDiagnostics(doc, check.findings));
  for (const f of o.findings) {
    const offered = actions.filter((a) => a.diagnostics?.some((d) => d.code === f.code && d.range.start.line === f.range.start.line)).map((a) => a.title);
    assert.deepEqual(
      f.fixes.map((x) => x.title),
      offered,
      f.code,
    );
  }
  const penalty = o.findings.find((f) => f.code === 'preflight/negative-penalty');
  assert.deepEqual(penalty?.fixes, [{ title: 'Flip the sign: set env.failure_penalty to 1', preferred: true }]);
  assert.ok(
    o.findings.some((f) => f.code === 'schema/unknown-key' && f.fixes.some((x) => /max_steps/.test(x.title))),
    JSON.stringify(o.findings),
  );
  // A finding with no fix says so with an empty list, which the page shows as no button.
  assert.ok(o.findings.every((f) => Array.isArray(f.fixes)));
});

test('the sample config (rule agent, local backend) has no GPU layout and nothing but what preflight says', () => {
  const text = readFileSync(resolve(__dirname, '../../configs/experiments/sample.yaml'), 'utf8');
  const check = checkConfigText(text);
  const o = experimentOverview(check, uri, 1);
  assert.equal(o.parsed, true);
  assert.equal(o.gpus, null);
  assert.deepEqual(o.findings, []);
  assert.deepEqual(check.findings, [], 'preflight says nothing either');
  // The default planner model (models/Qwen3-14B) is not the sample's model: it loads none.
  const keys = o.settings.map((x) => x.key);
  assert.ok(!keys.includes('paths.planner_model') && !keys.includes('parallel.tensor_parallel_planner'), keys.join(', '));
  assert.ok(keys.includes('paths.dataset_train') && keys.includes('training.rollout_n'), keys.join(', '));
  const model = overviewOf(text.replace('agent: rule', 'agent: model')).settings.map((x) => x.key);
  assert.ok(model.includes('paths.planner_model') && model.includes('parallel.tensor_parallel_planner'), 'a model agent gets its model rows');
});

test('a config whose runs use models shows its GPU layout: a model agent, or the rule agent in containers', () => {
  for (const text of ['rollout:\n  agent: model\nsandbox:\n  backend: local\n', 'rollout:\n  agent: rule\nsandbox:\n  backend: docker\n', 'planner_debug']) {
    const yaml = text === 'planner_debug' ? readFileSync(resolve(__dirname, '../../configs/experiments/planner_debug.yaml'), 'utf8') : text;
    assert.notEqual(overviewOf(yaml).gpus, null, text);
  }
  assert.equal(overviewOf('rollout:\n  agent: rule\nsandbox:\n  backend: local\nresources:\n  num_gpus: 1\n').gpus, null);
});

/** The GPU layout's verdicts, each as the finding preflight gives for it. */
function layoutVerdicts(o: ExperimentOverview): string[] {
  const g = o.gpus;
  if (g === null) return [];
  return [
    ...(g.sharedByTrainer || g.sharedGpus.length > 0 ? ['preflight/shared-devices'] : []),
    ...(g.missingGpus.length > 0 ? ['preflight/device-index-out-of-range'] : []),
    ...(g.rayGpus.have < g.rayGpus.need ? ['preflight/ray-gpu-budget'] : []),
    ...(g.rayCpus.have < g.rayCpus.need ? ['preflight/ray-cpu-budget'] : []),
  ];
}

test("the layout's sharing, missing GPUs and Ray budgets agree with preflight's findings over a range of configs", () => {
  const verdictCodes = new Set(['preflight/shared-devices', 'preflight/device-index-out-of-range', 'preflight/ray-gpu-budget', 'preflight/ray-cpu-budget']);
  const configs = [
    readFileSync(resolve(__dirname, '../../configs/experiments/sample.yaml'), 'utf8'),
    ...['planner_debug', 'planner_8g', 'planner_cgm_8g', 'gp_full_73b14b_16g', 'embedded_model'].map((n) =>
      readFileSync(resolve(__dirname, `../../configs/experiments/${n}.yaml`), 'utf8'),
    ),
    'resources:\n  num_gpus: 1\n',
    'rollout:\n  agent: rule\nsandbox:\n  backend: local\nresources:\n  num_gpus: 1\n',
    'rollout:\n  agent: model\nsandbox:\n  backend: local\nresources:\n  num_gpus: 1\n',
    'backends:\n  device_map_planner: [0, 1]\n  device_map_cgm: [1, 5]\nparallel:\n  tensor_parallel_planner: 2\n  tensor_parallel_cgm: 2\nresources:\n  num_gpus: 4\n',
    'backends:\n  device_map_planner: [0]\n  device_map_cgm: [0]\nresources:\n  num_gpus: 1\n',
    'backends:\n  device_map_planner: [0]\n  device_map_cgm: [1]\nresources:\n  num_gpus: 2\n',
    'backends:\n  cgm_backend: openai\n  cgm_endpoint: http://localhost:8000\nresources:\n  num_gpus: 1\n',
    'resources:\n  num_gpus: 8\n  ray_num_gpus: 2\n  ray_num_cpus: 1\n',
    'parallel:\n  tensor_parallel_planner: 4\n  tensor_parallel_cgm: 4\nresources:\n  num_gpus: 4\n',
    // The planner alone needs more GPUs than the run has: tp-exceeds-gpus says so, and no sharing is noted.
    'parallel:\n  tensor_parallel_planner: 8\n  tensor_parallel_cgm: 1\nresources:\n  num_gpus: 4\n',
  ];
  for (const text of configs) {
    const check = checkConfigText(text);
    const o = experimentOverview(check, uri, 1);
    const fromPreflight = [...new Set(check.findings.map((f) => f.code).filter((c) => verdictCodes.has(c)))].sort();
    assert.deepEqual(layoutVerdicts(o).sort(), o.gpus === null ? [] : fromPreflight, text);
    if (o.gpus === null) assert.deepEqual(fromPreflight, [], `no layout, so preflight has no GPU verdict either: ${text}`);
  }
});
