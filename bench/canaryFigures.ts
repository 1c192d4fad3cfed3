/**
 * The learning canary's figures (`--only canary`, never part of a plain `npm run bench`: it takes
 * about two hours on two cores). One `gp train --canary` with its defaults, then the same
 * canary with each pipeline broken on purpose (`GP_CANARY_BREAK`, docs/training.md#the-learning-canary),
 * one seed each, then llama.cpp on the same model and prompts.
 *
 * - `canary-wall-time`: the default canary's wall time against the 45-minute budget issue 39 sets
 *   on two cores. Goal: at most 1.
 * - `canary-effect-over-spread`: the held-out effect (trained over control) against the run-to-run
 *   spread. Goal: learned, at least 3.
 * - `canary-broken-<switch>`: each broken pipeline's effect over its spread. Goal: below 3, the
 *   verdict "did not learn".
 * - `canary-generation-tokens-per-s`: tokens the canary's batched sampling makes per second in its
 *   training loop, against llama.cpp (llama-cpp-python, the same GGUF file, two threads) sampling
 *   replies to the same prompts with the same budget one at a time. Reported as a ratio.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { embeddedModelPaths } from '../server/src/agents/index.js';
import { runCli } from '../server/src/cli/main.js';
import { canaryDefaults } from '../server/src/trainer/index.js';
import type { BenchResult } from './result.js';
import { sig3 } from './sandboxSupport.js';
import type { FigureOutcome } from './yamlFigures.js';

const breaks = ['negate-advantages', 'zero-mask', 'withhold-reward'] as const;
const budgetS = 45 * 60;
/** A broken pipeline's canary: one seed of the default's steps, so it has had every chance a working one has. */
const brokenSteps = canaryDefaults.steps;

interface VerdictFile {
  readonly learned: boolean;
  readonly line: string;
  readonly effect: number;
  readonly spread: number;
  readonly before: number;
  readonly wall_s: number;
  readonly seeds: readonly {
    readonly trained: number;
    readonly control: number;
    readonly trained_curve: readonly number[];
    readonly control_curve: readonly number[];
  }[];
  readonly generation: { readonly tokens: number; readonly seconds: number; readonly tokens_per_s: number };
}

async function canary(
  runDir: string,
  args: readonly string[],
  broken: string | undefined,
  log: (line: string) => void,
): Promise<{ verdict: VerdictFile; wallS: number }> {
  const lines: string[] = [];
  const previous = process.env['GP_CANARY_BREAK'];
  if (broken === undefined) delete process.env['GP_CANARY_BREAK'];
  else process.env['GP_CANARY_BREAK'] = broken;
  const started = Date.now();
  try {
    const code = await runCli(['train', '--canary', ...args, '--run-dir', runDir], { out: (l) => lines.push(l), err: (l) => lines.push(l) }, resolve('.'));
    if (code !== 0 && code !== 4) throw new Error(`gp train --canary exited ${code}: ${lines.slice(-5).join(' ')}`);
  } finally {
    if (previous === undefined) delete process.env['GP_CANARY_BREAK'];
    else process.env['GP_CANARY_BREAK'] = previous;
  }
  const verdict = JSON.parse(readFileSync(join(runDir, 'canary', 'verdict.json'), 'utf8')) as VerdictFile;
  const wallS = (Date.now() - started) / 1000;
  log(`canary${broken === undefined ? '' : ` (${broken})`}: ${verdict.line} in ${wallS.toFixed(0)} s`);
  for (const [i, s] of verdict.seeds.entries())
    log(`  seed ${i + 1}: trained ${s.trained_curve.map((r) => r.toFixed(2)).join(' ')} | control ${s.control_curve.map((r) => r.toFixed(2)).join(' ')}`);
  return { verdict, wallS };
}

function anchorTokensPerS(specFile: string, replies: number): { tokens: number; seconds: number } {
  const paths = embeddedModelPaths();
  if (!existsSync(paths.python)) throw new Error('the model server is not installed (bash scripts/setup-model-server.sh)');
  const run = spawnSync(
    paths.python,
    [resolve('bench/canaryGenerationAnchor.py'), paths.model, specFile, String(replies), String(canaryDefaults.maxNewTokens)],
    { encoding: 'utf8', timeout: 900_000 },
  );
  if (run.status !== 0) throw new Error(`bench/canaryGenerationAnchor.py failed: ${run.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { tokens: number; seconds: number };
}

export async function benchCanary(log: (line: string) => void): Promise<FigureOutcome> {
  const root = mkdtempSync(join(tmpdir(), 'gp-bench-canary-'));
  const results: BenchResult[] = [];
  const notMeasured: { name: string; reason: string }[] = [];
  try {
    const runDir = join(root, 'canary');
    const { verdict, wallS } = await canary(runDir, [], undefined, log);
    const details = { verdict: verdict.line, seeds: verdict.seeds.length, before: sig3(verdict.before) };
    results.push({
      name: 'canary-wall-time',
      what: `gp train --canary with its defaults (${canaryDefaults.seeds} seeds × ${canaryDefaults.steps} steps, a control each, held-out scored before and after) on this machine`,
      unit: 's',
      ours: sig3(wallS),
      anchor: budgetS,
      anchorName: 'the 45-minute budget on two cores (issue 39)',
      ratio: sig3(wallS / budgetS),
      goal: 'ratio <= 1',
      pass: wallS <= budgetS,
      details,
    });
    results.push({
      name: 'canary-effect-over-spread',
      what: 'held-out return of the trained run minus the control’s, over the run-to-run spread',
      unit: 'return',
      ours: sig3(verdict.effect),
      anchor: sig3(verdict.spread),
      anchorName: 'run-to-run spread (standard deviation over seeds, at least one run’s standard error)',
      ratio: sig3(verdict.effect / verdict.spread),
      goal: 'ratio >= 3 (learned)',
      pass: verdict.learned,
      details,
    });
    for (const broken of breaks) {
      try {
        const result = await canary(join(root, broken), ['--seeds', '1', '--steps', String(brokenSteps)], broken, log);
        results.push({
          name: `canary-broken-${broken}`,
          what: `the canary with GP_CANARY_BREAK=${broken} (1 seed × ${brokenSteps} steps): its effect over its spread`,
          unit: 'return',
          ours: sig3(result.verdict.effect),
          anchor: sig3(result.verdict.spread),
          anchorName: 'its run-to-run spread (one run’s standard error)',
          ratio: sig3(result.verdict.effect / result.verdict.spread),
          goal: 'ratio < 3 (did not learn)',
          pass: !result.verdict.learned,
          details: { verdict: result.verdict.line },
        });
      } catch (error) {
        notMeasured.push({ name: `canary-broken-${broken}`, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    try {
      const replies = 64;
      const anchor = anchorTokensPerS(join(runDir, 'canary', 'canary.json'), replies);
      const anchorRate = anchor.tokens / anchor.seconds;
      results.push({
        name: 'canary-generation-tokens-per-s',
        what: `tokens sampled per second in the canary's training loop (batched generate, ${canaryDefaults.rolloutN} replies per prompt, at most ${canaryDefaults.maxNewTokens} tokens, temperature 1) vs llama.cpp on the same GGUF model, ${replies} replies to the same prompts one at a time, two threads`,
        unit: 'tokens/s',
        ours: sig3(verdict.generation.tokens_per_s),
        anchor: sig3(anchorRate),
        anchorName: 'llama.cpp (llama-cpp-python Llama, same model file)',
        ratio: sig3(verdict.generation.tokens_per_s / anchorRate),
        goal: 'ratio >= 1',
        pass: verdict.generation.tokens_per_s >= anchorRate,
        details: {
          anchorTokens: anchor.tokens,
          anchorSeconds: sig3(anchor.seconds),
          oursTokens: verdict.generation.tokens,
          oursSeconds: sig3(verdict.generation.seconds),
        },
      });
    } catch (error) {
      notMeasured.push({ name: 'canary-generation-tokens-per-s', reason: error instanceof Error ? error.message : String(error) });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { results, notMeasured };
}
