/**
 * Reading a run's `metrics.jsonl` (protocol/metrics.ts) for people: the latest value of each of
 * Verl's headline keys, and the environment's per-episode figures summed up. `gp runs show
 * --metrics` prints it; the editor's metrics page reads the same lines.
 */
import { readFile } from 'node:fs/promises';
import { metricsLineSchema, type EnvMetricsLine, type MetricsLine, type VerlMetricsLine } from '../protocol/metrics.js';
import { resolvedRate } from '../protocol/metricsFigures.js';
import { parseJsonLines, type ParsedLines } from './jsonLines.js';

/** The keys a person looks at first, in the order shown; Verl may not log all of them. */
export const headlineMetrics = [
  'critic/score/mean',
  'critic/rewards/mean',
  'critic/advantages/max',
  'response_length/mean',
  'response_length/clip_ratio',
  'prompt_length/mean',
  'num_turns/mean',
  'actor/pg_loss',
  'actor/kl_loss',
  'actor/ppo_kl',
  'actor/entropy',
  'actor/grad_norm',
  'actor/lr',
  'timing_s/gen',
  'timing_s/update_actor',
  'timing_s/step',
] as const;

export async function readMetrics(path: string): Promise<ParsedLines<MetricsLine>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], torn: false, problems: [] };
    throw error;
  }
  return parseJsonLines(text, metricsLineSchema);
}

export interface MetricsSummary {
  readonly steps: number;
  readonly lastStep: VerlMetricsLine | undefined;
  /** Headline keys with their latest values, in `headlineMetrics` order. */
  readonly latest: readonly (readonly [string, number])[];
  /** Episodes that ended with an outcome. */
  readonly episodes: number;
  readonly resolved: number;
  /** Episodes that ended without one (protocol/noOutcome.ts), counted beside the rate. */
  readonly noOutcome: number;
  /** The whole run's resolved rate, as protocol/metricsFigures.ts defines it for the metrics page too. */
  readonly resolvedRate: number | undefined;
  /** Over the episodes with an outcome. */
  readonly meanTotalReward: number | undefined;
}

export function summariseMetrics(lines: readonly MetricsLine[]): MetricsSummary {
  const verl = lines.filter((l): l is VerlMetricsLine => l.source === 'verl');
  const env = lines.filter((l): l is EnvMetricsLine => l.source === 'env');
  const lastStep = verl.at(-1);
  const latest: [string, number][] = [];
  for (const key of headlineMetrics) {
    const line = [...verl].reverse().find((l) => typeof l.data[key] === 'number');
    const value = line?.data[key];
    if (value !== undefined) latest.push([key, value]);
  }
  const totals = env.filter((e) => e.no_outcome === undefined).map((e) => e.total_reward);
  const rate = resolvedRate(env);
  return {
    steps: new Set(verl.map((l) => `${l.attempt}:${l.step}`)).size,
    lastStep,
    latest,
    episodes: rate.ended,
    resolved: rate.resolved,
    noOutcome: rate.noOutcome,
    resolvedRate: rate.rate,
    meanTotalReward: totals.length === 0 ? undefined : totals.reduce((a, b) => a + b, 0) / totals.length,
  };
}
