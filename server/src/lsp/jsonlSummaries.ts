/**
 * One diagnostic for a finding repeated on many rows of a dataset. A converted dataset often has
 * the same problem on every row (SWE-bench Verified's 499 rows all say `workdir: /repo`), and 499
 * identical warnings bury everything else in the Problems panel. Findings with the same code, the
 * same cause (`Finding.cause`, else the message) and the same fixes are one group; a group on more
 * than `summaryThreshold` rows becomes a single diagnostic on its first row's key, with the count,
 * the first rows as related locations, and in its data every row, so that its quick fix and the
 * document's "Fix all" (`jsonlFixAll.ts`) change every row at once.
 */
import type { Diagnostic, DiagnosticRelatedInformation } from 'vscode-languageserver';
import type { Fix } from '../protocol/index.js';
import type { JsonlFinding } from '../tasks/index.js';
import { toJsonlDiagnostic } from './jsonlDiagnostics.js';
import type { DiagnosticData } from './yamlDiagnostics.js';

/**
 * Up to this many rows keep a diagnostic each, where a person meets them while scrolling; from
 * four on, the Problems panel mostly repeats one sentence and a count says more.
 */
export const summaryThreshold = 3;

/** Rows listed as related locations of a summary; about what the Problems panel shows without scrolling. */
export const relatedRowsShown = 20;

/** What a summary diagnostic carries besides its fixes: every row it stands for, 0-based. */
export interface SummaryData extends DiagnosticData {
  readonly rows: readonly number[];
}

function groupKey(f: JsonlFinding): string {
  return `${f.code}\u0000${f.cause ?? f.message}\u0000${f.fixes.length === 0 ? '' : JSON.stringify(f.fixes)}`;
}

/** `1, 2, 3` or `1–499` style text naming the first and last rows, 1-based as the editor shows them. */
function rowSpan(rows: readonly number[]): string {
  const first = (rows[0] ?? 0) + 1;
  const last = (rows[rows.length - 1] ?? 0) + 1;
  return `lines ${first}–${last}`;
}

function summaryFix(fix: Fix, count: number): Fix {
  return { ...fix, title: `${fix.title} on all ${count} rows` };
}

function summary(uri: string, group: readonly JsonlFinding[]): Diagnostic {
  // The group is never empty: it exists because a finding was added to it.
  const first = group[0] as JsonlFinding;
  const rows = group.map((f) => f.line);
  const listed = group.length > relatedRowsShown ? ` The first ${relatedRowsShown} are listed.` : '';
  const base = toJsonlDiagnostic(uri, first);
  const data: SummaryData = { fixes: first.fixes.map((fix) => summaryFix(fix, group.length)), rows };
  const related: DiagnosticRelatedInformation[] = group.slice(0, relatedRowsShown).map((f) => ({
    location: { uri, range: { start: { line: f.line, character: f.start }, end: { line: f.line, character: f.end } } },
    message: `Line ${f.line + 1}: ${f.message}`,
  }));
  return {
    ...base,
    message: `${group.length} rows (${rowSpan(rows)}): ${first.cause ?? first.message}${listed}`,
    data,
    relatedInformation: related,
  };
}

/**
 * The diagnostics of a document's findings in line order, a group repeated on more than
 * `summaryThreshold` rows said once where its first row is; at most `max` of them.
 */
export function summarisedDiagnostics(uri: string, findings: readonly JsonlFinding[], max: number): Diagnostic[] {
  const groups = new Map<string, JsonlFinding[]>();
  const keys: string[] = [];
  for (const f of findings) {
    const key = groupKey(f);
    keys.push(key);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [f]);
    // Two findings of one group on the same row (a row with two mounts) still count as one row.
    else if (group[group.length - 1]?.line !== f.line) group.push(f);
  }
  const out: Diagnostic[] = [];
  const said = new Set<string>();
  for (let i = 0; i < findings.length && out.length < max; i++) {
    const key = keys[i] as string; // One key was pushed per finding.
    const group = groups.get(key) as JsonlFinding[]; // Every key was given a group above.
    if (group.length <= summaryThreshold) out.push(toJsonlDiagnostic(uri, findings[i] as JsonlFinding));
    else if (!said.has(key)) {
      said.add(key);
      out.push(summary(uri, group));
    }
  }
  return out;
}
