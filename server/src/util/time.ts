/**
 * The two timestamp formats of the product, declared once: a compact UTC stamp for names that
 * sort by time (`20261123-094512`, in run folder names), and ISO 8601 for every recorded time
 * (status files, events, trajectories), which every tool reads.
 */

/** `YYYYMMDD-HHMMSS` in UTC: safe in file names and sorts by time. */
export function compactUtcStamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getUTCFullYear()}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}-${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}`;
}

/** ISO 8601 in UTC with milliseconds, as every record in a run directory stores times. */
export function isoTimestamp(date: Date = new Date()): string {
  return date.toISOString();
}
