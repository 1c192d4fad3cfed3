/**
 * "Fix All" on an experiment config (`source.fixAll`), through the language server rooted at this
 * repository with the disk rules on: one edit applies every finding's preferred fix, the disk
 * rules' "did you mean" included, leaves alone a finding whose fix is the person's choice, and is
 * not offered once nothing has a preferred fix left.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, Diagnostic } from 'vscode-languageserver/node';
import { checkDocumentRequest } from '../../server/src/protocol/lsp.js';
import { startHarness, type Harness } from '../support/lspHarness.js';

let h: Harness;
before(async () => {
  h = await startHarness({ validationDelayMs: 0, preflightDiskChecks: true });
});
after(() => h.close());

const u = `file://${process.cwd()}/configs/experiments/fix-all.yaml`;
const whole = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** The latest diagnostics of `version` once `ready` holds for them (the disk rules publish after the fast ones). */
async function settled(version: number, ready: (ds: Diagnostic[]) => boolean): Promise<Diagnostic[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const ds = await h.diagnosticsFor(u, version);
    if (ready(ds)) return ds;
    if (Date.now() > deadline) assert.fail(`diagnostics never settled: ${JSON.stringify(ds.map((d) => d.code))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function codeActions(only?: string[]): Promise<CodeAction[]> {
  return h.client.sendRequest('textDocument/codeAction', {
    textDocument: { uri: u },
    range: whole,
    context: { diagnostics: [], ...(only ? { only } : {}) },
  }) as Promise<CodeAction[]>;
}

const slips = [
  '# yaml-language-server: $schema=../../schemas/experiment.schema.json',
  'paths:',
  '  dataset_train: datasets/sampel/tasks.jsonl # a misspelt folder',
  '  dataset_val: null',
  'env:',
  '  max_step: 6',
  '  failure_penalty: -1.0',
  'backends:',
  '  dtype: bf61',
  'rollout:',
  '  agent: rule',
  '  parallel: "2"',
  'sandbox:',
  '  backend: local',
  'zzqqxx: 1',
  '',
].join('\n');

test('Fix All applies every preferred fix in one edit, the disk rules\' "did you mean" too, and keeps comments', async () => {
  const fixable = ['preflight/path-missing', 'schema/unknown-key', 'preflight/negative-penalty', 'schema/enum', 'schema/type'];
  await h.open(u, slips);
  const before = await settled(1, (ds) => ds.some((d) => d.code === 'preflight/path-missing'));
  for (const code of fixable)
    assert.ok(
      before.some((d) => d.code === code),
      `${code} before the fix: ${JSON.stringify(before.map((d) => d.code))}`,
    );

  const quick = await codeActions(['source.fixAll']);
  assert.equal(quick.length, 1, `only the fix-all action when only source.fixAll is asked for: ${JSON.stringify(quick.map((a) => a.title))}`);
  const fixAll = quick[0] as CodeAction;
  assert.equal(fixAll.kind, 'source.fixAll');
  assert.equal(fixAll.title, 'Fix all config problems that have a preferred fix (5 fixes)');
  assert.deepEqual(fixAll.diagnostics?.map((d) => d.code).sort(), [...fixable].sort());
  const edits = fixAll.edit?.changes?.[u] ?? [];
  assert.equal(edits.length, 1, 'one edit for the whole document');

  const fixed = TextDocument.applyEdits(TextDocument.create(u, 'yaml', 1, slips), edits);
  assert.match(fixed, /dataset_train: datasets\/sample\/tasks\.jsonl # a misspelt folder\n/);
  assert.match(fixed, /\n {2}max_steps: 6\n {2}failure_penalty: 1\n/);
  assert.match(fixed, /\n {2}dtype: bf16\n/);
  assert.match(fixed, /\n {2}parallel: 2\n/);
  assert.match(fixed, /^# yaml-language-server: /, 'comments stay');

  await h.change(u, 2, fixed);
  // Every rule, the disk rules included, on the fixed text: what remains is the key with no close
  // name, whose only fix (remove it) is the person's call.
  // (graphPlanner/checkDocument publishes them before it answers.)
  await h.client.sendRequest(checkDocumentRequest, { uri: u });
  const latest = await h.diagnosticsFor(u);
  for (const code of fixable.filter((c) => c !== 'schema/unknown-key'))
    assert.ok(!latest.some((d) => d.code === code), `${code} is gone: ${JSON.stringify(latest.map((d) => d.code))}`);
  const left = latest.filter((d) => d.code === 'schema/unknown-key');
  assert.equal(left.length, 1);
  assert.match(typeof left[0]?.message === 'string' ? left[0].message : (left[0]?.message.value ?? ''), /^Unknown key 'zzqqxx' at the top level\./);
  assert.deepEqual(await codeActions(['source.fixAll']), [], 'nothing is left with a preferred fix, so Fix All offers nothing');
});

test('a quick-fix request for the config still gets the quick fixes and no fix-all', async () => {
  await h.change(u, 3, 'env:\n  failure_penalty: -1.0\n');
  const ds = await settled(3, (x) => x.some((d) => d.code === 'preflight/negative-penalty'));
  const d = ds.find((x) => x.code === 'preflight/negative-penalty') as Diagnostic;
  const actions = (await h.client.sendRequest('textDocument/codeAction', {
    textDocument: { uri: u },
    range: d.range,
    context: { diagnostics: [d], only: ['quickfix'] },
  })) as CodeAction[];
  assert.deepEqual(
    actions.map((a) => [a.kind, a.title]),
    [['quickfix', 'Flip the sign: set env.failure_penalty to 1']],
  );
});
