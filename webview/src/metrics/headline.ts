/**
 * A chart's headline figure: the value of its bold line. When the line is smoothed, the headline is
 * the smoothed latest value and says so, with the latest value as recorded beside it; a headline
 * that showed the raw value while the bold line ended elsewhere read as a disagreement (issue 37).
 * The chart's first series is the one its headline speaks for.
 */
import { smoothEma } from './ema.js';

export interface Headline {
  /** The bold line's last value: smoothed when the chart smooths, else as recorded. */
  readonly value: number;
  readonly smoothed: boolean;
  /** The latest point as recorded, and the training step it was logged at when known. */
  readonly raw: number;
  readonly step: number | undefined;
}

export function chartHeadline(points: readonly { readonly y: number; readonly step?: number }[], smoothing: number): Headline | undefined {
  const last = points.at(-1);
  if (last === undefined) return undefined;
  const line = smoothEma(
    points.map((p) => p.y),
    smoothing,
  );
  const value = line.at(-1) ?? last.y;
  return { value, smoothed: smoothing > 0 && value !== last.y, raw: last.y, step: last.step };
}
