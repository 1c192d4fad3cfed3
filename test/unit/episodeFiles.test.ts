/**
 * The viewer's side of a trajectory file: following it as a rollout appends (only new bytes are
 * parsed, a torn last line waits for its end), starting over when the file is replaced, keeping
 * invalid lines as problems with their line numbers, and the header (the sandbox host's Ray node
 * included), rows and recorded source the viewer is sent.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EpisodeFiles } from '../../server/src/episodes/episodeFiles.js';
import { EpisodeWatch } from '../../server/src/episodes/episodeWatch.js';
import { episodeHeader, recordedSource, stepRow } from '../../server/src/episodes/episodeRows.js';

const scratch = mkdtempSync(join(tmpdir(), 'gp-episode-files-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const lines = readFileSync(join(__dirname, '../fixtures/trajectories/sample-calc-add.jsonl'), 'utf8').trimEnd().split('\n');

test('follows an episode as it is appended, torn line included, and starts over when the file is replaced', async () => {
  const file = join(scratch, 'follow.jsonl');
  writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n`);
  const files = new EpisodeFiles();
  const first = await files.load(file);
  assert.deepEqual([first.model.steps.length, first.model.cutShort, first.model.torn, first.rewritten], [2, true, false, false]);

  const fourth = lines[3] ?? '';
  appendFileSync(file, fourth.slice(0, 40));
  const torn = await files.load(file);
  assert.deepEqual([torn.model.steps.length, torn.model.torn], [2, true], 'half a line is not a step yet');

  appendFileSync(file, `${fourth.slice(40)}\n${lines.slice(4).join('\n')}\n`);
  const whole = await files.load(file);
  assert.deepEqual([whole.model.steps.length, whole.model.torn, whole.model.cutShort, whole.rewritten], [lines.length - 2, false, false, false]);
  assert.deepEqual(
    whole.model.steps.map((s) => s.cumulative),
    whole.model.steps.map((_, i) => whole.model.steps.slice(0, i + 1).reduce((sum, s) => sum + s.reward, 0)),
    'the return accumulates across reads',
  );

  appendFileSync(file, '{"type":"step","step":"not a number"}\nnot json\n');
  const damaged = await files.load(file);
  assert.equal(damaged.model.problems.length, 2);
  assert.match(damaged.model.problems[0] ?? '', new RegExp(`^line ${lines.length + 1}: `));
  assert.match(damaged.model.problems[1] ?? '', new RegExp(`^line ${lines.length + 2}: not JSON`));

  // A resumed episode replaces the file atomically with a new start line.
  const replacement = join(scratch, 'follow.jsonl.tmp');
  writeFileSync(replacement, `${lines[0]}\n`);
  renameSync(replacement, file);
  const restarted = await files.load(file);
  assert.deepEqual([restarted.rewritten, restarted.model.steps.length, restarted.model.problems.length], [true, 0, 0]);
});

test('concurrent loads of one file read each byte once', async () => {
  const file = join(scratch, 'concurrent.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const files = new EpisodeFiles();
  const loads = await Promise.all([files.load(file), files.load(file), files.load(file)]);
  assert.deepEqual(
    loads.map((l) => l.model.steps.length),
    [lines.length - 2, lines.length - 2, lines.length - 2],
  );
});

test('the header, the rows and the recorded source of a finished episode', async () => {
  const file = join(scratch, 'header.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const { model } = await new EpisodeFiles().load(file);
  const header = episodeHeader(file, model);
  assert.equal(header.taskId, 'sample-calc-add');
  assert.equal(header.issue?.title, 'calc.add returns the wrong result');
  assert.equal(header.outcome?.resolved, true);
  assert.equal(header.outcome?.noOutcome, null, 'a graded episode has an outcome');
  assert.match(header.outcome?.patch ?? '', /return lhs \+ rhs/);
  assert.equal(header.sandboxHost, null, 'an episode run in the launching process names no sandbox host');
  // The same episode run by a sandbox host of a Ray cluster: the header names the host and its node.
  const start = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
  const onHostFile = join(scratch, 'on-host.jsonl');
  writeFileSync(onHostFile, `${[JSON.stringify({ ...start, sandbox_host: { id: 'host-2', node: 'worker-2' } }), ...lines.slice(1)].join('\n')}\n`);
  const onHost = await new EpisodeFiles().load(onHostFile);
  assert.deepEqual(onHost.model.problems, [], 'the start line with sandbox_host is a valid trajectory record');
  assert.deepEqual(episodeHeader(onHostFile, onHost.model).sandboxHost, { id: 'host-2', node: 'worker-2' });
  // The same episode ended because its tests could not be graded: the header says it has no outcome.
  const end = JSON.parse(lines[lines.length - 1] ?? '{}') as Record<string, unknown>;
  const ungraded = {
    ...end,
    resolved: false,
    termination_reason: 'error',
    error: 'not gradable: pytest collected no tests (exit code 5): the tests never ran',
    infrastructure: { code: 'not-gradable', cause: 'pytest collected no tests (exit code 5): the tests never ran' },
  };
  const ungradedFile = join(scratch, 'ungraded.jsonl');
  writeFileSync(ungradedFile, `${[...lines.slice(0, -1), JSON.stringify(ungraded)].join('\n')}\n`);
  const noOutcome = episodeHeader(ungradedFile, (await new EpisodeFiles().load(ungradedFile)).model).outcome?.noOutcome;
  assert.equal(noOutcome, 'not-gradable: pytest collected no tests (exit code 5): the tests never ran');
  const rows = model.steps.map(stepRow);
  assert.deepEqual(
    rows.map((r) => r.kind),
    model.steps.map((s) => s.kind),
  );
  assert.ok((rows.find((r) => r.kind === 'repair')?.candidates ?? 0) > 0, 'the repair row counts its candidates');
  const source = recordedSource(model, 'app/calc.py');
  const text = source.text.split('\n');
  assert.equal(text[5], '    return lhs - rhs', 'line 6 as the read recorded it');
  assert.equal(text[0], '', 'lines never read are empty');
  assert.ok(source.recordedLines >= 6);
  assert.equal(recordedSource(model, 'nowhere.py').recordedLines, 0);
});

test('a watched trajectory reports appends and replacement once per burst, and nothing once released', async () => {
  const file = join(scratch, 'watched.jsonl');
  writeFileSync(file, `${lines[0]}\n`);
  const seen: string[] = [];
  const watch = new EpisodeWatch((path) => seen.push(path), 30);
  const settle = () => new Promise((r) => setTimeout(r, 150));
  try {
    assert.equal(watch.hold(file, 'viewer-1'), true);
    assert.equal(watch.hold(file, 'viewer-1'), true, 'holding twice is holding once');
    assert.equal(watch.hold(file, 'viewer-2'), true, 'a second viewer shares the watch');
    appendFileSync(file, `${lines[1]}\n`);
    appendFileSync(file, `${lines[2]}\n`);
    await settle();
    assert.deepEqual(seen, [file], 'two appends in one burst are one change');
    writeFileSync(join(scratch, 'unrelated.jsonl'), 'x\n');
    await settle();
    assert.equal(seen.length, 1, 'another file in the folder is not a change');
    const replacement = join(scratch, 'watched.jsonl.tmp');
    writeFileSync(replacement, `${lines[0]}\n`);
    renameSync(replacement, file);
    await settle();
    assert.equal(seen.length, 2, 'a replacement is a change');
    assert.equal(watch.release(file, 'viewer-1'), 1, 'viewer-1 held once, so one release lets it go');
    assert.equal(watch.release(file, 'viewer-2'), 0);
    assert.equal(watch.watching(file), false);
    appendFileSync(file, `${lines[1]}\n`);
    await settle();
    assert.equal(seen.length, 2, 'released: no more changes');
  } finally {
    watch.dispose();
  }
});
