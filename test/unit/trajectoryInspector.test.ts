/**
 * The episode model and the terminal inspector on real trajectories (test/fixtures/trajectories):
 * steps with their kinds, rewards and returns; a cut-short and a damaged trajectory shown as such,
 * never fatal; `gp trajectory show` and `export --format atif`, whose output the ATIF schema checks
 * with the format's own rules.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { trajectoryExport, trajectoryShow } from '../../server/src/cli/trajectoryCommands.js';
import { atifTrajectorySchema } from '../../server/src/protocol/atif.js';
import { alignEpisodes, buildEpisodeModel, nextMatchStep, searchEpisode } from '../../server/src/episodes/index.js';
import { parseTrajectory } from '../../server/src/runs/index.js';
import { toAtif } from '../../server/src/formats/index.js';
import { fixturePath } from '../support/fixtures.js';

const resolved = fixturePath('trajectories/sample-calc-add.jsonl');
const unresolved = fixturePath('trajectories/sample-version.jsonl');

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

test('a resolved episode: step kinds, rewards, running return and outcome', () => {
  const model = buildEpisodeModel(parseTrajectory(readFileSync(resolved, 'utf8')));
  assert.deepEqual(
    model.steps.map((s) => s.kind),
    ['expand', 'read', 'repair', 'submit'],
  );
  assert.equal(model.cutShort, false);
  assert.equal(model.end?.resolved, true);
  assert.equal(model.steps.at(-1)?.cumulative, model.end?.total_reward);
  // The action listed three mutations and the first passed: an older trajectory records only that one, and the summary still counts the action's three.
  assert.match(model.steps[2]?.summary ?? '', /^repair 3 candidates \(action\), kept #1$/);
  assert.match(model.steps[3]?.summary ?? '', /^submit: resolved \(2 passed, 0 failed\)$/);
  assert.ok(model.steps.every((s) => s.protocolError === null && s.error === null && !s.timedOut));
});

test('a cut-short trajectory with a damaged line is shown with what is wrong, not refused', () => {
  const lines = readFileSync(resolved, 'utf8').trim().split('\n');
  const damaged = [lines[0], '{"type": "step", "step": "two"}', ...lines.slice(1, -1), lines.at(-1)?.slice(0, 40)].join('\n');
  const model = buildEpisodeModel(parseTrajectory(damaged));
  assert.equal(model.cutShort, true);
  assert.equal(model.torn, true);
  assert.equal(model.steps.length, 4);
  assert.equal(model.problems.length, 1);
  assert.match(model.problems[0] ?? '', /2/);
});

test('gp trajectory show prints the task, a block per step and the outcome; --step shows one step whole', async () => {
  const { io: a, out } = io();
  assert.equal(await trajectoryShow([resolved], a, process.cwd(), false), 0);
  const text = out.join('\n');
  assert.match(text, /^sample-calc-add$/m);
  assert.match(text, /^step 3 {2}repair 3 candidates/m);
  assert.match(text, /^resolved · submitted · reward 1\.00 · 4 steps · \d+\.\d s$/m);
  assert.ok(!text.includes('\u001b['), 'no colour when asked for none');
  const { io: b, out: one } = io();
  assert.equal(await trajectoryShow([resolved, '--step', '2'], b, process.cwd(), true), 0);
  assert.ok(!one.some((l) => l.includes('step 1  ')), 'only the chosen step');
  assert.ok(
    one.some((l) => l.includes('\u001b[1mstep 2\u001b[0m')),
    'colours on a terminal',
  );
  const { io: c, err } = io();
  assert.equal(await trajectoryShow([resolved, '--step', '9'], c, process.cwd(), false), 1);
  assert.match(err.join('\n'), /has no step 9 \(it has 4\)/);
  const cut = join(mkdtempSync(join(tmpdir(), 'gp-traj-')), 'cut.jsonl');
  writeFileSync(cut, readFileSync(unresolved, 'utf8').trim().split('\n').slice(0, -1).join('\n'));
  const { io: d, out: cutOut } = io();
  assert.equal(await trajectoryShow([cut], d, process.cwd(), false), 0);
  assert.match(cutOut.at(-1) ?? '', /^cut short after \d+ steps \(no end line/);
});

test('gp trajectory show names the Ray node and sandbox host of an episode a host ran, and no node otherwise', async () => {
  const lines = readFileSync(resolved, 'utf8').trim().split('\n');
  const start = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
  const file = join(mkdtempSync(join(tmpdir(), 'gp-traj-')), 'on-host.jsonl');
  writeFileSync(file, [JSON.stringify({ ...start, sandbox_host: { id: 'host-2', node: 'worker-2' } }), ...lines.slice(1)].join('\n'));
  const { io: a, out } = io();
  assert.equal(await trajectoryShow([file], a, process.cwd(), false), 0);
  assert.match(out[1] ?? '', /^agent rule · backend \w+ · node worker-2 \(host host-2\) · at most \d+ steps/);
  const { io: b, out: local } = io();
  assert.equal(await trajectoryShow([resolved], b, process.cwd(), false), 0);
  assert.doesNotMatch(local[1] ?? '', /node/);
});

test("the ATIF export passes the format's rules and keeps reward, return and outcome", async () => {
  const model = buildEpisodeModel(parseTrajectory(readFileSync(resolved, 'utf8')));
  const atif = toAtif(model, { version: '0.1.0' });
  assert.equal(atif.schema_version, 'ATIF-v1.7');
  assert.deepEqual(
    atif.steps.map((s) => s.source),
    ['user', 'agent', 'agent', 'agent', 'agent'],
  );
  assert.deepEqual(
    atif.steps.map((s) => s.tool_calls?.[0]?.function_name),
    [undefined, 'explore', 'explore', 'repair', 'submit'],
  );
  assert.equal(atif.steps[4]?.extra?.['return'], 1);
  // The rule agent called no model: ATIF v1.7 says so with llm_call_count 0, and then no metrics or reasoning.
  assert.ok(atif.steps.slice(1).every((s) => s.llm_call_count === 0 && s.metrics === undefined && s.reasoning_content === undefined));
  assert.equal(atif.final_metrics?.extra?.['resolved'], true);
  const { io: e, out } = io();
  assert.equal(await trajectoryExport([unresolved, '--format', 'atif'], e, process.cwd(), '0.1.0'), 0);
  const exported = atifTrajectorySchema.parse(JSON.parse(out.join('\n')));
  assert.equal(exported.final_metrics?.extra?.['resolved'], false);
  // The schema's own rules catch what the format forbids.
  const broken = { ...atif, steps: [{ ...atif.steps[1], step_id: 1, observation: { results: [{ source_call_id: 'nope', content: '' }] } }] };
  const check = atifTrajectorySchema.safeParse(broken);
  assert.equal(check.success, false);
  assert.match(JSON.stringify(check.error?.issues), /names no tool call of this step/);
  const { io: f, err } = io();
  assert.equal(await trajectoryExport([unresolved, '--format', 'csv'], f, process.cwd(), '0.1.0'), 2);
  assert.match(err.join('\n'), /--format csv is not known; the one format is atif/);
});

test('search finds every occurrence in replies, actions and observations, and steps to the next match with wrap-around', () => {
  const model = buildEpisodeModel(parseTrajectory(readFileSync(resolved, 'utf8')));
  const hits = searchEpisode(model, 'TEST_ADDITION');
  assert.ok(hits.length > 0);
  assert.ok(hits.every((h) => h.preview.toLowerCase().includes('test_addition')));
  assert.ok(hits.some((h) => h.field === 'observation'));
  assert.deepEqual(searchEpisode(model, 'TEST_ADDITION', { caseSensitive: true }), []);
  assert.equal(searchEpisode(model, 'a', { limit: 5 }).length, 5);
  const steps = [...new Set(hits.map((h) => h.step))];
  const first = steps[0] ?? 0;
  assert.equal(nextMatchStep(hits, 0, 1), first);
  assert.equal(nextMatchStep(hits, steps.at(-1) ?? 0, 1), first, 'wraps to the first');
  assert.equal(nextMatchStep(hits, first, -1), steps.at(-1), 'wraps back to the last');
  assert.equal(nextMatchStep([], 1, 1), undefined);
});

test('two episodes align on the moves they share; differing and missing steps stand out', () => {
  const a = buildEpisodeModel(parseTrajectory(readFileSync(resolved, 'utf8')));
  assert.ok(
    alignEpisodes(a, a).every((r) => r.same && r.left === r.right),
    'an episode aligns with itself step for step',
  );
  const b = buildEpisodeModel(parseTrajectory(readFileSync(unresolved, 'utf8')));
  const rows = alignEpisodes(a, b);
  assert.equal(rows.filter((r) => r.left !== undefined).length, a.steps.length, 'every left step appears once');
  assert.equal(rows.filter((r) => r.right !== undefined).length, b.steps.length, 'every right step appears once');
  assert.ok(
    rows.some((r) => !r.same),
    'two different tasks differ somewhere',
  );
  // One step dropped from a copy: the rest still align and the gap is on that row.
  const lines = readFileSync(resolved, 'utf8').trim().split('\n');
  const shorter = buildEpisodeModel(parseTrajectory([lines[0], lines[1], ...lines.slice(3)].join('\n')));
  const gapRows = alignEpisodes(a, shorter);
  assert.deepEqual(
    gapRows.map((r) => [r.left?.step ?? null, r.right?.step ?? null, r.same]),
    [
      [1, 1, true],
      [2, null, false],
      [3, 3, true],
      [4, 4, true],
    ],
  );
});
