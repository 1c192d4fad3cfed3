/**
 * Validates a dataset JSONL document line by line. Each line is checked on its own
 * (`validateLine`); what spans lines (duplicate task ids, the summary) is kept by a
 * `DatasetCheck`, which the in-memory validator here, the streaming file reader and the
 * incremental editor service all feed in the same way, so the three report the same findings.
 */
import { finding } from '../protocol/index.js';
import { locate } from './jsonScanner.js';
import { emptyDatasetFinding, textNotText } from './textCheck.js';
import { validateLine, type LineFinding, type LineOptions, type LineResult, type RelatedLine } from './lineValidator.js';

/** A finding on a given line (0-based) of the document. */
export interface JsonlFinding extends LineFinding {
  readonly line: number;
}

export interface JsonlSummary {
  /** Lines in the document, blank ones included (a final line break does not start a line). */
  readonly lines: number;
  /** Entries without errors: the tasks a run could use. */
  readonly tasks: number;
  readonly errors: number;
  readonly warnings: number;
  readonly infos: number;
  readonly hints: number;
}

export interface JsonlReport {
  /** The findings, at most `maxFindings` of them; the summary counts all. */
  readonly findings: readonly JsonlFinding[];
  readonly summary: JsonlSummary;
}

export interface JsonlOptions {
  readonly maxFindings?: number;
}

/** Splits a document into lines, dropping each line's `\r` and the empty line after a final break. */
export function splitLines(text: string): string[] {
  // The editor breaks lines at \r\n, \n and a lone \r alike; so must we, or line numbers drift.
  const lines = text.includes('\r') ? text.split(/\r\n|\r|\n/) : text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The `[start, end)` columns of the `task_id` value of a line known to be valid JSON. */
function idSpan(text: string): { start: number; end: number } {
  const offset = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const located = locate(text, ['task_id'], offset);
  return located.depth === 1 ? located.value : { start: 0, end: 0 };
}

/**
 * Accumulates the per-line results of one document: detects duplicate ids (an error on every
 * line after the first that uses an id) and counts findings for the summary.
 */
export class DatasetCheck {
  private readonly firstLine = new Map<string, number>();
  private counts = { lines: 0, tasks: 0, errors: 0, warnings: 0, infos: 0, hints: 0 };
  /** Whether any line had something on it; a file without one gets `jsonl/empty` from `finish`. */
  private content = false;

  /**
   * @param textOf gives a line's text when the caller still holds it, so that related locations
   *   point at the first line's `task_id`; a streaming reader passes nothing and points at line start.
   */
  constructor(private readonly textOf: (line: number) => string | undefined = () => undefined) {}

  /** Adds one line's result; returns the line's findings, the cross-line ones included. */
  add(line: number, text: string, result: LineResult): JsonlFinding[] {
    this.counts.lines = Math.max(this.counts.lines, line + 1);
    if (result.kind !== 'blank') this.content = true;
    const out: JsonlFinding[] = result.findings.map((f) => ({ ...f, line }));
    let hasError = result.hasError;
    if (result.taskId !== undefined) {
      const first = this.firstLine.get(result.taskId);
      if (first === undefined) this.firstLine.set(result.taskId, line);
      else {
        out.push(this.duplicate(line, text, result.taskId, first));
        hasError = true;
      }
    }
    if (result.kind === 'entry' && !hasError) this.counts.tasks++;
    for (const f of out) this.count(f.severity);
    return out;
  }

  private duplicate(line: number, text: string, id: string, first: number): JsonlFinding {
    const span = idSpan(text);
    const firstText = this.textOf(first);
    const firstSpan = firstText === undefined ? { start: 0, end: 0 } : idSpan(firstText);
    const related: RelatedLine = { line: first, ...firstSpan, message: `First use of \`${id}\`.` };
    return {
      ...finding({
        code: 'task/duplicate-id',
        severity: 'error',
        message: `Task id \`${id}\` is already used on line ${first + 1}; ids must be unique because they name episodes and trajectories.`,
        path: ['task_id'],
        related: [{ path: ['task_id'], message: `line ${first + 1}` }],
      }),
      ...span,
      line,
      relatedLines: [related],
    };
  }

  private count(severity: LineFinding['severity']): void {
    if (severity === 'error') this.counts.errors++;
    else if (severity === 'warning') this.counts.warnings++;
    else if (severity === 'info') this.counts.infos++;
    else this.counts.hints++;
  }

  /** Records a finding about a line that was not validated (a line too long to read). */
  addUnread(f: JsonlFinding): JsonlFinding {
    this.counts.lines = Math.max(this.counts.lines, f.line + 1);
    this.content = true;
    this.count(f.severity);
    return f;
  }

  /** The findings about the document as a whole, once every line is added: `jsonl/empty` when no line had content. */
  finish(): JsonlFinding[] {
    if (this.content) return [];
    const empty = emptyDatasetFinding();
    this.count(empty.severity);
    return [empty];
  }

  summary(): JsonlSummary {
    return { ...this.counts };
  }
}

/** Validates a whole document held in memory. */
export function validateJsonl(text: string, options: JsonlOptions & LineOptions = {}): JsonlReport {
  const notText = textNotText(text);
  if (notText !== undefined) {
    const check = new DatasetCheck();
    return { findings: [check.addUnread(notText)], summary: check.summary() };
  }
  const lines = splitLines(text);
  const check = new DatasetCheck((i) => lines[i]);
  const max = options.maxFindings ?? Number.POSITIVE_INFINITY;
  const findings: JsonlFinding[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string; // i < lines.length, so the element exists.
    const lineFindings = check.add(i, line, validateLine(line, options));
    for (const f of lineFindings) if (findings.length < max) findings.push(f);
  }
  for (const f of check.finish()) if (findings.length < max) findings.push(f);
  return { findings, summary: check.summary() };
}
