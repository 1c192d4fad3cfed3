/**
 * The curves of the metrics page, from the lines of `metrics.jsonl` (protocol/metrics.ts): one
 * point per training step for each of Verl's keys (a step redone after a resume keeps its latest
 * value), and the resolved rate of each step's episodes, which the environment service reports as
 * they end (an episode belongs to the first step logged after it ended).
 */
import type { EnvMetricsLine, MetricsLine, VerlMetricsLine } from '../../../server/src/protocol/metrics.js';

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

export function resolvedRateSeries(lines: readonly MetricsLine[]): Point[] {
  const steps = stepsOf(lines);
  const episodes = lines.filter((l): l is EnvMetricsLine => l.source === 'env').map((e) => ({ time: Date.parse(e.ts), resolved: e.resolved }));
  const points: Point[] = [];
  let previous = -Infinity;
  for (const step of steps) {
    const time = Date.parse(step.ts);
    const mine = episodes.filter((e) => e.time > previous && e.time <= time);
    previous = time;
    if (mine.length > 0) points.push({ step: step.step, time, value: mine.filter((e) => e.resolved).length / mine.length });
  }
  return points;
}

export interface RunTotals {
  readonly steps: number;
  readonly episodes: number;
  readonly resolved: number;
  readonly meanReturn: number | undefined;
  readonly firstTime: number | undefined;
}

export function totalsOf(lines: readonly MetricsLine[]): RunTotals {
  const env = lines.filter((l): l is EnvMetricsLine => l.source === 'env');
  const times = lines.map((l) => Date.parse(l.ts)).filter((t) => Number.isFinite(t));
  return {
    steps: stepsOf(lines).length,
    episodes: env.length,
    resolved: env.filter((e) => e.resolved).length,
    meanReturn: env.length === 0 ? undefined : env.reduce((a, e) => a + e.return, 0) / env.length,
    firstTime: times.length === 0 ? undefined : Math.min(...times),
  };
}
