/**
 * Our exports read by the formats' own code (issue 40, item 3). ATIF: the `atif` package's
 * Pydantic models (ATIF v1.8) validate `gp trajectory export --format atif` of every sample
 * trajectory, including one cut short; on the field's own ATIF examples the package and our reader
 * (protocol/atif.ts) agree on which are valid. Inspect AI: `inspect_ai.log.read_eval_log` reads
 * `gp runs export --format inspect` (`.eval` and `.json`) back with every sample's id, epoch,
 * score, messages, tool calls, metadata and error as we wrote them, and the accuracy we computed.
 * Exports broken on purpose are refused by both, so the checks can fail. Both packages are pinned
 * in python/requirements.txt; the rollout test (rollout.test.ts) checks the ATIF exports of freshly
 * run episodes the same way. Needs the trainer environment (bash python/setup.sh).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';
import { buildEpisodeModel } from '../../server/src/episodes/index.js';
import { inspectEvalZip, inspectExport, inspectJson } from '../../server/src/formats/index.js';
import { inspectScorerName } from '../../server/src/protocol/inspectLog.js';
import { parseTrajectory } from '../../server/src/runs/index.js';
import { atifTrajectorySchema } from '../../server/src/protocol/atif.js';
import { fixturePath } from '../support/fixtures.js';
import { formatVerdicts } from '../support/formatConformance.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-conformance-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `gp trajectory export FILE --format atif` into the test's folder; the exported file's path. */
async function exportAtif(file: string): Promise<string> {
  const out = join(dir, `${basename(file, '.jsonl')}.atif.json`);
  const err: string[] = [];
  const code = await runCli(['trajectory', 'export', file, '--format', 'atif', '--out', out], { out: () => undefined, err: (l) => err.push(l) }, root);
  assert.equal(code, 0, err.join('\n'));
  return out;
}

const sampleTrajectories = (): string[] =>
  readdirSync(fixturePath('trajectories'))
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => join(fixturePath('trajectories'), n));

test("atif's validator accepts our export of every sample trajectory, and of one cut short", async () => {
  const files = sampleTrajectories();
  assert.ok(files.length >= 2, 'the sample trajectories are there');
  // A trajectory whose process died: no end line, which the export says in its notes.
  const first = files[0] ?? '';
  const cut = join(dir, `cut-short-${basename(first)}`);
  const lines = readFileSync(first, 'utf8').trimEnd().split('\n');
  writeFileSync(cut, `${lines.slice(0, -1).join('\n')}\n`);
  const exports = await Promise.all([...files, cut].map(exportAtif));
  const verdicts = formatVerdicts('atif', exports, root);
  for (const v of verdicts) assert.equal(v.ok, true, `${v.file}: ${v.error ?? ''}`);
  // Each export has the steps our schema reads in it, step for step.
  for (const [i, v] of verdicts.entries()) {
    const ours = atifTrajectorySchema.parse(JSON.parse(readFileSync(exports[i] ?? '', 'utf8')));
    assert.equal(v.steps, ours.steps.length, v.file);
  }
});

test("on the field's ATIF examples, atif's validator and our reader agree on which are valid", () => {
  const examples = readdirSync(fixturePath('formats/atif')).map((n) => join(fixturePath('formats/atif'), n));
  const verdicts = formatVerdicts('atif', examples, root);
  for (const v of verdicts) {
    const ours = atifTrajectorySchema.safeParse(JSON.parse(readFileSync(v.file, 'utf8'))).success;
    assert.equal(ours, v.ok, `${basename(v.file)}: atif says ${v.ok ? 'valid' : `invalid (${v.error ?? ''})`}, ours ${ours ? 'valid' : 'invalid'}`);
  }
  assert.deepEqual(
    verdicts.map((v) => v.ok),
    examples.map((f) => !f.includes('.invalid-')),
    'the examples named invalid are the ones refused',
  );
});

test('exports broken on purpose are refused by atif, so the check can fail', async () => {
  const good = JSON.parse(readFileSync(await exportAtif(sampleTrajectories()[0] ?? ''), 'utf8')) as {
    steps: { step_id: number; tool_calls?: { arguments: unknown }[] }[];
    [key: string]: unknown;
  };
  const broken: Record<string, (t: typeof good) => void> = {
    'step ids out of order': (t) => {
      const second = t.steps[1];
      if (second !== undefined) second.step_id = 7;
    },
    'tool call arguments as a list': (t) => {
      const call = t.steps.find((s) => (s.tool_calls ?? []).length > 0)?.tool_calls?.[0];
      assert.ok(call !== undefined, 'the sample has a tool call');
      call.arguments = ['fast'];
    },
    'a field the format does not have': (t) => {
      t['graph_planner'] = { step: 1 };
    },
    'no schema version': (t) => {
      delete t['schema_version'];
    },
  };
  const files = Object.entries(broken).map(([name, breakIt], i) => {
    const copy = structuredClone(good);
    breakIt(copy);
    const file = join(dir, `broken-${i}.atif.json`);
    writeFileSync(file, JSON.stringify(copy));
    return { name, file };
  });
  const verdicts = formatVerdicts(
    'atif',
    files.map((f) => f.file),
    root,
  );
  for (const [i, v] of verdicts.entries()) assert.equal(v.ok, false, `atif accepted an export with ${files[i]?.name ?? ''}`);
});

/** The sample trajectories as a run's episodes (a second attempt of the first, cut short), exported to Inspect. */
function inspectLogOfSamples() {
  const texts = sampleTrajectories().map((f) => readFileSync(f, 'utf8'));
  const first = texts[0] ?? '';
  const cutShort = `${first.trimEnd().split('\n').slice(0, -1).join('\n')}\n`;
  const models = [...texts, cutShort].map((t) => buildEpisodeModel(parseTrajectory(t)));
  return inspectExport(models, { runName: 'conformance', version: '0.1.0' });
}

test("Inspect's read_eval_log reads our .eval and .json exports back with every sample as we wrote it", () => {
  const log = inspectLogOfSamples();
  const evalFile = join(dir, 'conformance.eval');
  const jsonFile = join(dir, 'conformance.json');
  writeFileSync(evalFile, inspectEvalZip(log));
  writeFileSync(jsonFile, inspectJson(log));
  const verdicts = formatVerdicts('inspect', [evalFile, jsonFile], root);
  for (const v of verdicts) {
    assert.equal(v.ok, true, `${v.file}: ${v.error ?? ''}`);
    assert.equal(v.status, 'success');
    assert.equal(v.task, 'conformance');
    assert.equal(v.accuracy, log.header.results?.scores[0]?.metrics['accuracy']?.value);
    const read = new Map((v.samples ?? []).map((s) => [`${s.id}#${s.epoch}`, s]));
    assert.equal(read.size, log.samples.length, `${v.file}: every sample read`);
    for (const s of log.samples) {
      const got = read.get(`${s.id}#${s.epoch}`);
      assert.ok(got !== undefined, `${v.file}: sample ${s.id} epoch ${s.epoch}`);
      assert.deepEqual(got.scores, Object.fromEntries(Object.entries(s.scores ?? {}).map(([k, x]) => [k, x.value])));
      assert.deepEqual(
        got.roles,
        (s.messages ?? []).map((m) => m.role),
      );
      assert.equal(
        got.tool_calls,
        (s.messages ?? []).reduce((n, m) => n + (m.role === 'assistant' ? (m.tool_calls?.length ?? 0) : 0), 0),
      );
      assert.deepEqual(got.metadata, ['graph_planner']);
      assert.equal(got.error, s.error?.message ?? null);
    }
  }
  // The cut-short attempt is the only one without a score, and says why.
  const unscored = (verdicts[0]?.samples ?? []).filter((s) => Object.keys(s.scores).length === 0);
  assert.deepEqual(
    unscored.map((s) => [s.epoch, s.error?.startsWith('no outcome:')]),
    [[2, true]],
  );
  assert.ok((verdicts[0]?.samples ?? []).some((s) => s.scores[inspectScorerName] === 'C'));
});

test('read_eval_log reads apart the samples of task ids that differ only where a path would (a/b, a_b)', () => {
  const read = parseTrajectory(readFileSync(sampleTrajectories()[0] ?? '', 'utf8'));
  const models = ['a/b', 'a_b'].map((task) =>
    buildEpisodeModel({
      ...read,
      start: read.start === undefined ? undefined : { ...read.start, task_id: task },
      end: read.end === undefined ? undefined : { ...read.end, task_id: task },
    }),
  );
  const file = join(dir, 'ids.eval');
  writeFileSync(file, inspectEvalZip(inspectExport(models, { runName: 'ids', version: '0.1.0' })));
  const [verdict] = formatVerdicts('inspect', [file], root);
  assert.equal(verdict?.ok, true, verdict?.error);
  assert.deepEqual((verdict?.samples ?? []).map((s) => s.id).sort(), ['a/b', 'a_b']);
});

test('Inspect exports broken on purpose are refused by read_eval_log, so the check can fail', () => {
  const log = inspectLogOfSamples();
  const broken: Record<string, (doc: Record<string, unknown>) => void> = {
    'an epoch that is not a number': (doc) => {
      const samples = doc['samples'] as Record<string, unknown>[];
      if (samples[0] !== undefined) samples[0]['epoch'] = 'one';
    },
    'a message role Inspect does not have': (doc) => {
      const messages = (doc['samples'] as { messages: Record<string, unknown>[] }[])[0]?.messages;
      if (messages?.[1] !== undefined) messages[1]['role'] = 'robot';
    },
    'no model in the log’s eval': (doc) => {
      delete (doc['eval'] as Record<string, unknown>)['model'];
    },
  };
  const files = Object.entries(broken).map(([name, breakIt], i) => {
    const doc = JSON.parse(inspectJson(log)) as Record<string, unknown>;
    breakIt(doc);
    const file = join(dir, `broken-${i}.json`);
    writeFileSync(file, JSON.stringify(doc));
    return { name, file };
  });
  const verdicts = formatVerdicts(
    'inspect',
    files.map((f) => f.file),
    root,
  );
  for (const [i, v] of verdicts.entries()) assert.equal(v.ok, false, `read_eval_log accepted an export with ${files[i]?.name ?? ''}`);
});
