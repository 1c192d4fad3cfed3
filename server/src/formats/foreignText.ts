/**
 * Small readers the foreign-trajectory readers share: a value taken only when it has the type
 * asked for (anything else is left null, and the format's schema has already said why), a message's
 * content as text and media, and a problem located at its JSON path and line.
 */
import type { ForeignStep } from '../protocol/episodeView.js';
import { isRecord } from '../util/isRecord.js';
import type { JsonDocument } from '../util/jsonDocument.js';
import { formatKeyPath } from '../util/keyPath.js';

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const rec = (v: unknown): Record<string, unknown> | null => (isRecord(v) ? v : null);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const len = (v: unknown): number | null => (Array.isArray(v) ? v.length : null);

/**
 * A message's content as text plus the media it names: a string as it is, or a list of parts
 * (ATIF v1.6+, OpenAI-style chat messages) with text parts joined and image or audio parts listed.
 */
export function contentOf(content: unknown): { text: string; media: ForeignStep['media'] } {
  if (typeof content === 'string') return { text: content, media: [] };
  const texts: string[] = [];
  const media: ForeignStep['media'] = [];
  for (const part of arr(content)) {
    const p = rec(part);
    if (p === null) continue;
    if (typeof p['text'] === 'string') texts.push(p['text']);
    const source = rec(p['source']);
    if ((p['type'] === 'image' || p['type'] === 'audio') && source !== null)
      media.push({ kind: p['type'], mediaType: str(source['media_type']) ?? 'unknown', path: str(source['path']) ?? '' });
    // OpenAI's image parts name a URL; it is named, never fetched.
    const url = rec(p['image_url']);
    if (p['type'] === 'image_url' && url !== null) media.push({ kind: 'image', mediaType: 'image', path: str(url['url'])?.slice(0, 200) ?? '' });
  }
  return { text: texts.join('\n'), media };
}

/** How deep a value from the file may nest and still be sent to the viewer (JSON.stringify recurses per level). */
const maxDepth = 64;

function depthExceeds(v: unknown, depth: number): boolean {
  if (depth > maxDepth) return true;
  if (Array.isArray(v)) return v.some((x) => depthExceeds(x, depth + 1));
  if (isRecord(v)) return Object.values(v).some((x) => depthExceeds(x, depth + 1));
  return false;
}

/**
 * A value from the file (tool-call arguments, extras) as it is, unless it nests deeper than any
 * real trajectory does: then a note in its place, so sending it to the viewer cannot exhaust the stack.
 */
export function bounded(v: unknown): unknown {
  return depthExceeds(v, 0) ? `(not shown: nested more than ${maxDepth} levels deep)` : v;
}

/** `bounded` for an object of extras. */
export function boundedRecord(v: unknown): Record<string, unknown> | null {
  const r = rec(v);
  return r === null || !depthExceeds(r, 0) ? r : { note: `not shown: nested more than ${maxDepth} levels deep` };
}

/** `steps[2].tool_calls[0].arguments (line 34, column 11): expected an object` */
export function located(doc: JsonDocument, path: readonly (string | number)[], message: string): string {
  const at = doc.locate(path);
  const where = formatKeyPath(path) || 'the document';
  return `${where}${at === undefined ? '' : ` (line ${at.line}, column ${at.column})`}: ${message}`;
}

/** A problem of step `index` of a list at `listPath`, added to that step's own list too. */
export function problemsByStep(
  problems: readonly { path: readonly (string | number)[]; text: string }[],
  listPath: readonly (string | number)[],
): Map<number, string[]> {
  const byStep = new Map<number, string[]>();
  for (const p of problems) {
    if (p.path.length <= listPath.length || !listPath.every((seg, i) => p.path[i] === seg)) continue;
    const index = p.path[listPath.length];
    if (typeof index !== 'number') continue;
    byStep.set(index, [...(byStep.get(index) ?? []), p.text]);
  }
  return byStep;
}

/** The first line of a text as a title, and the whole as the body. */
export function issueOf(text: string): { title: string; body: string } | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return { title: (trimmed.split('\n', 1)[0] ?? '').slice(0, 200), body: trimmed };
}

/** What SWE-agent and mini-swe-agent record of a run in `info`: its exit status, cost, tokens and model calls, each only when present. */
export function agentInfoFacts(info: Record<string, unknown>): string[] {
  const facts: string[] = [];
  const exit = str(info['exit_status']);
  if (exit !== null) facts.push(`exit status: ${exit}`);
  const stats = rec(info['model_stats']) ?? {};
  const cost = num(stats['instance_cost']);
  if (cost !== null) facts.push(`cost $${cost.toFixed(4)}`);
  const sent = num(stats['tokens_sent']);
  const received = num(stats['tokens_received']);
  if (sent !== null || received !== null) facts.push(`tokens: ${sent ?? '?'} sent, ${received ?? '?'} received`);
  const calls = num(stats['api_calls']);
  if (calls !== null) facts.push(`${calls} model calls`);
  return facts;
}
