/**
 * The model agent's figures on the embedded model (`--only model`): SmolLM2-135M-Instruct behind
 * llama.cpp's server, the sample tasks through `gp rollout --config configs/experiments/embedded_model.yaml`.
 *
 * - `model-step-share-structured` and `model-step-share-text`: the steps the model's own replies
 *   drove against all steps of the same rollout, with structured output (the reply held to the
 *   actions' JSON Schema) and in the reply text format, fallback off; the details keep each
 *   parse-failure rate by code. The figures before the fixes of issue 26 cannot be re-measured
 *   (that code is gone); docs/benchmarks.md records them from the run that found them. Goal: at least 0.9
 *   of the steps with structured output; the text format is reported.
 * - `model-agent-overhead`: per step, the model agent's own time (prompt building, trimming,
 *   parsing, bookkeeping: the step's agent time less the model call) against the model's generation
 *   time for the same steps, medians. Goal: at most 0.1.
 * - `model-server-tokens-per-s`: completion tokens per second through the embedded server and our
 *   chat client, against llama.cpp driven directly in-process (`modelServerAnchor.py`) with the
 *   same prompt, context, threads and greedy settings, the anchor run before and after the server's
 *   runs so other load falls on both. Goal: at least 0.9.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createChatClient, embeddedModelPaths, plannerSystemPrompt, startEmbeddedModel } from '../server/src/agents/index.js';
import { runCli } from '../server/src/cli/main.js';
import { runReportSchema, trajectoryLineSchema, type RunReport, type TrajectoryStep } from '../server/src/protocol/runs.js';
import { errorMessage } from '../server/src/util/errors.js';
import type { BenchResult } from './result.js';
import { sig3 } from './sandboxSupport.js';
import { summarize } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';

const median = (values: readonly number[]): number => summarize(values).median;

const names = ['model-step-share-structured', 'model-step-share-text', 'model-agent-overhead', 'model-server-tokens-per-s'] as const;

interface RolloutFigures {
  readonly report: RunReport;
  readonly steps: TrajectoryStep[];
}

async function rollout(root: string, label: string, extra: string[], log: (line: string) => void): Promise<RolloutFigures> {
  const runDir = join(root, label);
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
  const started = Date.now();
  const code = await runCli(
    ['rollout', 'datasets/sample/tasks.jsonl', '--config', 'configs/experiments/embedded_model.yaml', '--max-steps', '4', '--run-dir', runDir, ...extra],
    io,
    resolve('.'),
  );
  if (code !== 0) throw new Error(`gp rollout (${label}) exited ${code}: ${lines.slice(-4).join(' ')}`);
  const report = runReportSchema.parse(JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')));
  const steps = report.tasks.flatMap((t) =>
    readFileSync(join(runDir, t.trajectory), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => trajectoryLineSchema.parse(JSON.parse(l)))
      .filter((l): l is TrajectoryStep => l.type === 'step' && l.model !== undefined),
  );
  log(`model: ${label} rollout, ${report.model?.steps ?? 0} steps in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { report, steps };
}

/** The steps the model's own replies drove against all steps of the same rollout, with its parse failures. */
function shareFigure(name: string, format: string, r: RunReport, goal: string, meets: (ratio: number) => boolean): BenchResult {
  const m = r.model;
  const own = m?.model_steps ?? 0;
  const all = m?.steps ?? 0;
  const ratio = all === 0 ? 0 : own / all;
  return {
    name,
    what: `steps driven by the model's own replies against all steps, ${format}, the ${r.total} sample tasks (max 4 steps, greedy, fallback off, example turns on)`,
    unit: 'steps',
    ours: own,
    anchor: all,
    anchorName: 'all steps',
    ratio: sig3(ratio),
    goal,
    pass: meets(ratio),
    details: {
      parseFailureRate: sig3(m?.parse_failure_rate ?? 0),
      parseFailures: JSON.stringify(m?.parse_failures ?? {}),
      completionTokensPerCall: sig3((m?.completion_tokens ?? 0) / Math.max(1, m?.calls ?? 1)),
      resolvedByModelAlone: m?.resolved_by_model_alone ?? 0,
    },
  };
}

interface Run {
  readonly completion_tokens: number;
  readonly seconds: number;
}

const rate = (runs: readonly Run[]): number =>
  runs.reduce((s, r) => s + r.completion_tokens, 0) /
  Math.max(
    1e-9,
    runs.reduce((s, r) => s + r.seconds, 0),
  );

async function serverRuns(spec: {
  messages: { role: 'system' | 'user'; content: string }[];
  max_tokens: number;
  n_ctx: number;
  threads: number;
  runs: number;
}): Promise<Run[]> {
  const server = await startEmbeddedModel({ contextSize: spec.n_ctx, threads: spec.threads });
  try {
    // The anchor's sampling settings are llama-cpp-python's library defaults; the server's differ
    // (repeat_penalty 1.1), so the request names them, as the model agent does for the embedded server.
    const client = createChatClient({
      baseUrl: server.baseUrl,
      model: server.model,
      apiKey: server.apiKey,
      temperature: 0,
      topP: 0.95,
      maxTokens: spec.max_tokens,
      extraBody: { repeat_penalty: 1.0, top_k: 40 },
      timeoutMs: 300_000,
      retries: 0,
      backoffMs: 100,
    });
    const runs: Run[] = [];
    for (let i = 0; i <= spec.runs; i++) {
      const [system, ...rest] = spec.messages;
      const messages = [{ role: 'system' as const, content: `Run ${i}. ${system?.content ?? ''}` }, ...rest];
      const started = performance.now();
      const completion = await client.complete(messages);
      const seconds = (performance.now() - started) / 1000;
      if (i > 0) runs.push({ completion_tokens: completion.usage?.completion_tokens ?? 0, seconds });
    }
    return runs;
  } finally {
    await server.close();
  }
}

function anchorRuns(python: string, model: string, specFile: string): Run[] {
  const run = spawnSync(python, [resolve('bench/modelServerAnchor.py'), model, specFile], { encoding: 'utf8', timeout: 900_000 });
  if (run.status !== 0) throw new Error(`bench/modelServerAnchor.py failed: ${run.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return (JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { runs: Run[] }).runs;
}

export async function benchModel(log: (line: string) => void): Promise<FigureOutcome> {
  const paths = embeddedModelPaths();
  if (!existsSync(paths.model) || !existsSync(paths.python)) {
    return {
      results: [],
      notMeasured: names.map((name) => ({
        name,
        reason: 'the embedded model is not installed (bash scripts/setup-language-model.sh && bash scripts/setup-model-server.sh)',
      })),
    };
  }
  const root = mkdtempSync(join(tmpdir(), 'gp-bench-model-'));
  const results: BenchResult[] = [];
  const notMeasured: { name: string; reason: string }[] = [];
  try {
    try {
      const text = await rollout(root, 'text', [], log);
      const structured = await rollout(root, 'structured', ['--set', 'planner_sampling.structured_output=json_object'], log);
      results.push(shareFigure(names[0], 'structured output (json_object)', structured.report, 'ratio >= 0.9', (r) => r >= 0.9));
      results.push(
        shareFigure(names[1], 'the reply text format', text.report, 'reported only (a 135M model rarely writes the block format unprompted)', () => true),
      );
      const steps = [...text.steps, ...structured.steps];
      const overhead = median(steps.map((s) => Math.max(0, s.timings.agent_ms - (s.model?.generation_ms ?? 0))));
      const generation = median(steps.map((s) => s.model?.generation_ms ?? 0));
      results.push({
        name: names[2],
        what: `per step, the model agent's time outside the model call (prompt, trimming, parsing, bookkeeping) vs the model's generation time, medians over ${steps.length} steps of both rollouts`,
        unit: 'ms',
        ours: sig3(overhead),
        anchor: sig3(generation),
        anchorName: 'generation per step',
        ratio: sig3(overhead / Math.max(1e-9, generation)),
        goal: 'ratio <= 0.1',
        pass: overhead / Math.max(1e-9, generation) <= 0.1,
        details: {
          environmentMsOutsideCommandsMedian: sig3(median(steps.map((s) => s.timings.env_ms - s.timings.task_commands_ms))),
          promptTokensMedian: median(steps.map((s) => s.model?.prompt_tokens ?? 0)),
        },
      });
    } catch (error) {
      notMeasured.push(...names.slice(0, 3).map((name) => ({ name, reason: errorMessage(error) })));
    }
    try {
      const spec = {
        messages: [
          { role: 'system' as const, content: plannerSystemPrompt.slice(0, 1500) },
          {
            role: 'user' as const,
            content:
              'Task calc-add · step 0/8\nIssue: calc.add returns the wrong result\nadd(2, 2) should be 4. Fix app/calc.py so that tests/test_calc.py passes.\n--- func:app/calc.py#add (app/calc.py:5-6)\n    5| def add(a, b):\n    6|     return a - b',
          },
        ],
        max_tokens: 128,
        n_ctx: 4096,
        threads: 2,
        runs: 4,
      };
      const specFile = join(root, 'anchor.json');
      writeFileSync(specFile, JSON.stringify(spec));
      const before = anchorRuns(paths.python, paths.model, specFile);
      const served = await serverRuns(spec);
      const after = anchorRuns(paths.python, paths.model, specFile);
      const ours = rate(served);
      const anchor = rate([...before, ...after]);
      results.push({
        name: names[3],
        what: `completion tokens per second for one planner prompt (${served[0]?.completion_tokens ?? 0} tokens, greedy, context ${spec.n_ctx}, ${spec.threads} threads), ${served.length} runs through the embedded server and our chat client vs ${before.length + after.length} runs of llama.cpp in-process (llama-cpp-python's Llama)`,
        unit: 'tokens/s',
        ours: sig3(ours),
        anchor: sig3(anchor),
        anchorName: 'llama.cpp in-process',
        ratio: sig3(ours / Math.max(1e-9, anchor)),
        goal: 'ratio >= 0.9',
        pass: ours / Math.max(1e-9, anchor) >= 0.9,
        details: {
          serverSecondsPerRunMedian: sig3(median(served.map((r) => r.seconds))),
          anchorSecondsPerRunMedian: sig3(median([...before, ...after].map((r) => r.seconds))),
        },
      });
    } catch (error) {
      notMeasured.push({ name: names[3], reason: errorMessage(error) });
    }
    return { results, notMeasured };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
