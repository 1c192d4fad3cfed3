import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyEpisodeMessage } from '../../webview/src/episode/emptyEpisode.js';
import { nodeFromId } from '../../webview/src/episode/nodeIds.js';
import { editsModel, fileSummary, parseUnifiedDiff } from '../../webview/src/episode/patchModel.js';
import type { EpisodeHeader } from '../../server/src/protocol/episodeView.js';

const gitDiff = [
  'diff --git a/app/calc.py b/app/calc.py',
  'index 1111111..2222222 100644',
  '--- a/app/calc.py',
  '+++ b/app/calc.py',
  '@@ -3,4 +3,4 @@ import math',
  ' ',
  ' def add(a, b):',
  '-    return a - b',
  '+    return a + b',
  ' ',
  'diff --git a/app/new.py b/app/new.py',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/app/new.py',
  '@@ -0,0 +1,2 @@',
  '+X = 1',
  '+Y = 2',
  '\\ No newline at end of file',
  '',
].join('\n');

test('parses a git diff into files, hunks and numbered lines, without the a/ and b/ prefixes', () => {
  const model = parseUnifiedDiff(gitDiff);
  assert.ok(model.ok);
  assert.deepEqual(
    model.files.map((f) => [f.path, f.status, f.added, f.removed, f.firstLine]),
    [
      ['app/calc.py', 'modified', 1, 1, 5],
      ['app/new.py', 'added', 2, 0, 1],
    ],
  );
  const calc = model.files[0]?.hunks[0];
  assert.equal(calc?.header, '@@ -3,4 +3,4 @@');
  assert.deepEqual(
    calc?.lines.map((l) => [l.kind, l.oldLine, l.newLine, l.text]),
    [
      ['context', 3, 3, ''],
      ['context', 4, 4, 'def add(a, b):'],
      ['del', 5, null, '    return a - b'],
      ['add', null, 5, '    return a + b'],
      ['context', 6, 6, ''],
    ],
  );
  const added = model.files[1]?.hunks[0]?.lines ?? [];
  assert.deepEqual(
    added.map((l) => l.kind),
    ['add', 'add', 'note'],
  );
  assert.equal(fileSummary(model.files[1] ?? assert.fail('two files')), 'new file · +2 −0');
});

test('tells deleted and renamed files apart', () => {
  const model = parseUnifiedDiff(
    ['--- a/old.py', '+++ /dev/null', '@@ -1 +0,0 @@', '-gone', '--- a/x.py', '+++ b/y.py', '@@ -1 +1 @@', '-a', '+b', ''].join('\n'),
  );
  assert.ok(model.ok);
  assert.deepEqual(
    model.files.map((f) => [f.path, f.status, f.from]),
    [
      ['old.py', 'deleted', null],
      ['y.py', 'renamed', 'x.py'],
    ],
  );
  assert.equal(fileSummary(model.files[1] ?? assert.fail('two files')), 'renamed from x.py · +1 −1');
});

test('hands back text that is not a unified diff with the reason, to be shown as written', () => {
  const model = parseUnifiedDiff('please fix the bug in add()');
  assert.equal(model.ok, false);
  assert.ok(!model.ok && model.text === 'please fix the bug in add()' && model.problem !== '');
  const broken = parseUnifiedDiff('--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a\n+b\n');
  assert.equal(broken.ok, false, 'a hunk shorter than its header says is refused, not drawn wrong');
  assert.deepEqual(parseUnifiedDiff('   \n'), { ok: true, files: [] });
});

test('line-range edits become one file per path, hunks in line order, the new text numbered from the start', () => {
  const model = editsModel([
    { path: 'app/calc.py', start: 9, end: 9, new_text: 'pass\n' },
    { path: 'app/calc.py', start: 5, end: 6, new_text: '    return a + b\n    # fixed\n' },
    { path: 'app/other.py', start: 2, end: 3, new_text: '' },
  ]);
  assert.ok(model.ok);
  const [calc, other] = model.files;
  assert.deepEqual(
    calc?.hunks.map((h) => h.header),
    ['lines 5–6 replaced by 2 lines (the old text is not in the edit)', 'line 9 replaced by 1 line (the old text is not in the edit)'],
  );
  assert.deepEqual(
    calc?.hunks[0]?.lines.map((l) => [l.kind, l.newLine, l.text]),
    [
      ['add', 5, '    return a + b'],
      ['add', 6, '    # fixed'],
    ],
  );
  assert.equal(calc?.firstLine, 5);
  assert.deepEqual([other?.hunks[0]?.header, other?.added, other?.removed], ['lines 2–3 deleted', 0, 2]);
});

test('reads what a code-graph node id says: kind, name and file', () => {
  assert.deepEqual(nodeFromId('func:app/calc.py#add'), { kind: 'function', name: 'add', path: 'app/calc.py' });
  assert.deepEqual(nodeFromId('method:pkg/a.py#Calc.add@2'), { kind: 'method', name: 'Calc.add@2', path: 'pkg/a.py' });
  assert.deepEqual(nodeFromId('file:app/calc.py'), { kind: 'file', name: 'calc.py', path: 'app/calc.py' });
  assert.equal(nodeFromId('add'), undefined);
  assert.equal(nodeFromId('func:app/calc.py#'), undefined);
});

const header = (over: Partial<EpisodeHeader>): EpisodeHeader => ({
  file: '/w/outputs/r/trajectories/t.jsonl',
  episodeId: 't',
  taskId: 't',
  agent: 'rule',
  backend: 'local',
  backendFallback: null,
  image: null,
  sandboxHost: null,
  issue: null,
  maxSteps: 6,
  startedAt: null,
  outcome: null,
  cutShort: true,
  torn: false,
  problems: [],
  ...over,
});

test('an episode that ended before its first step says how, never "No steps yet."', () => {
  const ended = emptyEpisodeMessage(
    header({
      cutShort: false,
      outcome: {
        resolved: false,
        terminationReason: 'error',
        totalReward: 0,
        steps: 0,
        durationMs: 1200,
        error: 'sandbox: no local_repo for task t',
        patch: '',
      },
      run: { name: 'r', state: 'failed', reason: '1 episode failed' },
    }),
  );
  assert.equal(ended.kind, 'ended');
  assert.equal(ended.title, 'The episode ended before its first step: error.');
  assert.deepEqual(ended.lines, ['Not resolved after 1.2 s', 'Failure: sandbox: no local_repo for task t', 'Run r failed: 1 episode failed']);
  const noOutcome = emptyEpisodeMessage(
    header({
      cutShort: false,
      outcome: { resolved: false, terminationReason: 'error', totalReward: 0, steps: 0, durationMs: 5, error: null, patch: '', noOutcome: 'daemon-lost: gone' },
    }),
  );
  assert.ok(noOutcome.lines.some((l) => l.startsWith('No outcome (daemon-lost: gone)')));
  const crashed = emptyEpisodeMessage(header({ run: { name: 'r', state: 'interrupted', reason: 'its process (pid 7) is gone without recording an end' } }));
  assert.equal(crashed.kind, 'ended');
  assert.ok(crashed.lines[0]?.startsWith('Run r was interrupted: its process'));
  for (const m of [ended, noOutcome, crashed]) assert.notEqual(m.title, 'No steps yet.');
});

test('"No steps yet." stays for a live episode with no step', () => {
  assert.deepEqual(emptyEpisodeMessage(header({ run: { name: 'r', state: 'running', reason: null } })), {
    kind: 'live',
    title: 'No steps yet.',
    lines: ['Run r is running; new steps appear as the episode writes them.'],
  });
  assert.equal(emptyEpisodeMessage(header({})).kind, 'live');
});
