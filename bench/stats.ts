/** Summary statistics for latency samples. */

export interface Summary {
  readonly samples: number;
  readonly median: number;
  readonly p90: number;
  readonly min: number;
  readonly max: number;
}

/** The q-quantile (0..1) with linear interpolation between the two nearest ranks. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[hi] ?? Number.NaN;
  return a + (b - a) * (pos - lo);
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((x, y) => x - y);
  return {
    samples: sorted.length,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Rounds to one decimal, which is as precise as a timer-driven latency can honestly be reported. */
export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

export interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

/** The median and the two tail percentiles, the spread a latency figure reports. */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((x, y) => x - y);
  return { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99) };
}
