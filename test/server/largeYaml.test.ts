/**
 * The language server stays responsive while a large experiment YAML is checked (issue 21, item 6):
 * a 1 MB file is checked on the worker thread (config/checkWorker.ts), so a hover in another file,
 * asked right after the large file opened, is answered before the large file's diagnostics arrive,
 * and those diagnostics are the same the main thread's check gives. Order, not a clock, is asserted;
 * the timing is a benchmark figure (bench/yamlFigures.ts).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hover, PublishDiagnosticsParams } from 'vscode-languageserver/node';
import { checkConfigText, offThreadBytes } from '../../server/src/config/index.js';
import type { ConfigServices, ServerServices } from '../../server/src/lsp/index.js';
import { engineServices, startHarness, type Harness } from '../support/lspHarness.js';

let h: Harness;
/** Resolved when the server starts checking a text of over 1 MB, on whichever thread it does. */
let largeCheckStarted: () => Promise<void>;
before(async () => {
  const engine = engineServices();
  let started: () => void = () => undefined;
  largeCheckStarted = () => new Promise<void>((resolve) => (started = resolve));
  const { check, checkOffThread } = engine.config;
  const config: ConfigServices = {
    ...engine.config,
    check: (text, previous) => {
      if (text.length > 1_000_000) started();
      return check(text, previous);
    },
    ...(checkOffThread === undefined
      ? {}
      : {
          checkOffThread: (key: string, text: string, options: { disk: boolean; baseDir: string }) => {
            if (text.length > 1_000_000) started();
            return checkOffThread(key, text, options);
          },
        }),
  };
  const services: ServerServices = { ...engine, config };
  h = await startHarness({ validationDelayMs: 5, preflightDiskChecks: false }, process.cwd(), services);
});
after(() => h.close());

/** About 1 MB of YAML with 50,000 keys and one duplicate near the end. */
function largeYaml(): string {
  const lines = ['verl_overrides:'];
  for (let i = 0; i < 50_000; i++) lines.push(`  trainer.option_number_${i}: ${i}`);
  lines.push('  trainer.option_number_7: again', 'env:', '  max_steps: -3', '');
  return lines.join('\n');
}

test('a hover in a small file is answered before a 1 MB file opened just before it is checked', async () => {
  const small = 'file:///ws/configs/experiments/small.yaml';
  await h.open(small, 'env:\n  max_steps: 6\n');
  const text = largeYaml();
  assert.ok(text.length > 1_000_000 && text.length > offThreadBytes);
  const large = 'file:///ws/configs/experiments/large.yaml';
  const order: string[] = [];
  const diagnostics = h.diagnosticsFor(large, 1, 60_000).then((d) => (order.push('large diagnostics'), d));
  const started = largeCheckStarted();
  await h.client.sendNotification('textDocument/didOpen', { textDocument: { uri: large, languageId: 'yaml', version: 1, text } });
  // The hover is asked once the check has begun: on the main thread it would wait for the check.
  await started;
  const hover = (await h.client.sendRequest('textDocument/hover', { textDocument: { uri: small }, position: { line: 1, character: 4 } })) as Hover | null;
  order.push('hover');
  assert.match(JSON.stringify(hover?.contents), /max_steps/);
  const published = await diagnostics;
  assert.deepEqual(order, ['hover', 'large diagnostics']);

  // What the worker found is what the main thread's check finds.
  const expected = checkConfigText(text)
    .findings.map((f) => `${f.code}:${f.range.start}`)
    .sort();
  const lines = text.split('\n');
  const offsetOf = (d: PublishDiagnosticsParams['diagnostics'][number]) =>
    lines.slice(0, d.range.start.line).reduce((n, l) => n + l.length + 1, 0) + d.range.start.character;
  assert.deepEqual(published.map((d) => `${String(d.code)}:${offsetOf(d)}`).sort(), expected);
  assert.ok(published.some((d) => d.code === 'yaml/duplicate-key' && d.range.start.line === 50_001));
});

test('of a burst of edits to a large file, only the newest is published', async () => {
  const uri = 'file:///ws/configs/experiments/large-burst.yaml';
  const text = largeYaml();
  await h.client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  for (let v = 2; v <= 5; v++) {
    await h.client.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: v },
      contentChanges: [{ text: text.replace('max_steps: -3', `max_steps: ${v}`) }],
    });
  }
  const last = await h.diagnosticsFor(uri, 5, 60_000);
  // Version 5 sets max_steps to 5, which is valid: nothing about it is left from the earlier versions.
  assert.ok(!last.some((d) => /max_steps/.test(JSON.stringify(d.message))), JSON.stringify(last.map((d) => d.code)));
  assert.ok(last.some((d) => d.code === 'yaml/duplicate-key'));
  const stale = h.notifications.filter(
    (n) =>
      n.method === 'textDocument/publishDiagnostics' &&
      (n.params as PublishDiagnosticsParams).uri === uri &&
      ((n.params as PublishDiagnosticsParams).version ?? 0) < 5,
  );
  assert.ok(stale.length <= 2, `published ${stale.length} stale versions of a burst`);
});
