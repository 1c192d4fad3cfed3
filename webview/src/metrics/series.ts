/**
 * The curves of the metrics page, from the lines of `metrics.jsonl` (protocol/metrics.ts): one
 * point per training step for each of Verl's keys (a step redone after a resume keeps its latest
 * value), and the resolved rate of each step's episodes, which the environment service reports as
 * they end (an episode belongs to the first step logged after it ended).
 */
import {
  noOutcomeKey,
  runnerTamperedKey,
  suspectedHacksKey,
  type EnvMetricsLine,
  type MetricsLine,
  type VerlMetricsLine,
} from '../../../server/src/protocol/metrics.js';
import { resolvedRate } from '../../../server/src/protocol/metricsFigures.js';

export interface Point {
  readonly step: number;
  /** Epoch ms. */
  readonly time: number;
  readonly value: number;
}

function stepsOf(lines: readonly MetricsLine[]): VerlMetricsLine[] {
  const byStep = new Map<number, VerlMetricsLine>();
  for (const line of lines) if (line.source === 'verl') byStep.set(line.step, line);
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}

export function verlSeries(lines: readonly MetricsLine[], key: string): Point[] {
  return stepsOf(lines).flatMap((line) => {
    const value = line.data[key];
    return value === undefined ? [] : [{ step: line.step, time: Date.parse(line.ts), value }];
  });
}

/**
 * One point per step from the episodes that ended after the previous step's line and by this one's;
 * `value` says what they amount to, or undefined when they say nothing (no point is drawn).
 */
function perStep(lines: readonly MetricsLine[], value: (episodes: readonly EnvMetricsLine[]) => number | undefined): Point[] {
  const episodes = lines.filter((l): l is EnvMetricsLine => l.source === 'env').map((e) => ({ time: Date.parse(e.ts), line: e }));
  const points: Point[] = [];
  let previous = -Infinity;
  for (const step of stepsOf(lines)) {
    const time = Date.parse(step.ts);
    const mine = episodes.filter((e) => e.time > previous && e.time <= time).map((e) => e.line);
    previous = time;
    const v = value(mine);
    if (v !== undefined) points.push({ step: step.step, time, value: v });
  }
  return points;
}

/** Each step's resolved rate, as protocol/metricsFigures.ts defines it. */
export function resolvedRateSeries(lines: readonly MetricsLine[]): Point[] {
  return perStep(lines, (mine) => resolvedRate(mine).rate);
}

/**
 * The share of the model's replies that failed to parse, per step, from the episodes the resolved
 * rate takes; episodes written before replies were recorded are left out.
 */
export function parseFailureSeries(lines: readonly MetricsLine[]): Point[] {
  return perStep(lines, (mine) => {
    const replies = mine.reduce((n, e) => n + (e.replies ?? 0), 0);
    return replies === 0 ? undefined : mine.reduce((n, e) => n + (e.replies === undefined ? 0 : (e.parse_failures ?? 0)), 0) / replies;
  });
}

/**
 * How many of each step's episodes submitted a patch with suspected reward hacking, as `gp train`
 * wrote it into the step's line (`gp/suspected_hacks`, trainer/stepFigures.ts). Steps of runs from
 * before it was counted have no point rather than a made-up zero.
 */
export function suspectedHacksSeries(lines: readonly MetricsLine[]): Point[] {
  return verlSeries(lines, suspectedHacksKey);
}

/**
 * How many of each step's episodes ended not gradable because the runner witness saw their runner
 * rewritten (`gp/runner_tampered`): masked in the update, so this is where the attempt shows.
 */
export function runnerTamperedSeries(lines: readonly MetricsLine[]): Point[] {
  return verlSeries(lines, runnerTamperedKey);
}

/**
 * How many of each step's episodes reached no outcome (`gp/no_outcome`, protocol/noOutcome.ts):
 * masked in the update and left out of their GRPO group. Runs from before it was counted have no point.
 */
export function noOutcomeSeries(lines: readonly MetricsLine[]): Point[] {
  return verlSeries(lines, noOutcomeKey);
}

export interface RunTotals {
  readonly steps: number;
  readonly episodes: number;
  readonly resolved: number;
  /** The whole run's resolved rate (protocol/metricsFigures.ts); undefined with no episode ended. */
  readonly resolvedRate: number | undefined;
  readonly meanTotalReward: number | undefined;
  readonly firstTime: number | undefined;
  /** Episodes whose submit recorded suspected reward hacking. */
  readonly suspectedHacks: number;
  /** Episodes that reached no outcome: beside the rate, not in it. */
  readonly noOutcome: number;
}

export function totalsOf(lines: readonly MetricsLine[]): RunTotals {
  const env = lines.filter((l): l is EnvMetricsLine => l.source === 'env');
  const times = lines.map((l) => Date.parse(l.ts)).filter((t) => Number.isFinite(t));
  const rate = resolvedRate(env);
  const outcomes = env.filter((e) => e.no_outcome === undefined);
  return {
    steps: stepsOf(lines).length,
    episodes: rate.ended,
    resolved: rate.resolved,
    resolvedRate: rate.rate,
    meanTotalReward: outcomes.length === 0 ? undefined : outcomes.reduce((a, e) => a + e.total_reward, 0) / outcomes.length,
    firstTime: times.length === 0 ? undefined : Math.min(...times),
    suspectedHacks: env.filter((e) => e.suspected_hacks !== undefined).length,
    noOutcome: rate.noOutcome,
  };
}
