import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CodeAction, CompletionItem, Diagnostic, DocumentSymbol, Hover } from 'vscode-languageserver/node';
import { caret } from '../support/caret.js';
import { startHarness, type Harness } from '../support/lspHarness.js';

let h: Harness;
before(async () => {
  h = await startHarness({ validationDelayMs: 5, preflightDiskChecks: false });
});
after(() => h.close());

let n = 0;
const uri = () => `file:///ws/configs/experiments/t${++n}.yaml`;

/** Codes of the errors and warnings (notes about a valid setup are left out). */
function codes(ds: Diagnostic[]): string[] {
  return problems(ds)
    .map((d) => String(d.code))
    .sort();
}

function problems(ds: Diagnostic[]): Diagnostic[] {
  return ds.filter((d) => (d.severity ?? 1) <= 2);
}

test('publishes schema and preflight diagnostics on open, on the right lines', async () => {
  const ds = await h.open(uri(), 'env:\n  max_step: 6\n  failure_penalty: -1.0\nparallel:\n  tensor_parallel_planner: two\n');
  const byCode = new Map(ds.map((d) => [String(d.code), d]));
  assert.equal(byCode.get('schema/unknown-key')?.range.start.line, 1);
  assert.equal(byCode.get('preflight/negative-penalty')?.range.start.line, 2);
  assert.equal(byCode.get('schema/type')?.range.start.line, 4);
  assert.ok(ds.every((d) => d.source === 'graph-planner'));
});

test('re-validates after an edit and clears fixed problems', async () => {
  const u = uri();
  const first = await h.open(u, 'env:\n  failure_penalty: -1\n');
  assert.ok(codes(first).includes('preflight/negative-penalty'));
  const second = await h.change(u, 2, 'env:\n  failure_penalty: 1\n');
  assert.ok(!codes(second).includes('preflight/negative-penalty'));
});

test('offers a quick fix that flips a negative penalty', async () => {
  const u = uri();
  const ds = await h.open(u, 'env:\n  failure_penalty: -1.0\n');
  const d = ds.find((x) => x.code === 'preflight/negative-penalty');
  assert.ok(d);
  const actions = (await h.client.sendRequest('textDocument/codeAction', {
    textDocument: { uri: u },
    range: d.range,
    context: { diagnostics: [d] },
  })) as CodeAction[];
  const flip = actions.find((a) => a.title === 'Flip the sign: set env.failure_penalty to 1');
  assert.ok(flip, JSON.stringify(actions.map((a) => a.title)));
  assert.equal(flip.isPreferred, true);
  const edits = flip.edit?.changes?.[u] ?? [];
  assert.deepEqual(
    edits.map((e) => e.newText),
    ['1'],
  );
  assert.deepEqual(edits[0]?.range, { start: { line: 1, character: 19 }, end: { line: 1, character: 23 } });
});

test('links a preflight finding to the related keys', async () => {
  const ds = await h.open(uri(), 'parallel:\n  workflow_parallel: 1\n  parallel_agents: 4\n  rollout_workers: 2\nresources:\n  ray_num_cpus: 64\n');
  const d = ds.find((x) => x.code === 'preflight/workflow-parallel-too-low');
  assert.ok(d);
  assert.ok((d.relatedInformation ?? []).some((r) => r.location.range.start.line === 2));
});

async function complete(textWithCaret: string): Promise<CompletionItem[]> {
  const { text, offset } = caret(textWithCaret);
  const u = uri();
  await h.open(u, text);
  const before = text.slice(0, offset).split('\n');
  const position = { line: before.length - 1, character: (before[before.length - 1] ?? '').length };
  const result = (await h.client.sendRequest('textDocument/completion', { textDocument: { uri: u }, position })) as CompletionItem[];
  return result;
}

test('completes keys inside a section with docs and the default as a snippet', async () => {
  const items = await complete('env:\n  reward_scale: 1\n  |\n');
  const maxSteps = items.find((i) => i.label === 'max_steps');
  assert.ok(maxSteps, JSON.stringify(items.map((i) => i.label)));
  assert.equal(maxSteps.insertText, 'max_steps: ${1:6}');
  assert.match(JSON.stringify(maxSteps.documentation), /Default: `6`/);
  assert.ok(!items.some((i) => i.label === 'reward_scale'), 'keys already present are not offered again');
});

test('completes top-level sections at column 0', async () => {
  const labels = (await complete('env:\n  max_steps: 3\n|')).map((i) => i.label);
  assert.ok(labels.includes('parallel') && labels.includes('resources'));
  assert.ok(!labels.includes('env'));
});

test('completes enum and boolean values', async () => {
  const dtype = (await complete('backends:\n  dtype: |\n')).map((i) => i.label);
  assert.deepEqual(dtype.slice(0, 3), ['bf16', 'fp16', 'fp32'], 'the default bf16 comes first');
  const bool = (await complete('logging:\n  wandb:\n    enabled: |\n')).map((i) => i.label);
  assert.deepEqual(bool, ['false', 'true']);
});

test('hover shows meaning, default, range and the effective value', async () => {
  const { text, offset } = caret('env:\n  max_st|eps: 12\n');
  const u = uri();
  await h.open(u, text);
  const hover = (await h.client.sendRequest('textDocument/hover', { textDocument: { uri: u }, position: { line: 1, character: offset - 5 } })) as Hover;
  const md = JSON.stringify(hover.contents);
  assert.match(md, /Most planner actions per episode/);
  assert.match(md, /Default: `6`/);
  assert.match(md, /≥ 1/);
  assert.match(md, /Effective value: `12`/);
});

test('hover on a section describes it without an effective value', async () => {
  const u = uri();
  await h.open(u, 'env:\n  max_steps: 3\n');
  const hover = (await h.client.sendRequest('textDocument/hover', { textDocument: { uri: u }, position: { line: 0, character: 1 } })) as Hover | null;
  const md = JSON.stringify(hover?.contents);
  assert.match(md, /The planner environment/);
  assert.doesNotMatch(md, /Effective value/);
});

test('lists sections and keys as document symbols', async () => {
  const u = uri();
  await h.open(u, 'env:\n  max_steps: 3\nparallel:\n  replicas: 1\n');
  const symbols = (await h.client.sendRequest('textDocument/documentSymbol', { textDocument: { uri: u } })) as DocumentSymbol[];
  assert.deepEqual(
    symbols.map((s) => s.name),
    ['env', 'parallel'],
  );
  assert.deepEqual(
    symbols[0]?.children?.map((s) => s.name),
    ['max_steps'],
  );
});

test('answers the resolved-config request with merged defaults', async () => {
  const u = uri();
  await h.open(u, 'env:\n  max_steps: 3\n');
  const r = (await h.client.sendRequest('graphPlanner/resolvedConfig', { uri: u })) as { yaml: string };
  assert.match(r.yaml, /max_steps: 3/);
  assert.match(r.yaml, /reward_scale: 1/);
});

test('sends a ready status after initialisation', () => {
  const ready = h.notifications.find((m) => m.method === 'graphPlanner/serverStatus' && (m.params as { state: string }).state === 'ready');
  assert.ok(ready);
});

test('survives hostile input: alias bomb, binary bytes, a 1 MB line, an empty file', async () => {
  const bomb = [
    'a: &a [x,x,x,x,x,x,x,x,x]',
    ...Array.from(
      { length: 8 },
      (_, i) =>
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(',')}]`,
    ),
  ].join('\n');
  assert.ok(codes(await h.open(uri(), bomb)).includes('yaml/alias-limit'));
  const binary = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 91) % 256)).toString('utf8');
  assert.ok((await h.open(uri(), binary)).length > 0);
  assert.deepEqual(problems(await h.open(uri(), `experiment:\n  notes: ${'y'.repeat(1_000_000)}\n`)), []);
  assert.deepEqual(problems(await h.open(uri(), '')), []);
  const stillAlive = await h.open(uri(), 'env:\n  max_step: 1\n');
  assert.deepEqual(codes(stillAlive), ['schema/unknown-key']);
});

test('coalesces a burst of edits into one validation of the last version', async () => {
  const slow = await startHarness({ validationDelayMs: 200, preflightDiskChecks: false });
  try {
    const u = 'file:///ws/configs/burst.yaml';
    await slow.open(u, 'env:\n  max_steps: 1\n');
    await slow.change(u, 2, 'env:\n  max_steps: 2\n');
    for (let v = 3; v <= 6; v++) {
      await slow.client.sendNotification('textDocument/didChange', {
        textDocument: { uri: u, version: v },
        contentChanges: [{ text: `env:\n  max_step: ${v}\n` }],
      });
    }
    const last = await slow.diagnosticsFor(u, 6, 3000);
    assert.deepEqual(codes(last), ['schema/unknown-key']);
    const versions = slow.notifications
      .filter((n) => n.method === 'textDocument/publishDiagnostics' && (n.params as { uri: string }).uri === u)
      .map((n) => (n.params as { version: number }).version);
    assert.deepEqual(
      versions.filter((v) => v >= 3 && v <= 5),
      [],
      `versions 3-5 were superseded, published: ${versions.join(',')}`,
    );
  } finally {
    await slow.close();
  }
});

test('leaves YAML outside the experiment globs alone', async () => {
  const u = 'file:///ws/.github/workflows/ci.yaml';
  await h.client.sendNotification('textDocument/didOpen', { textDocument: { uri: u, languageId: 'yaml', version: 1, text: 'env:\n  max_step: 1\n' } });
  const r = (await h.client.sendRequest('graphPlanner/checkDocument', { uri: u })) as { kind: string };
  assert.equal(r.kind, 'other');
  const pushed = h.notifications.filter((n) => n.method === 'textDocument/publishDiagnostics' && (n.params as { uri: string }).uri === u);
  assert.deepEqual(pushed, []);
});

test('Check Config on an experiment file that cannot be read fails with the path and what to do, never "no problems"', async () => {
  const u = 'file:///nonexistent-gp/configs/experiments/missing.yaml';
  await assert.rejects(
    h.client.sendRequest('graphPlanner/checkDocument', { uri: u }),
    /Cannot read \/nonexistent-gp\/configs\/experiments\/missing\.yaml \(.*ENOENT.*\); check that the file exists/,
  );
  const resolved = (await h.client.sendRequest('graphPlanner/resolvedConfig', { uri: u })) as { yaml: string | null; reason?: string };
  assert.equal(resolved.yaml, null);
  assert.match(resolved.reason ?? '', /Cannot read .*missing\.yaml .*check that the file exists/);
});
