/**
 * The on-policy smoke's figures (`--only smoke`): one `gp train --smoke --steps 2` with the model
 * policy (SmolLM2-135M-Instruct on CPU) on the sample task `sample-calc-add` in Docker, its step
 * time split into generation, environment and update from its own `smoke/checks.json`, each phase
 * with its tokens per second. Anchors, measured in the same run on the same model folder
 * (`smokeAnchor.py`, twice right after the smoke, whose first prompt and update shape they take):
 *
 * - `smoke-generation-tokens-per-s`: tokens sampled per second through Verl's agent loop, against
 *   the same model's bare `generate` on the smoke's first prompt with the smoke's budget and
 *   sampling settings. Goal: the agent loop keeps at least 70% of the bare rate (its later turns
 *   have longer prompts, so some loss is the conversation's, not the bridge's).
 * - `smoke-update-tokens-per-s`: tokens through the smoke's actor update per second (Verl's loss,
 *   entropy, clipping, AdamW), against a bare forward, backward and AdamW step on a batch of the
 *   same shape. Goal: at least 70%.
 * - `smoke-environment-share`: the seconds the episodes spent in the environment service per step
 *   (create, steps, close: sandbox, graph, tests) against the step's wall time. Goal: at most 10%,
 *   so a smoke step waits on the model, not on the environment.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../server/src/cli/main.js';
import { modelSmoke, smokeSettings } from '../server/src/trainer/index.js';
import { trainerPython } from '../server/src/cluster/index.js';
import { errorMessage } from '../server/src/util/errors.js';
import type { BenchResult } from './result.js';
import { sig3 } from './sandboxSupport.js';
import type { FigureOutcome } from './yamlFigures.js';

const names = ['smoke-generation-tokens-per-s', 'smoke-update-tokens-per-s', 'smoke-environment-share'] as const;

interface Phase {
  readonly seconds: number;
  readonly tokens: number;
}

interface SmokeStep {
  readonly step: number;
  readonly samples: readonly { readonly episode_id: string }[];
  readonly on_policy: {
    readonly first_prompt_ids: readonly number[];
    readonly log_prob_gap_sampling_weights: { readonly max_abs: number };
    readonly log_prob_gap_initial_weights?: { readonly max_abs: number };
    readonly l2_delta: number;
  };
  readonly timing: { readonly step_seconds: number; readonly generation: Phase; readonly environment: Phase; readonly update: Phase };
}

interface Anchor {
  readonly generation: Phase;
  readonly update: Phase;
}

const sum = (phases: readonly Phase[]): Phase => ({ seconds: phases.reduce((s, p) => s + p.seconds, 0), tokens: phases.reduce((s, p) => s + p.tokens, 0) });
const rate = (p: Phase): number => (p.seconds > 0 ? p.tokens / p.seconds : 0);

function runAnchor(python: string, modelDir: string, specFile: string): Anchor {
  const run = spawnSync(python, [resolve('bench/smokeAnchor.py'), modelDir, specFile], { encoding: 'utf8', timeout: 900_000 });
  if (run.status !== 0) throw new Error(`bench/smokeAnchor.py failed: ${run.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as Anchor;
}

export async function benchSmoke(log: (line: string) => void): Promise<FigureOutcome> {
  const python = trainerPython(undefined);
  const smoke = smokeSettings('model', 2);
  if (!existsSync(smoke.languageModel))
    return { results: [], notMeasured: names.map((name) => ({ name, reason: `${smoke.languageModel} is missing (bash scripts/setup-language-model.sh)` })) };
  const root = mkdtempSync(join(tmpdir(), 'gp-bench-smoke-'));
  try {
    const runDir = join(root, 'smoke');
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const started = Date.now();
    const code = await runCli(
      [
        'train',
        'configs/experiments/planner_debug.yaml',
        '--smoke',
        '--steps',
        '2',
        '--tasks',
        'datasets/sample/tasks.jsonl',
        '--task',
        'sample-calc-add',
        '--run-dir',
        runDir,
        '--stall-timeout',
        '900',
      ],
      io,
      resolve('.'),
    );
    if (code !== 0) throw new Error(`gp train --smoke exited ${code}: ${lines.slice(-5).join(' ')}`);
    log(`smoke: 2 on-policy steps in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const steps = (JSON.parse(readFileSync(join(runDir, 'smoke', 'checks.json'), 'utf8')) as { steps: SmokeStep[] }).steps;
    const promptIds = steps[0]?.on_policy.first_prompt_ids ?? [];
    if (promptIds.length === 0) throw new Error('the smoke recorded no prompt');
    const specFile = join(root, 'anchor.json');
    const update = sum(steps.map((s) => s.timing.update));
    writeFileSync(
      specFile,
      JSON.stringify({
        prompt_ids: promptIds,
        max_new_tokens: modelSmoke.maxNewTokens,
        temperature: 0.2,
        top_p: 0.95,
        replies: 4,
        update_batch: steps[0]?.samples.length ?? 2,
        update_length: Math.round(update.tokens / steps.length / (steps[0]?.samples.length ?? 2)),
        updates: 2,
      }),
    );
    const anchors = [runAnchor(python, smoke.modelDir, specFile), runAnchor(python, smoke.modelDir, specFile)];
    return { results: results(steps, anchors), notMeasured: [] };
  } catch (error) {
    return { results: [], notMeasured: names.map((name) => ({ name, reason: errorMessage(error) })) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function results(steps: readonly SmokeStep[], anchors: readonly Anchor[]): BenchResult[] {
  const generation = sum(steps.map((s) => s.timing.generation));
  const environment = sum(steps.map((s) => s.timing.environment));
  const update = sum(steps.map((s) => s.timing.update));
  const stepSeconds = steps.reduce((s, x) => s + x.timing.step_seconds, 0);
  const anchorGeneration = sum(anchors.map((a) => a.generation));
  const anchorUpdate = sum(anchors.map((a) => a.update));
  const n = steps.length;
  const perStep = {
    generationSecondsPerStep: sig3(generation.seconds / n),
    generationTokensPerS: sig3(rate(generation)),
    environmentSecondsPerStep: sig3(environment.seconds / n),
    environmentTokensPerS: sig3(rate(environment)),
    updateSecondsPerStep: sig3(update.seconds / n),
    updateTokensPerS: sig3(rate(update)),
    stepSeconds: sig3(stepSeconds / n),
    steps: n,
    logProbGapMax: Math.max(...steps.map((s) => s.on_policy.log_prob_gap_sampling_weights.max_abs)),
    logProbGapInitialWeightsStep2: steps[1]?.on_policy.log_prob_gap_initial_weights?.max_abs ?? 0,
    l2DeltaStep1: sig3(steps[0]?.on_policy.l2_delta ?? 0),
  };
  const envShare = environment.seconds / stepSeconds;
  return [
    {
      name: names[0],
      what: `tokens sampled per second by SmolLM2-135M-Instruct through Verl's agent loop in ${n} on-policy smoke steps (${generation.tokens} tokens, replies of at most ${modelSmoke.maxNewTokens}), vs the same model's bare generate on the smoke's first prompt, same budget and sampling, ${anchorGeneration.tokens} tokens`,
      unit: 'tokens/s',
      ours: sig3(rate(generation)),
      anchor: sig3(rate(anchorGeneration)),
      anchorName: 'bare model.generate',
      ratio: rate(generation) / rate(anchorGeneration),
      goal: 'ratio >= 0.7',
      pass: rate(generation) / rate(anchorGeneration) >= 0.7,
      details: perStep,
    },
    {
      name: names[1],
      what: `tokens per second through the smoke's actor update (Verl's policy loss and entropy, clipping, AdamW) in ${n} steps (${update.tokens} tokens), vs a bare forward, backward and AdamW step on batches of the same shape`,
      unit: 'tokens/s',
      ours: sig3(rate(update)),
      anchor: sig3(rate(anchorUpdate)),
      anchorName: 'bare forward+backward+AdamW',
      ratio: rate(update) / rate(anchorUpdate),
      goal: 'ratio >= 0.7',
      pass: rate(update) / rate(anchorUpdate) >= 0.7,
      details: { updateSecondsPerStep: perStep.updateSecondsPerStep, anchorSeconds: sig3(anchorUpdate.seconds), anchorTokens: anchorUpdate.tokens },
    },
    {
      name: names[2],
      what: `seconds the smoke's episodes spent in the environment service (create, steps, close) per step, vs the step's wall time; ${sig3(rate(environment))} environment tokens/s`,
      unit: 's/step',
      ours: sig3(environment.seconds / n),
      anchor: sig3(stepSeconds / n),
      anchorName: 'smoke step wall time',
      ratio: envShare,
      goal: 'ratio <= 0.1',
      pass: envShare <= 0.1,
      details: { environmentTokensPerS: perStep.environmentTokensPerS, environmentTokens: environment.tokens },
    },
  ];
}

if (require.main === module) {
  benchSmoke((line) => console.log(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
