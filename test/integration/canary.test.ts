/**
 * The learning canary (`gp train --canary`, server/src/trainer/canary.ts) at CI size: one step of
 * one seed with the real SmolLM2-135M-Instruct through the environment service and Verl's pieces.
 * One step cannot show learning, so this checks the machinery the verdict rests on: the held-out
 * scores, both runs' lines in metrics.jsonl (the metrics page's curves), episodes graded in
 * sandboxes for both runs, the verdict file and its exit code, and a debug switch taking effect.
 * The verdict of a real run is measured by `npm run bench -- --only canary` (docs/benchmarks.md).
 * Needs the trainer environment (python/setup.sh) and the model (scripts/setup-language-model.sh).
 */
import assert from 'node:assert/strict';
import { readdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../server/src/cli/main.js';
import { metricsLineSchema } from '../../server/src/protocol/metrics.js';
import { readEvents } from '../../server/src/runs/index.js';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'gp-canary-run-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface VerdictFile {
  learned: boolean;
  line: string;
  effect: number;
  spread: number;
  before: number;
  held_out_samples: number;
  broken: string | null;
  seeds: { trained: number; control: number; trained_curve: number[]; control_curve: number[] }[];
  generation: { tokens: number; seconds: number; tokens_per_s: number };
}

test('gp train --canary runs a trained run and its control through the environment and writes a verdict with its numbers', { timeout: 900_000 }, async () => {
  const runDir = join(dir, 'canary');
  const out: string[] = [];
  const err: string[] = [];
  const previous = process.env['GP_CANARY_BREAK'];
  // A debug switch, read by the driver: the trained run's advantages are negated.
  process.env['GP_CANARY_BREAK'] = 'negate-advantages';
  let code: number;
  try {
    code = await runCli(
      ['train', '--canary', '--steps', '1', '--seeds', '1', '--run-dir', runDir, '--stall-timeout', '600'],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      root,
    );
  } finally {
    if (previous === undefined) delete process.env['GP_CANARY_BREAK'];
    else process.env['GP_CANARY_BREAK'] = previous;
  }
  const log = readFileSync(join(runDir, 'run.log'), 'utf8');
  assert.ok(code === 0 || code === 4, `exit ${code}: ${err.slice(-20).join('\n')}\n${log.slice(-2000)}`);
  const verdict = JSON.parse(readFileSync(join(runDir, 'canary', 'verdict.json'), 'utf8')) as VerdictFile;
  assert.equal(code, verdict.learned ? 0 : 4, 'the exit code follows the verdict');
  assert.equal(verdict.broken, 'negate-advantages');
  assert.match(log, /the trained run is broken on purpose \(GP_CANARY_BREAK=negate-advantages\)/);
  assert.match(
    out.join('\n'),
    /^(learned|did not learn): held-out return [+-]\d\.\d{3} over the control \(run-to-run spread ±\d\.\d{3} over 1 seed; before training \d\.\d{3}\)/m,
  );
  assert.equal(verdict.held_out_samples, 48);
  assert.equal(verdict.seeds.length, 1);
  for (const score of [verdict.before, verdict.seeds[0]?.trained, verdict.seeds[0]?.control])
    assert.ok(score !== undefined && score >= 0 && score <= 1, String(score));
  assert.ok(verdict.spread > 0, 'one seed falls back on the standard error of the held-out scores');
  assert.ok(verdict.generation.tokens > 0 && verdict.generation.tokens_per_s > 0);

  // Both runs' figures are in the step's line, for the metrics page's two curves.
  const lines = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => metricsLineSchema.parse(JSON.parse(l)));
  const step = lines.find((l) => l.source === 'verl');
  assert.ok(step?.source === 'verl');
  for (const key of ['canary/trained/train_return', 'canary/control/train_return', 'canary/trained/held_out', 'canary/control/held_out', 'actor/grad_norm'])
    assert.equal(typeof step.data[key], 'number', key);

  // Every reward came from an episode of the environment service: the held-out scorings (3 × 48)
  // and one step of each run (2 × 4 tasks × 8), graded by the task's tests in a sandbox.
  const ends = (await readEvents(join(runDir, 'events.jsonl'))).records.flatMap((e) => (e.kind === 'episode-end' ? [e] : []));
  assert.equal(ends.length, 3 * 48 + 2 * 32);
  assert.ok(
    ends.every((e) => e.termination_reason === 'submitted'),
    'each episode ended with its submit',
  );
  assert.equal(readdirSync(join(runDir, 'trajectories')).length, ends.length);
  const groups = new Set(ends.flatMap((e) => (e.training === undefined ? [] : [e.training.group_id])));
  assert.ok([...groups].some((g) => g.startsWith('trained-')) && [...groups].some((g) => g.startsWith('control-')), 'both runs’ groups are recorded');
});
