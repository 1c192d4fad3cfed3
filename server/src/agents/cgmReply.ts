/**
 * Reading a patch model's reply leniently, as the original parsers did (docs/original-system.md#d3-cgm-formats): the JSON is the
 * last fenced json block, else the whole reply, else the first balanced `{…}`; the edits sit in a
 * `patch` object or at the top level; `new_text` may be called `text` or `diff`, `start` may be
 * called `line` (default 1), `end` defaults to `start`; a missing final newline is added; edits
 * that are not objects or have no path are dropped. Turning edits into a diff and guarding them
 * is the environment's job.
 */
import type { Edit, PatchCandidate } from '../protocol/actions.js';
import { stripWrappers } from './replyFormat.js';
import { isRecord } from '../util/isRecord.js';

export interface CgmReplyOptions {
  /** Keep at most this many edits per candidate. */
  maxEdits?: number;
  /** Summary used when the reply has none (the plan, say). */
  fallbackSummary?: string;
  /** Summary used when there is neither (default `cgm`). */
  defaultSummary?: string;
}

export type CgmReplyResult = { ok: true; candidates: PatchCandidate[] } | { ok: false; reason: string };

type Json = Record<string, unknown>;

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The end (exclusive) of the balanced `{…}` starting at `start`, strings respected; -1 when unbalanced. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charAt(i);
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

/** The JSON value a reply carries, or undefined when it carries none. */
export function extractJson(reply: string): unknown {
  const text = stripWrappers(reply).trim();
  const fences = [...text.matchAll(/```[ \t]*(json|JSON)?[^\n]*\n([\s\S]*?)```/g)];
  for (const fence of fences.reverse()) {
    const parsed = tryJson(fence[2] ?? '');
    if (parsed.ok) return parsed.value;
  }
  if ((text.startsWith('{') && text.endsWith('}')) || (text.startsWith('[') && text.endsWith(']'))) {
    const parsed = tryJson(text);
    if (parsed.ok) return parsed.value;
  }
  for (let start = text.indexOf('{'), tries = 0; start >= 0 && tries < 50; start = text.indexOf('{', start + 1), tries++) {
    const end = balancedEnd(text, start);
    if (end < 0) break;
    const parsed = tryJson(text.slice(start, end));
    if (parsed.ok) return parsed.value;
  }
  return undefined;
}

function toLine(value: unknown): number | undefined | 'invalid' {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return Number.isInteger(value) ? value : 'invalid';
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  return 'invalid';
}

/** One edit in the canonical shape, or why it was dropped. */
export function normalizeEdit(raw: unknown): Edit | string {
  if (!isRecord(raw)) return 'not an object';
  const path = raw['path'] ?? raw['file'];
  if (typeof path !== 'string' || path.trim() === '') return 'no path';
  const text = [raw['new_text'], raw['text'], raw['diff']].find((v): v is string => typeof v === 'string');
  if (text === undefined) return `${path}: no new_text`;
  const start = toLine(raw['start'] ?? raw['line']) ?? 1;
  const end = toLine(raw['end']) ?? start;
  if (start === 'invalid' || end === 'invalid' || start < 1 || end < start) return `${path}: invalid line range`;
  return { path: path.trim(), start, end, new_text: text === '' || text.endsWith('\n') ? text : `${text}\n` };
}

/** The usable edits of a list, at most `maxEdits`, and why the others were dropped. */
export function normalizeEdits(raw: readonly unknown[], maxEdits = Number.POSITIVE_INFINITY): { edits: Edit[]; dropped: string[] } {
  const edits: Edit[] = [];
  const dropped: string[] = [];
  for (const item of raw) {
    if (edits.length >= maxEdits) break;
    const edit = normalizeEdit(item);
    if (typeof edit === 'string') dropped.push(edit);
    else edits.push(edit);
  }
  return { edits, dropped };
}

function summaryOf(patch: Json, payload: Json, options: CgmReplyOptions): string {
  for (const value of [patch['summary'], payload['summary'], options.fallbackSummary]) {
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return options.defaultSummary ?? 'cgm';
}

function looksLikeDiff(text: string): boolean {
  return /^(---|\+\+\+|@@|diff --git)/m.test(text);
}

/** One candidate from one payload object. */
export function candidateFromPayload(payload: Json, options: CgmReplyOptions = {}): { ok: true; candidate: PatchCandidate } | { ok: false; reason: string } {
  const rawPatch = payload['patch'];
  const patch = isRecord(rawPatch) ? rawPatch : payload;
  const summary = summaryOf(patch, payload, options);
  const edits = patch['edits'];
  if (!Array.isArray(edits)) {
    const diff = typeof rawPatch === 'string' ? rawPatch : typeof payload['diff'] === 'string' ? payload['diff'] : undefined;
    if (diff !== undefined && looksLikeDiff(diff)) return { ok: true, candidate: { diff, summary } };
    return { ok: false, reason: 'the reply has no patch.edits list' };
  }
  const { edits: usable, dropped } = normalizeEdits(edits, options.maxEdits);
  if (usable.length === 0) {
    return {
      ok: false,
      reason: edits.length === 0 ? 'the reply has an empty edits list' : `none of its ${edits.length} edit(s) is usable (${dropped.slice(0, 3).join('; ')})`,
    };
  }
  return { ok: true, candidate: { edits: usable, summary } };
}

/** The candidates one reply proposes (usually one), or why there are none. */
export function parseCgmReply(reply: string, options: CgmReplyOptions = {}): CgmReplyResult {
  const value = extractJson(reply);
  if (value === undefined) return { ok: false, reason: 'the reply contains no JSON object' };
  // A bare list is either the edits themselves or one payload per candidate.
  const payloads: unknown[] = Array.isArray(value) ? (value.some((v) => isRecord(v) && 'path' in v) ? [{ edits: value }] : value) : [value];
  const candidates: PatchCandidate[] = [];
  const reasons: string[] = [];
  for (const payload of payloads) {
    if (!isRecord(payload)) {
      reasons.push('a candidate is not a JSON object');
      continue;
    }
    const one = candidateFromPayload(payload, options);
    if (one.ok) candidates.push(one.candidate);
    else reasons.push(one.reason);
  }
  if (candidates.length === 0) return { ok: false, reason: reasons[0] ?? 'the reply proposes no patch' };
  return { ok: true, candidates };
}
