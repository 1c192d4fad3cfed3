/**
 * Findings repeated on many dataset rows, through the language server: the 499 real SWE-bench
 * Verified rows (each converted with `workdir: /repo` and the legacy backend `repoenv`) give one
 * summary per cause, on the first row's key, whose quick fix and the document's "Fix all" change
 * every row in one edit, after which the file has no finding left.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, Diagnostic, TextEdit } from 'vscode-languageserver/node';
import { splitLines } from '../../server/src/tasks/index.js';
import { fixtureText, swebenchVerifiedFixture } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/lspHarness.js';

const verified = fixtureText(swebenchVerifiedFixture);
const rows = splitLines(verified);
let uri = '';

let h: Harness;
before(async () => {
  h = await startHarness({ validationDelayMs: 0 });
});
after(() => h.close());

function actions(range: Diagnostic['range'], diagnostics: Diagnostic[], only?: string[]): Promise<CodeAction[]> {
  return h.client.sendRequest('textDocument/codeAction', { textDocument: { uri }, range, context: { diagnostics, ...(only ? { only } : {}) } }) as Promise<
    CodeAction[]
  >;
}

function applied(text: string, edits: readonly TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create(uri, 'jsonl', 1, text), [...edits]);
}

function messageOf(d: Diagnostic | undefined): string {
  const m = d?.message ?? '';
  return typeof m === 'string' ? m : m.value;
}

function keyText(d: Diagnostic): string {
  return (rows[d.range.start.line] ?? '').slice(d.range.start.character, d.range.end.character);
}

test("the 499 Verified rows give one summary per repeated finding, with the count, on the first row's key", async () => {
  assert.equal(rows.length, 499);
  uri = 'file:///ws/datasets/verified-summary.jsonl';
  const ds = await h.open(uri, verified);
  assert.deepEqual(ds.map((d) => String(d.code)).sort(), ['task/legacy-backend', 'task/workdir-mismatch']);
  const workdir = ds.find((d) => d.code === 'task/workdir-mismatch');
  assert.ok(workdir);
  assert.match(
    messageOf(workdir),
    /^499 rows \(lines 1–499\): `sandbox\.workdir` is `\/repo` with a SWE-bench image, which keeps the repository in `\/testbed`/,
  );
  assert.match(messageOf(workdir), /The first 20 are listed\.$/);
  assert.equal(workdir.range.start.line, 0);
  assert.equal(keyText(workdir), '"workdir"', "the summary sits on the first row's key, not at column 1");
  assert.equal(workdir.relatedInformation?.length, 20);
  assert.deepEqual(
    workdir.relatedInformation?.slice(0, 3).map((r) => r.location.range.start.line),
    [0, 1, 2],
  );
  assert.match(workdir.relatedInformation?.[1]?.message ?? '', /^Line 2: SWE-bench image `sweb\.eval\.x86_64\.astropy__astropy-13033:latest`/);
  assert.equal((workdir.data as { rows: number[] }).rows.length, 499);
});

test("the summary's quick fix sets the workdir on every row in one edit and leaves the rest of each row as written", async () => {
  uri = 'file:///ws/datasets/verified-quick-fix.jsonl';
  const ds = await h.open(uri, verified);
  const workdir = ds.find((d) => d.code === 'task/workdir-mismatch');
  assert.ok(workdir);
  const fixes = await actions(workdir.range, [workdir]);
  const all = fixes.find((a) => a.title === 'Set the workdir to `/testbed` on all 499 rows');
  assert.ok(all, JSON.stringify(fixes.map((a) => a.title)));
  assert.equal(all.isPreferred, true);
  const edits = all.edit?.changes?.[uri] ?? [];
  assert.equal(edits.length, 499);
  // Each edit is as small as the change: `"/repo"` and `"/testbed"` share their quotes and slash.
  assert.ok(
    edits.every((e) => e.newText === 'testbed' && e.range.end.character - e.range.start.character === 'repo'.length),
    JSON.stringify(edits[0]),
  );
  const fixed = applied(verified, edits);
  const fixedRows = splitLines(fixed);
  assert.equal(fixedRows.length, 499);
  for (let i = 0; i < rows.length; i++) {
    const before = JSON.parse(rows[i] ?? '') as { sandbox: Record<string, unknown> };
    const after = JSON.parse(fixedRows[i] ?? '') as { sandbox: Record<string, unknown> };
    assert.equal(after.sandbox['workdir'], '/testbed');
    assert.deepEqual({ ...after, sandbox: { ...after.sandbox, workdir: '/repo' } }, before, `row ${i + 1} changed only its workdir`);
  }
  assert.equal(fixedRows[0]?.length, (rows[0]?.length ?? 0) + '/testbed'.length - '/repo'.length, 'the row keeps its own spacing');
  const again = await h.change(uri, 2, fixed);
  assert.deepEqual(
    again.map((d) => String(d.code)),
    ['task/legacy-backend'],
  );
});

test('"Fix all" (source.fixAll) fixes every row of every summary, and nothing is left', async () => {
  uri = 'file:///ws/datasets/verified-fix-all.jsonl';
  assert.equal((await h.open(uri, verified)).length, 2);
  // VS Code's "Fix All" sends the whole document's range and no diagnostics of its own.
  const found = await actions({ start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, [], ['source.fixAll']);
  assert.equal(found.length, 1, JSON.stringify(found.map((a) => a.title)));
  const fixAll = found[0] as CodeAction;
  assert.equal(fixAll.kind, 'source.fixAll');
  assert.equal(fixAll.title, 'Fix all dataset problems that have a fix (499 rows)');
  const edits = fixAll.edit?.changes?.[uri] ?? [];
  assert.equal(edits.length, 499, 'one edit per row, both fixes in it');
  const fixed = applied(verified, edits);
  const row = JSON.parse(splitLines(fixed)[7] ?? '') as { sandbox: { workdir: string; backend: string } };
  assert.deepEqual([row.sandbox.workdir, row.sandbox.backend], ['/testbed', 'docker']);
  assert.deepEqual(await h.change(uri, 2, fixed), []);
  const none = await actions({ start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, [], ['source.fixAll']);
  assert.deepEqual(none, [], 'nothing left to fix');
});

test('three rows with the same finding keep a diagnostic each; four become one summary', async () => {
  const three = rows.slice(0, 3).join('\n');
  const perRow = await h.open('file:///ws/datasets/three.jsonl', three);
  assert.deepEqual(
    perRow.filter((d) => d.code === 'task/workdir-mismatch').map((d) => d.range.start.line),
    [0, 1, 2],
  );
  assert.ok(perRow.every((d) => !messageOf(d).startsWith('3 rows')));
  const four = await h.open('file:///ws/datasets/four.jsonl', rows.slice(0, 4).join('\n'));
  const summaries = four.filter((d) => d.code === 'task/workdir-mismatch');
  assert.equal(summaries.length, 1);
  assert.match(messageOf(summaries[0]), /^4 rows \(lines 1–4\): /);
  assert.equal(summaries[0]?.relatedInformation?.length, 4);
});

test('different causes are not folded together: rows with other workdirs get their own summary', async () => {
  const other = rows.slice(0, 8).map((r, i) => (i < 4 ? r : r.replace('"workdir": "/repo"', '"workdir": "/src"')));
  assert.ok(other[5]?.includes('"/src"'), 'the fixture spells the workdir as the test expects');
  const ds = await h.open('file:///ws/datasets/mixed.jsonl', other.join('\n'));
  const summaries = ds.filter((d) => d.code === 'task/workdir-mismatch').map((d) => messageOf(d).slice(0, 60));
  assert.equal(summaries.length, 2, JSON.stringify(summaries));
  assert.match(summaries[1] ?? '', /^4 rows \(lines 5–8\): `sandbox\.workdir` is `\/src`/);
});
