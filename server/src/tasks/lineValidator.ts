/**
 * Validates one line of a dataset file. The happy path is `JSON.parse` plus the compiled schema
 * validator plus a few property reads; everything that costs more (normalising legacy shapes,
 * turning schema errors into messages, scanning for positions) runs only for lines that need it.
 * Columns are UTF-16 offsets into the line as given (a leading BOM included), which is what LSP
 * positions count by default.
 */
import { finding, type Finding } from '../protocol/index.js';
import { descend, findSyntaxError, locate, skipValue, type Descent, type Span } from './jsonScanner.js';
import { applyJsonEdits } from './jsonEdits.js';
import { normalizeTask } from './normalize.js';
import { schemaFindings } from './schemaFindings.js';
import { semanticFindings } from './semanticChecks.js';
import { isValidTask, schemaErrors } from './taskValidator.js';
import { isRecord } from '../util/isRecord.js';
import { errorMessage } from '../util/errors.js';

/** A place on another line that a finding refers to (the first use of a duplicated id). */
export interface RelatedLine {
  /** 0-based line number. */
  readonly line: number;
  readonly start: number;
  readonly end: number;
  readonly message: string;
}

/** A finding with its `[start, end)` column range inside its line. */
export interface LineFinding extends Finding {
  readonly start: number;
  readonly end: number;
  readonly relatedLines?: readonly RelatedLine[];
}

export interface LineResult {
  readonly kind: 'blank' | 'entry' | 'invalid';
  readonly findings: readonly LineFinding[];
  /** The entry's `task_id` when it has a string one, for the duplicate check across lines. */
  readonly taskId: string | undefined;
  readonly hasError: boolean;
}

export interface LineOptions {
  /**
   * The bytes were checked and are valid UTF-8, so a U+FFFD in the text is a real character and
   * not a decoding replacement. Only a reader of the raw bytes can know this.
   */
  readonly validUtf8?: boolean;
}

/** More findings than this on one line are summarised, so one pathological line stays cheap. */
export const maxFindingsPerLine = 100;
/** Schema errors beyond this are not examined; the first ones already say what is wrong. */
const maxSchemaErrors = 500;

const none: readonly LineFinding[] = [];
const blank: LineResult = { kind: 'blank', findings: none, taskId: undefined, hasError: false };

function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const c = text.charCodeAt(0);
  return (c === 0x20 || c === 0x09 || c === 0x0d) && text.trim().length === 0;
}

function taskIdOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as { task_id?: unknown }).task_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The columns a finding covers: the key it is about, or the nearest ancestor's key present in the
 * line (a value only where it has no key: an array element, the root). A finding sits on its key
 * because a row's values can be thousands of characters long (an issue text), and the key names
 * what is wrong where a person looks for it.
 * `tops` remembers where top-level members start, because several findings often sit under the
 * same one (`sandbox`) and finding it again would mean skipping the long issue text again.
 */
export function spanOf(text: string, f: Finding, tops: Map<string | number, Descent> = new Map()): Span {
  const [head, ...rest] = f.path;
  if (head === undefined) return locate(text, []).value;
  let top = tops.get(head);
  if (top === undefined) {
    top = descend(text, [head]);
    tops.set(head, top);
  }
  const inner = top.depth === 0 ? top : descend(text, rest, top.start);
  const depth = top.depth === 0 ? 0 : 1 + inner.depth;
  const key = inner.depth === 0 ? top.key : inner.key;
  if (depth === 0) return locate(text, []).value;
  if (key !== undefined) return key;
  return { start: inner.start, end: skipValue(text, inner.start) };
}

/** A finding with columns, built field by field: this runs for every line with a finding, and a spread costs more. */
function at(f: Finding, start: number, end: number): LineFinding {
  const out: LineFinding = { code: f.code, severity: f.severity, message: f.message, path: f.path, related: f.related, fixes: f.fixes, start, end };
  if (f.target !== undefined) out.target = f.target;
  if (f.cause !== undefined) out.cause = f.cause;
  return out;
}

function place(text: string, offset: number, findings: readonly Finding[]): LineFinding[] {
  const kept: LineFinding[] = [];
  const tops = new Map<string | number, Descent>();
  for (const f of findings.slice(0, maxFindingsPerLine)) {
    const span = spanOf(text, f, tops);
    kept.push(at(f, span.start + offset, Math.max(span.end, span.start + 1) + offset));
  }
  if (findings.length > maxFindingsPerLine) {
    const more = findings.length - maxFindingsPerLine;
    kept.push({
      ...finding({ code: 'task/too-many-problems', severity: 'warning', message: `${more} more problems on this line are not shown.`, path: [] }),
      start: offset,
      end: offset + text.length,
    });
  }
  return kept;
}

function encodingFinding(text: string, at: number, offset: number): LineFinding {
  let end = at + 1;
  while (text.charCodeAt(end) === 0xfffd) end++;
  return {
    ...finding({
      code: 'jsonl/encoding',
      severity: 'error',
      message: `The line holds bytes that are not valid UTF-8 (shown as U+FFFD at column ${at + offset + 1}); save the file as UTF-8.`,
      path: [],
    }),
    start: at + offset,
    end: end + offset,
  };
}

function result(kind: LineResult['kind'], findings: readonly LineFinding[], taskId: string | undefined): LineResult {
  return { kind, findings, taskId, hasError: findings.some((f) => f.severity === 'error') };
}

function syntaxResult(text: string, offset: number, error: unknown, badByte: number): LineResult {
  const problem = findSyntaxError(text) ?? { offset: 0, message: errorMessage(error) };
  // An error at the end of the line (a missing bracket) gets an empty range there.
  const start = Math.min(problem.offset, text.length);
  const end = Math.min(start + 1, text.length);
  const findings: LineFinding[] = [
    {
      ...finding({ code: 'jsonl/syntax', severity: 'error', message: `Invalid JSON at column ${start + offset + 1}: ${problem.message}`, path: [] }),
      start: start + offset,
      end: end + offset,
    },
  ];
  if (badByte >= 0) findings.push(encodingFinding(text, badByte, offset));
  return result('invalid', findings, undefined);
}

/** Validates one line (without its line break). */
export function validateLine(line: string, options: LineOptions = {}): LineResult {
  const offset = line.charCodeAt(0) === 0xfeff ? 1 : 0;
  const text = offset === 0 ? line : line.slice(1);
  if (isBlank(text)) return blank;
  const badByte = options.validUtf8 === true ? -1 : text.indexOf('\ufffd');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return syntaxResult(text, offset, error, badByte);
  }
  if (badByte < 0 && isValidTask(value)) {
    const semantic = semanticFindings(value);
    return semantic.length === 0
      ? { kind: 'entry', findings: none, taskId: taskIdOf(value), hasError: false }
      : result('entry', place(text, offset, semantic), taskIdOf(value));
  }
  const normalized = normalizeTask(value);
  const errors = schemaErrors(normalized.value);
  const later = [...(errors === undefined ? [] : schemaFindings(errors.slice(0, maxSchemaErrors), normalized.value)), ...semanticFindings(normalized.value)];
  // Findings about the normalised entry have fixes whose paths exist only after normalising, so
  // when normalising changed the line their fixes rewrite the whole normalised entry instead.
  const rebased = normalized.findings.length === 0 ? later : later.map((f) => rebaseFixes(f, normalized.value));
  const findings = [...normalized.findings, ...rebased];
  const placed = place(text, offset, findings);
  if (badByte >= 0) placed.push(encodingFinding(text, badByte, offset));
  return result(isRecord(normalized.value) ? 'entry' : 'invalid', placed, taskIdOf(normalized.value));
}

function rebaseFixes(f: Finding, normalizedValue: unknown): Finding {
  return { ...f, fixes: f.fixes.map((fix) => ({ ...fix, edits: [{ op: 'replaceRoot', value: applyJsonEdits(normalizedValue, fix.edits) }] })) };
}
