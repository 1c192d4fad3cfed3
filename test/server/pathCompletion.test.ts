/**
 * Completion of path values in an experiment config, through the language server rooted at this
 * repository: `paths.dataset_train` lists folders and JSONL task files relative to the workspace
 * folder (where the loader resolves it), level by level, and a field that is not a path gets none.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CompletionItem } from 'vscode-languageserver/node';
import { caret } from '../support/caret.js';
import { startHarness, type Harness } from '../support/lspHarness.js';

let h: Harness;
before(async () => {
  h = await startHarness({ validationDelayMs: 0 });
});
after(() => h.close());

let n = 0;
async function complete(withCaret: string): Promise<CompletionItem[]> {
  const { text, offset } = caret(withCaret);
  const uri = `file://${process.cwd()}/configs/experiments/completion-${n++}.yaml`;
  await h.open(uri, text);
  const position = TextDocument.create(uri, 'yaml', 1, text).positionAt(offset);
  return (await h.client.sendRequest('textDocument/completion', { textDocument: { uri }, position })) as CompletionItem[];
}

test('completes a dataset path from the workspace folder: folders first, then task files', async () => {
  const top = await complete('paths:\n  dataset_train: datas|\n');
  assert.ok(
    top.some((i) => i.label === 'datasets/'),
    JSON.stringify(top.map((i) => i.label)),
  );
  const sample = await complete('paths:\n  dataset_train: datasets/|\n');
  const labels = sample.map((i) => i.label);
  assert.deepEqual(labels.slice(0, 1), ['sample/'], 'folders come first');
  assert.ok(labels.includes('samples.jsonl') && labels.includes('gold_predictions_samples.jsonl'), labels.join(' '));
  const file = sample.find((i) => i.label === 'samples.jsonl');
  assert.deepEqual(file?.textEdit && 'range' in file.textEdit ? [file.textEdit.newText, file.textEdit.range.start.character] : undefined, [
    'datasets/samples.jsonl',
    17,
  ]);
  const inner = await complete('paths:\n  dataset_train: "datasets/sample/t|"\n');
  assert.ok(
    inner.some((i) => i.label === 'tasks.jsonl' && i.kind === 17),
    JSON.stringify(inner.map((i) => i.label)),
  );
  assert.ok(!inner.some((i) => i.label.endsWith('.md')), 'only task files and folders');
});

test('offers folders only for a model path, and no paths for a field that is not one', async () => {
  const model = await complete('paths:\n  planner_model: |\n');
  assert.ok(model.length > 0 && model.every((i) => i.label.endsWith('/')), JSON.stringify(model.map((i) => i.label)));
  const notPath = await complete('experiment:\n  name: da|\n');
  assert.ok(!notPath.some((i) => i.label === 'datasets/'), JSON.stringify(notPath.map((i) => i.label)));
});
