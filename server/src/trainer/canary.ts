/**
 * `gp train --canary`: does this pipeline learn? SmolLM2-135M-Instruct is trained with GRPO on a
 * family of tasks whose fix is one token (a Python function with the wrong arithmetic operator),
 * through our environment service (real episodes, sandboxes and graded tests) and Verl's pieces
 * (python/graph_planner_verl/canary/run.py), beside a control run from the same seed and data
 * whose update is switched off; the same held-out tasks are scored before and after, and the
 * driver prints a verdict with the run-to-run spread. docs/training.md#the-learning-canary.
 *
 * This module writes the task family (one small repository per task, its tests, and the prompt
 * the model is asked), and holds the canary's settings and the driver's arguments.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExperimentConfig } from '../config/index.js';
import type { VerlOverride } from './verlOverrides.js';
import { languageModelFile, smokeSettings } from './smoke.js';
import { seededRandom } from '../util/seededRandom.js';

/** The operators of the family, each with what the function should compute. */
const operators = [
  { op: '+', verb: 'add', should: (a: string, b: string) => `the sum of ${a} and ${b}`, at: (x: number, y: number) => x + y },
  { op: '-', verb: 'subtract', should: (a: string, b: string) => `${a} minus ${b}`, at: (x: number, y: number) => x - y },
  { op: '*', verb: 'multiply', should: (a: string, b: string) => `the product of ${a} and ${b}`, at: (x: number, y: number) => x * y },
  { op: '//', verb: 'divide', should: (a: string, b: string) => `${a} divided by ${b}, rounded down`, at: (x: number, y: number) => Math.floor(x / y) },
  { op: '%', verb: 'remainder', should: (a: string, b: string) => `the remainder of ${a} divided by ${b}`, at: (x: number, y: number) => x % y },
  { op: '**', verb: 'power', should: (a: string, b: string) => `${a} raised to the power ${b}`, at: (x: number, y: number) => x ** y },
] as const;

/** Argument names: the training tasks use the first twelve, the held-out tasks the rest, so a held-out function is never one trained on. */
const trainNames = ['price', 'count', 'width', 'height', 'total', 'speed', 'weight', 'score', 'days', 'items', 'rate', 'size'];
const heldOutNames = ['depth', 'volume', 'distance', 'minutes', 'pages', 'seats', 'apples', 'budget'];

/** The values the fixing test calls the function with; every operator gives a different result on them. */
const probe = [7, 3] as const;

/** What the canary runs by default: about half an hour on two CPU cores (docs/benchmarks.md#canary). */
export const canaryDefaults = {
  steps: 20,
  seeds: 2,
  trainTasks: 48,
  heldOutTasks: 24,
  /** Samples of each held-out task per scoring. */
  heldOutSamples: 2,
  /** Tasks per step and samples per task: one GRPO group of eight per task. */
  trainBatchSize: 4,
  rolloutN: 8,
  /** AdamW's learning rate: at 2e-5 two seeds rose at different steps and 20 steps caught them mid-rise (docs/benchmarks.md, "The learning canary"). */
  lr: 5e-5,
  /** The canary's reply is an operator; a longer one is cut here. */
  maxNewTokens: 12,
} as const;

/** One task's prompt and where its one token goes, for the driver (`canary.json`). */
export interface CanaryTaskSpec {
  readonly prompt: string;
  readonly path: string;
  readonly line: number;
  /** The line is `${before}${operator}${after}`. */
  readonly before: string;
  readonly after: string;
}

export interface CanaryFamily {
  readonly trainFile: string;
  readonly heldOutFile: string;
  readonly specFile: string;
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

interface Drawn {
  readonly id: string;
  readonly fix: (typeof operators)[number];
  readonly wrong: (typeof operators)[number];
  readonly a: string;
  readonly b: string;
}

function draw(next: () => number, names: readonly string[], prefix: string, count: number): Drawn[] {
  return Array.from({ length: count }, (_, i) => {
    const fix = pick(next, operators);
    const wrong = pick(
      next,
      operators.filter((o) => o.op !== fix.op),
    );
    const a = pick(next, names);
    const b = pick(
      next,
      names.filter((n) => n !== a),
    );
    return { id: `${prefix}-${String(i + 1).padStart(3, '0')}`, fix, wrong, a, b };
  });
}

/**
 * Writes the family into `dir`: `repos/<task>/` (the function and its tests), `train.jsonl` and
 * `held_out.jsonl` in our task format, and `canary.json`, the prompt and the token's place per task.
 */
export async function writeCanaryFamily(dir: string, seed = 1): Promise<CanaryFamily> {
  const next = seededRandom(seed);
  const train = draw(next, trainNames, 'canary-train', canaryDefaults.trainTasks);
  const heldOut = draw(next, heldOutNames, 'canary-held-out', canaryDefaults.heldOutTasks);
  const specs: Record<string, CanaryTaskSpec> = {};
  const lines = async (drawn: readonly Drawn[], split: string): Promise<string> => {
    const rows: string[] = [];
    for (const t of drawn) {
      const name = `${t.fix.verb}_${t.a}_${t.b}`;
      const repo = join(dir, 'repos', t.id);
      await mkdir(join(repo, 'tests'), { recursive: true });
      const before = `    return ${t.a} `;
      const after = ` ${t.b}`;
      await writeFile(join(repo, 'ops.py'), `def ${name}(${t.a}, ${t.b}):\n${before}${t.wrong.op}${after}\n`);
      await writeFile(
        join(repo, 'tests', 'test_ops.py'),
        [
          'from ops import ' + name,
          '',
          '',
          'def test_fixed():',
          `    assert ${name}(${probe[0]}, ${probe[1]}) == ${t.fix.at(...probe)}`,
          '',
          '',
          'def test_returns_int():',
          `    assert isinstance(${name}(2, 1), int)`,
          '',
        ].join('\n'),
      );
      const bug = `${name} should return ${t.fix.should(t.a, t.b)}, but it uses \`${t.wrong.op}\`.`;
      specs[t.id] = {
        prompt: `def ${name}(${t.a}, ${t.b}):\n${before}${t.wrong.op}${after}\n\nBug: ${bug} Which Python operator fixes it? Reply with the operator only.`,
        path: 'ops.py',
        line: 2,
        before,
        after,
      };
      rows.push(
        JSON.stringify({
          task_id: t.id,
          sandbox: { backend: 'local', workdir: '/testbed', test_command: 'python -m pytest -rA tests/test_ops.py', local_repo: repo },
          max_steps: 2,
          issue: { id: t.id, title: `${name} computes the wrong value`, body: `${bug} Fix ops.py so that tests/test_ops.py passes.` },
          data_source: 'graph-planner/canary',
          split,
          repo: 'graph-planner/canary',
          language: 'python',
          FAIL_TO_PASS: ['tests/test_ops.py::test_fixed'],
          PASS_TO_PASS: ['tests/test_ops.py::test_returns_int'],
        }),
      );
    }
    return `${rows.join('\n')}\n`;
  };
  const family = { trainFile: join(dir, 'train.jsonl'), heldOutFile: join(dir, 'held_out.jsonl'), specFile: join(dir, 'canary.json') };
  await mkdir(dir, { recursive: true });
  await writeFile(family.trainFile, await lines(train, 'train'));
  await writeFile(family.heldOutFile, await lines(heldOut, 'test'));
  await writeFile(family.specFile, `${JSON.stringify({ seed, train: train.map((t) => t.id), held_out: heldOut.map((t) => t.id), tasks: specs }, null, 1)}\n`);
  return family;
}

export interface CanarySettings {
  readonly steps: number;
  readonly seeds: number;
  /** Where the model folder is converted to (the model smoke's). */
  readonly modelDir: string;
  readonly languageModel: string;
  readonly specFile: string;
}

export function canarySettings(steps: number, seeds: number, specFile: string): CanarySettings {
  return { steps, seeds, specFile, modelDir: smokeSettings('model', steps).modelDir, languageModel: languageModelFile() };
}

/** Token budgets: a canary prompt is under 150 of SmolLM2's tokens and a reply at most `maxNewTokens`. */
export const canaryLengths = { prompt: 256, response: 32 } as const;

/**
 * The config the canary runs with: its batch, its learning rate unless the command line set one,
 * and rewards of 1 for a fix and 0 otherwise, in two steps (the fix, then the submit). A group of
 * eight: the model starts near 4% on these tasks, and a group whose members all fail teaches nothing.
 */
export function canaryConfig(config: ExperimentConfig, setOnCommandLine: ReadonlySet<string> = new Set()): ExperimentConfig {
  return {
    ...config,
    training: {
      ...config.training,
      train_batch_size: canaryDefaults.trainBatchSize,
      rollout_n: canaryDefaults.rolloutN,
      ppo_mini_batch_size: null,
      lr: setOnCommandLine.has('training.lr') ? config.training.lr : canaryDefaults.lr,
    },
    // The issue's hints are not read by the canary's prompt, so the embedding retriever is not run.
    env: { ...config.env, max_steps: 2, reward_scale: 1, failure_penalty: 0, step_penalty: 0, timeout_penalty: 0, semantic_search: 'off' },
  };
}

/** The canary learns from the reward alone: no entropy bonus. */
export function canaryOverrides(): VerlOverride[] {
  return [{ key: 'actor_rollout_ref.actor.entropy_coeff', value: 0, source: 'run' }];
}

/** The canary driver's arguments (python/graph_planner_verl/canary/run.py). */
export function canaryDriverArgs(runDir: string, canary: CanarySettings): string[] {
  return [
    '-m',
    'graph_planner_verl.canary.run',
    '--run-dir',
    runDir,
    '--steps',
    String(canary.steps),
    '--seeds',
    String(canary.seeds),
    '--spec',
    canary.specFile,
    '--language-model',
    canary.languageModel,
    '--held-out-samples',
    String(canaryDefaults.heldOutSamples),
    '--max-new-tokens',
    String(canaryDefaults.maxNewTokens),
    '--',
  ];
}
