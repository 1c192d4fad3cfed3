/**
 * Reading loosely shaped dataset rows: the first non-empty string among several dotted paths, as
 * the original converters did with their long fallback chains (docs/original-system.md#g2-r2e-gym-conversion and #g3-swe-bench-conversion). Rows come from
 * parquet, JSONL or JSON written by other tools, so nothing about their shape is trusted here.
 */
import { getAt } from '../util/keyPath.js';

export type Row = Readonly<Record<string, unknown>>;

/** Paths are split once: converters look up the same few dozen paths on every row. */
const splitPaths = new Map<string, readonly string[]>();

function keysOf(path: string): readonly string[] {
  let keys = splitPaths.get(path);
  if (keys === undefined) {
    keys = path.split('.');
    splitPaths.set(path, keys);
  }
  return keys;
}

/** The value at a dotted path (`task.metadata.task_id`), or undefined when any step is missing. */
export function valueAt(row: Row, path: string): unknown {
  return getAt(row, keysOf(path));
}

/** A trimmed, non-empty string, or undefined. */
export function nonEmpty(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

/** The first non-empty string among `paths`, with the path it came from. */
export function firstString(row: Row, paths: readonly string[]): { value: string; path: string } | undefined {
  for (const path of paths) {
    const value = nonEmpty(valueAt(row, path));
    if (value !== undefined) return { value, path };
  }
  return undefined;
}

/** The first value among `paths` that is a string (kept as is, not trimmed), for long texts. */
export function firstText(row: Row, paths: readonly string[]): string | undefined {
  for (const path of paths) {
    const value = valueAt(row, path);
    if (typeof value === 'string' && value.trim().length > 0) return value;
  }
  return undefined;
}

/** A positive integer from a number or a numeric string, or undefined. */
export function positiveInt(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** A list of strings, or undefined when the value is not one. */
export function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.every((v): v is string => typeof v === 'string') ? value : undefined;
}
