/**
 * How a command prints the findings of a resolved config: `file:line:col severity code message`
 * for a value written in the YAML, `file: --set KEY=VALUE: severity …` for a value a flag set, one
 * line per finding, each finding once. Every command that takes a config prints through here.
 */
import type { LocatedFinding, Resolution } from '../config/index.js';
import type { Io } from './output.js';

export function formatConfigFinding(file: string, resolution: Pick<Resolution, 'source'>, f: LocatedFinding): string {
  if (f.flag !== undefined) return `${file}: ${f.flag}: ${f.severity} ${f.code} ${f.message}`;
  // Without text (no YAML given, or an empty file) there is no line to point at.
  if (resolution.source.text.length === 0) return `${file}: ${f.severity} ${f.code} ${f.message}`;
  const pos = resolution.source.lineCounter.linePos(f.range.start);
  return `${file}:${pos.line}:${pos.col} ${f.severity} ${f.code} ${f.message}`;
}

/** Findings in document order, then those a flag set, in the order the flags were given. */
export function sortedFindings(findings: readonly LocatedFinding[]): LocatedFinding[] {
  return [...findings].sort(
    (a, b) => (a.flag === undefined ? 0 : 1) - (b.flag === undefined ? 0 : 1) || (a.flag === undefined ? a.range.start - b.range.start : 0),
  );
}

/** Prints the errors and warnings to stderr (a launch has no use for information and hints). */
export function printConfigFindings(file: string, resolution: Resolution, io: Io): void {
  for (const f of sortedFindings(resolution.findings)) {
    if (f.severity === 'error' || f.severity === 'warning') io.err(formatConfigFinding(file, resolution, f));
  }
  if (resolution.ignored.length > 0) io.err(`--yaml-only: ignoring command-line overrides ${resolution.ignored.map((o) => o.flag).join(', ')}.`);
}
