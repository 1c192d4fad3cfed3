/**
 * Where experiment-config diagnostics sit, through the language server rooted at this repository:
 * on the key a finding is about, on the nearest written ancestor when the key is not written, on a
 * written related setting or the first key when its whole section is missing, and on the first
 * line only when the finding is about the whole file. Disk rules are on, so the dataset path
 * findings are the ones an editor shows.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver/node';
import { startHarness, type Harness } from '../support/lspHarness.js';
import { checkDocumentRequest } from '../../server/src/protocol/lsp.js';

let h: Harness;
before(async () => {
  h = await startHarness({ validationDelayMs: 0, preflightDiskChecks: true });
});
after(() => h.close());

let n = 0;
const uri = () => `file://${process.cwd()}/configs/experiments/anchors-${++n}.yaml`;

/** The diagnostics of version 1 once the disk rules' `code` finding has been published with them. */
async function withDisk(u: string, text: string, code: string): Promise<Diagnostic[]> {
  const first = await h.open(u, text);
  const deadline = Date.now() + 5000;
  let latest = first;
  while (!latest.some((d) => d.code === code)) {
    if (Date.now() > deadline) assert.fail(`no ${code} within 5 s: ${JSON.stringify(latest.map((d) => d.code))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    latest = await h.diagnosticsFor(u, 1);
  }
  return latest;
}

/** The text a diagnostic's range covers, on its one line. */
function under(text: string, d: Diagnostic): string {
  const line = text.split('\n')[d.range.start.line] ?? '';
  assert.equal(d.range.end.line, d.range.start.line, 'a diagnostic stays on one line');
  return line.slice(d.range.start.character, d.range.end.character);
}

/** A diagnostic's message, whether the server sent a string or markup (the LSP type allows both). */
function messageOf(d: Diagnostic): string {
  return typeof d.message === 'string' ? d.message : d.message.value;
}

function one(ds: readonly Diagnostic[], code: string, path?: string): Diagnostic {
  const hits = ds.filter((d) => d.code === code && (path === undefined || messageOf(d).startsWith(path)));
  assert.equal(hits.length, 1, `one ${code}${path ? ` on ${path}` : ''} in ${JSON.stringify(ds.map((d) => [d.code, messageOf(d).slice(0, 40)]))}`);
  return hits[0] as Diagnostic;
}

test('a finding about a written key sits on that key, past the comments above it', async () => {
  const text =
    '# yaml-language-server: $schema=../../schemas/experiment.schema.json\npaths:\n  dataset_train: datasets/sampel/tasks.jsonl\n  dataset_val: null\n';
  const d = one(await withDisk(uri(), text, 'preflight/path-missing'), 'preflight/path-missing');
  assert.equal(d.range.start.line, 2);
  assert.equal(under(text, d), 'datasets/sampel/tasks.jsonl');
});

test("a finding about a value left empty sits on its key, not on an empty spot at the line's end", async () => {
  const text = 'paths:\n  dataset_train:\n  dataset_val: null\n';
  const d = one(await h.open(uri(), text), 'schema/type');
  assert.equal(d.range.start.line, 1);
  assert.equal(under(text, d), 'dataset_train');
});

test('a finding about a field the file leaves out sits on its section key, where its default belongs', async () => {
  // dataset_train is not written, so its default is checked and reported on `paths:`.
  const text = '# A rule-agent config on this machine.\nexperiment:\n  name: anchors\npaths:\n  dataset_val: datasets/sample/tasks.jsonl\n';
  const d = one(await withDisk(uri(), text, 'preflight/path-missing'), 'preflight/path-missing', 'paths.dataset_train');
  assert.equal(d.range.start.line, 3);
  assert.equal(under(text, d), 'paths');
});

test('a finding whose whole section is missing sits on the written setting it names as related, and points only at written ones', async () => {
  const text = '# yaml-language-server: $schema=../../schemas/experiment.schema.json\nrollout:\n  agent: model\nresources:\n  num_gpus: 1\n';
  const ds = await h.open(uri(), text);
  const d = one(ds, 'preflight/shared-devices');
  assert.equal(d.range.start.line, 4);
  assert.equal(under(text, d), 'num_gpus');
  // parallel.tensor_parallel_planner is related too, but nothing of it is written: no location points at line 1 for it.
  assert.deepEqual(
    d.relatedInformation?.map((r) => r.location.range.start.line),
    [4],
  );
});

test('a finding with nothing written near it sits on the first key, never on a leading comment line', async () => {
  const text = '# yaml-language-server: $schema=../../schemas/experiment.schema.json\n# The model agent with every default.\n\nrollout:\n  agent: model\n';
  const u = uri();
  await h.open(u, text);
  // Every rule, the disk rules included, has run once the request answers (lsp/customRequests.ts).
  await h.client.sendRequest(checkDocumentRequest, { uri: u });
  const ds = await h.diagnosticsFor(u);
  const note = one(ds, 'preflight/shared-devices');
  assert.equal(note.range.start.line, 3, 'the note sits on rollout:');
  assert.equal(under(text, note), 'rollout');
  assert.ok(
    ds.every((d) => d.range.start.line !== 0),
    `nothing sits on the comment line: ${JSON.stringify(ds.map((d) => [d.code, d.range.start.line]))}`,
  );
  // The file names no path, so the default (placeholder) dataset and model paths are not its findings (config/placeholderPaths.ts).
  assert.deepEqual(
    ds.filter((d) => /^preflight\/(path-missing|model-not-local)$/.test(String(d.code))).map((d) => d.message),
    [],
  );
});

test('a default path a named training set brings in sits on paths:, saying the default applies', async () => {
  const text = 'experiment:\n  name: anchors\npaths:\n  dataset_train: datasets/sample/tasks.jsonl\n';
  const ds = await withDisk(uri(), text, 'preflight/path-missing');
  const val = one(ds, 'preflight/path-missing', 'paths.dataset_val');
  assert.equal(under(text, val), 'paths');
  assert.match(messageOf(val), /^paths\.dataset_val is not set, so its default applies/);
});

test('a finding about the whole file stays on the first line', async () => {
  const text = '- just\n- a list\n';
  const d = one(await h.open(uri(), text), 'yaml/not-a-mapping');
  assert.equal(d.range.start.line, 0);
});
