/**
 * `graphPlanner/experimentOverview` over a real (in-memory) LSP connection: the server answers
 * from the open document as it is now, and the answer passes the schema the webview validates with.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startHarness, type Harness } from '../support/lspHarness.js';
import { experimentOverviewRequest, experimentOverviewSchema, type ExperimentOverview } from '../../server/src/protocol/index.js';

let h: Harness;
before(async () => {
  h = await startHarness({ validationDelayMs: 5, preflightDiskChecks: false });
});
after(() => h.close());

async function overview(uri: string): Promise<ExperimentOverview> {
  const raw: unknown = await h.client.sendRequest(experimentOverviewRequest, { uri });
  const parsed = experimentOverviewSchema.safeParse(raw);
  assert.ok(parsed.success, `the result does not match experimentOverviewSchema: ${JSON.stringify(raw)}`);
  return parsed.data;
}

test('answers with the Verl settings, GPU layout and findings of the open document, and follows its edits', async () => {
  const uri = 'file:///ws/configs/experiments/overview.yaml';
  await h.open(uri, 'resources:\n  num_gpus: 2\n  ray_num_gpus: 2\nenv:\n  failure_penalty: -1.0\n');
  const first = await overview(uri);
  assert.equal(first.version, 1);
  const gpus = first.settings.find((s) => s.key === 'resources.num_gpus');
  assert.deepEqual([gpus?.mapsTo, gpus?.value, gpus?.source], ['trainer.n_gpus_per_node', '2', 'file']);
  assert.equal(first.gpus?.gpusPerNode, 2);
  const penalty = first.findings.find((f) => f.code === 'preflight/negative-penalty');
  assert.equal(penalty?.range.start.line, 4);

  await h.change(uri, 2, 'resources:\n  num_gpus: 4\n  ray_num_gpus: 4\nenv:\n  failure_penalty: 1.0\n');
  const second = await overview(uri);
  assert.equal(second.version, 2);
  assert.equal(second.gpus?.gpusPerNode, 4);
  assert.ok(!second.findings.some((f) => f.code === 'preflight/negative-penalty'));
});

test('answers null for a document it can neither find open nor read', async () => {
  const raw: unknown = await h.client.sendRequest(experimentOverviewRequest, { uri: 'file:///nowhere/missing.yaml' });
  assert.equal(raw, null);
});

test('the sample config read from disk (rule agent, local backend) has no GPU layout, and a switch to the model agent brings it', async () => {
  const uri = `file://${process.cwd()}/configs/experiments/sample.yaml`;
  const fromDisk = await overview(uri);
  assert.equal(fromDisk.parsed, true);
  assert.equal(fromDisk.gpus, null);
  assert.deepEqual(fromDisk.findings, []);
  const text = readFileSync(join(process.cwd(), 'configs/experiments/sample.yaml'), 'utf8');
  await h.open(uri, text.replace('agent: rule', 'agent: model'));
  const model = await overview(uri);
  assert.notEqual(model.gpus, null, 'a model agent loads a model, so the layout applies');
});
