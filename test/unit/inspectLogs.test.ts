/**
 * Inspect AI logs (issue 40, item 2): Inspect's own example logs (test/fixtures/formats/inspect/,
 * written offline by Inspect with its mock model; the `.eval` members are zstd-compressed, as
 * Inspect writes them) open with their samples, steps and scores, one sample at a time; our export
 * of a run (`gp runs export --format inspect`) maps episodes to samples and epochs, scores real
 * outcomes only, and reads back as the same episodes; a broken log is refused with a reason, or
 * shown with its problems placed. Inspect's own reader checks our exports in
 * test/integration/formatConformance.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';
import { buildEpisodeModel } from '../../server/src/episodes/index.js';
import {
  EpisodeDocuments,
  inspectEvalZip,
  inspectExport,
  openedHeader,
  openedRecords,
  openedRows,
  readInspectEval,
  TrajectoryFormatError,
  type OpenedEpisode,
} from '../../server/src/formats/index.js';
import { inspectScorerName } from '../../server/src/protocol/inspectLog.js';
import { parseTrajectory } from '../../server/src/runs/index.js';
import { fixturePath } from '../support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-inspect-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const inspectDir = (name: string): string => join(fixturePath('formats/inspect'), name);

async function open(path: string, sample?: string): Promise<OpenedEpisode> {
  return (await new EpisodeDocuments().load(path, sample)).opened;
}

function foreign(opened: OpenedEpisode) {
  assert.equal(opened.kind, 'foreign');
  return opened.episode;
}

test("Inspect's own .eval log (zstd members) opens at its first sample, with the tool call, its result and the score", async () => {
  const e = foreign(await open(inspectDir('tiny.eval')));
  assert.equal(e.format.name, 'inspect');
  assert.equal(e.format.version, 'Inspect AI log v2 (.eval)');
  assert.deepEqual(
    e.format.samples?.map((s) => s.label),
    ['add-one-and-one · epoch 1 · C', 'say-hello · epoch 1 · I'],
  );
  assert.equal(e.format.sample, 'add-one-and-one_epoch_1');
  assert.equal(e.taskId, 'add-one-and-one');
  assert.deepEqual(
    e.steps.map((s) => [s.source, s.toolCalls.map((c) => `${c.name} ${JSON.stringify(c.arguments)}`).join(), s.results.map((r) => r.content).join()]),
    [
      ['user', '', ''],
      ['agent', 'add {"x":1,"y":1}', '2'],
      ['agent', '', ''],
    ],
  );
  assert.equal(e.steps[2]?.message, 'The answer is 2.');
  assert.ok(e.format.facts.includes('score includes: C (The answer is 2.)'), e.format.facts.join(' | '));
  assert.ok(e.format.facts.includes('target: 2'));
  // Inspect scores a sample, never a step: no reward is made up.
  assert.ok(e.steps.every((s) => s.reward === null));
  assert.match(e.format.lacks.join(' '), /No per-step rewards/);
  assert.deepEqual(e.problems, []);
});

test('the .eval and .json logs of one evaluation show the same samples and steps; another sample is chosen by its key', async () => {
  for (const sample of [undefined, 'say-hello_epoch_1']) {
    const fromEval = await open(inspectDir('tiny.eval'), sample);
    const fromJson = await open(inspectDir('tiny.json'), sample);
    const rows = (o: OpenedEpisode) => openedRows(o).map((r) => [r.step, r.kind, r.summary]);
    assert.deepEqual(rows(fromEval), rows(fromJson), String(sample));
    assert.deepEqual(
      foreign(fromEval).format.facts.filter((f) => f.startsWith('score')),
      foreign(fromJson).format.facts.filter((f) => f.startsWith('score')),
    );
  }
  const hello = foreign(await open(inspectDir('tiny.json'), 'say-hello_epoch_1'));
  assert.equal(hello.format.sample, 'say-hello_epoch_1');
  assert.deepEqual(
    hello.steps.map((s) => s.message),
    ['Say hello.', 'Goodbye.'],
  );
  assert.ok(hello.format.facts.includes('score includes: I (Goodbye.)'));
});

test('one document cache keeps each sample of a log apart', async () => {
  const documents = new EpisodeDocuments();
  const first = (await documents.load(inspectDir('tiny.eval'))).opened;
  const second = (await documents.load(inspectDir('tiny.eval'), 'say-hello_epoch_1')).opened;
  assert.equal(foreign(documents.cached(inspectDir('tiny.eval')) ?? first).taskId, 'add-one-and-one');
  assert.equal(foreign(documents.cached(inspectDir('tiny.eval'), 'say-hello_epoch_1') ?? second).taskId, 'say-hello');
  assert.equal(openedRecords(second, [2])[0]?.step, 2);
});

/** Our fixture episodes, two attempts of one task and one of another, the last cut short. */
function episodes() {
  const text = (name: string) => readFileSync(join(fixturePath('trajectories'), name), 'utf8');
  const calc = text('sample-calc-add.jsonl');
  const version = text('sample-version.jsonl');
  const lines = calc.trimEnd().split('\n');
  return [parseTrajectory(calc), parseTrajectory(version), parseTrajectory(`${lines.slice(0, -1).join('\n')}\n`)].map(buildEpisodeModel);
}

test('our export: a task is a sample and its attempts are epochs; real outcomes are scored C or I, an episode without one has an error instead', () => {
  const log = inspectExport(episodes(), { runName: 'run-1', version: '0.1.0', created: '2026-11-29T00:00:00Z' });
  assert.deepEqual(
    log.samples.map((s) => [s.id, s.epoch]),
    [
      ['sample-calc-add', 1],
      ['sample-version', 1],
      ['sample-calc-add', 2],
    ],
  );
  const [first, , cut] = log.samples;
  assert.equal(first?.scores?.[inspectScorerName]?.value, 'C');
  assert.deepEqual(cut?.scores, {}, 'a cut-short episode is not scored');
  assert.match(cut?.error?.message ?? '', /^no outcome: no end line/);
  // The conversation: the issue, then per step the reply with its action as a tool call and the observation as the tool's answer.
  const roles = first?.messages?.map((m) => m.role) ?? [];
  assert.equal(roles[0], 'user');
  assert.deepEqual(roles.slice(1, 3), ['assistant', 'tool']);
  const call = first?.messages?.[1];
  assert.ok(call?.role === 'assistant' && call.tool_calls?.[0] !== undefined);
  assert.equal(call.tool_calls[0].function, episodes()[0]?.steps[0]?.record.action?.type);
  assert.equal(log.header.eval.dataset.samples, 2, 'two tasks');
  assert.equal(log.header.results?.scores[0]?.scored_samples, 2);
  assert.equal(log.header.results?.scores[0]?.unscored_samples, 1);
  // sample-calc-add was resolved, sample-version was not: half of the scored samples.
  assert.equal(log.samples[1]?.scores?.[inspectScorerName]?.value, 'I');
  assert.equal(log.header.results?.scores[0]?.metrics['accuracy']?.value, 0.5);
});

test('gp runs export writes .eval and .json logs that read back as the same episodes, step for step', async () => {
  const run = join(dir, 'outputs', 'run-1');
  const trajectories = join(run, 'trajectories');
  mkdirSync(trajectories, { recursive: true });
  for (const name of ['sample-calc-add.jsonl', 'sample-version.jsonl'])
    writeFileSync(join(trajectories, name), readFileSync(join(fixturePath('trajectories'), name), 'utf8'));
  writeFileSync(
    join(run, 'status.json'),
    JSON.stringify({
      state: 'finished',
      command: 'gp rollout',
      pid: 1,
      host: 'h',
      started_at: '2026-11-29T00:00:00Z',
      episodes: { total: 2, finished: 2, resolved: 2, errored: 0 },
    }),
  );
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  assert.equal(await runCli(['runs', 'export', run, '--format', 'inspect'], io, dir), 0, err.join('\n'));
  assert.match(out.join('\n'), /wrote .*run-1\.eval: 2 sample\(s\) of 2 task\(s\), 2 scored, accuracy 0\.500/);
  assert.equal(await runCli(['runs', 'export', run, '--format', 'inspect', '--out', join(dir, 'run-1.json')], io, dir), 0, err.join('\n'));
  for (const file of [join(run, 'run-1.eval'), join(dir, 'run-1.json')]) {
    for (const [sample, name] of [
      ['sample-calc-add_epoch_1', 'sample-calc-add.jsonl'],
      ['sample-version_epoch_1', 'sample-version.jsonl'],
    ] as const) {
      const opened = await open(file, sample);
      assert.equal(opened.kind, 'ours', `${file} ${sample} reads back as our episode`);
      const original = await open(join(trajectories, name));
      assert.deepEqual(openedRows(opened), openedRows(original));
      assert.equal(openedHeader(file, opened).format?.name, 'inspect');
    }
  }
  assert.equal(await runCli(['runs', 'export', run, '--format', 'atif'], io, dir), 2, 'an unknown format is a usage error');
  const empty = join(dir, 'outputs', 'empty-run');
  mkdirSync(empty, { recursive: true });
  writeFileSync(join(empty, 'status.json'), readFileSync(join(run, 'status.json')));
  assert.equal(await runCli(['runs', 'export', empty, '--format', 'inspect'], io, dir), 1);
  assert.match(err.join('\n'), /empty-run has no episodes yet/);
  assert.match(err.join('\n'), /--format atif is not known; the one format is inspect/);
});

test('task ids that differ only where a path would (a/b, a_b, ../x) get members of their own and read back apart', () => {
  const models = ['a/b', 'a_b', '../x'].map((task) => {
    const read = parseTrajectory(readFileSync(join(fixturePath('trajectories'), 'sample-calc-add.jsonl'), 'utf8'));
    return buildEpisodeModel({
      ...read,
      start: read.start === undefined ? undefined : { ...read.start, task_id: task },
      end: read.end === undefined ? undefined : { ...read.end, task_id: task },
    });
  });
  const zip = inspectEvalZip(inspectExport(models, { runName: 'ids', version: '0.1.0' }));
  for (const task of ['a/b', 'a_b', '../x']) {
    const opened = readInspectEval(zip, 'ids.eval', `${task}_epoch_1`);
    assert.equal(opened.kind, 'ours');
    assert.equal(opened.kind === 'ours' ? opened.model.start?.task_id : '', task);
  }
});

test('a truncated .eval is refused with the reason; a .json log with a broken sample shows it with its problems placed', async () => {
  const whole = readFileSync(inspectDir('tiny.eval'));
  const cut = join(dir, 'cut.eval');
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
  await assert.rejects(
    open(cut),
    (error: unknown) => error instanceof TrajectoryFormatError && /cut\.eval is not a readable Inspect \.eval log/.test(error.message),
  );
  const doc = JSON.parse(readFileSync(inspectDir('tiny.json'), 'utf8')) as { samples: { epoch: unknown; messages: { role: string }[] }[] };
  const first = doc.samples[0];
  assert.ok(first !== undefined);
  first.epoch = 'one';
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, JSON.stringify(doc, null, 2));
  const e = foreign(await open(broken));
  assert.ok(
    e.problems.some((p) => /^samples\.0\.epoch \(line \d+, column \d+\): /.test(p)),
    e.problems.join('\n'),
  );
  assert.ok(e.steps.length >= 2, 'what can be read is still shown');
  // A log for which no sample exists says so rather than showing nothing.
  writeFileSync(join(dir, 'empty.json'), JSON.stringify({ ...doc, samples: [] }));
  await assert.rejects(open(join(dir, 'empty.json')), /an Inspect log without samples/);
});

test('a member that inflates past the limit is refused, deflated or zstd, rather than read into memory', async () => {
  // Our export deflates; Inspect's own log uses zstd. With the limit below one member's size, both are refused by name.
  const exported = inspectEvalZip(inspectExport(episodes().slice(0, 1), { runName: 'bomb', version: '0.1.0' }));
  assert.throws(
    () => readInspectEval(exported, 'bomb.eval', undefined, 64),
    (error: unknown) => error instanceof TrajectoryFormatError && /summaries\.json: it decompresses to more than 0 MiB/.test(error.message),
  );
  assert.throws(
    () => readInspectEval(readFileSync(inspectDir('tiny.eval')), 'tiny.eval', undefined, 256),
    (error: unknown) => error instanceof TrajectoryFormatError && /it decompresses to more than/.test(error.message),
  );
  // The same files under the real limit read as before.
  assert.equal(readInspectEval(exported, 'bomb.eval').kind, 'ours');
});

test('gp trajectory show lists a log’s samples, shows the one asked for, and refuses a key the log does not have', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  assert.equal(await runCli(['trajectory', 'show', inspectDir('tiny.eval'), '--sample', 'say-hello_epoch_1'], io, dir), 0, err.join('\n'));
  const text = out.join('\n');
  assert.match(text, /^say-hello {2}Inspect AI log v2 \(\.eval\), read-only$/m);
  assert.match(text, /^sample 2 of 2; --sample KEY shows another:$/m);
  assert.match(text, /^ {2}\* say-hello_epoch_1/m);
  assert.equal(await runCli(['trajectory', 'show', inspectDir('tiny.eval'), '--sample', 'nope'], io, dir), 1);
  assert.match(err.join('\n'), /has no sample nope; its samples: add-one-and-one_epoch_1, say-hello_epoch_1\./);
});
