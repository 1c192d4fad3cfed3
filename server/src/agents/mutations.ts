/**
 * Bounded single-token mutations of source windows: the rule agent's repair search (ARCHITECTURE.md §4.9).
 * Each mutation changes one line: an arithmetic or comparison operator, an integer constant or a
 * range/slice bound by one, two call arguments swapped, or a condition negated. Nothing here knows
 * any task; the windows come from localisation and the tests decide which candidate is kept.
 */
import type { PatchCandidate } from '../protocol/actions.js';
import { endsOperand, tokeniseLines, type Token } from './pythonLine.js';

/** A window of source: lines `start..start+n-1` of `path`. */
export interface SourceWindow {
  path: string;
  start: number;
  text: string;
  /** A line inside the window to try first (the failing frame's line), when known. */
  focusLine?: number;
}

interface LineMutation {
  line: number;
  text: string;
  summary: string;
}

const arithmetic: Record<string, string[]> = { '+': ['-'], '-': ['+'], '*': ['/', '//'], '/': ['*', '//'], '//': ['/', '%'], '%': ['//'] };
const augmented: Record<string, string[]> = { '+=': ['-='], '-=': ['+='], '*=': ['/='], '/=': ['*='] };
const comparison: Record<string, string[]> = { '<': ['<=', '>'], '<=': ['<', '>='], '>': ['>=', '<'], '>=': ['>', '<='], '==': ['!='], '!=': ['=='] };
const swappedNames: Record<string, string> = { and: 'or', or: 'and', True: 'False', False: 'True', min: 'max', max: 'min' };

function replaceAt(line: string, col: number, length: number, text: string): string {
  return line.slice(0, col) + text + line.slice(col + length);
}

function tokenMutations(line: string, tokens: readonly Token[]): Array<{ text: string; summary: string }> {
  const out: Array<{ text: string; summary: string }> = [];
  const isFor = tokens.some((t) => t.kind === 'name' && t.text === 'for');
  tokens.forEach((token, i) => {
    const before = tokens[i - 1];
    const after = tokens[i + 1];
    const swapTo = (to: string, length = token.text.length) =>
      out.push({ text: replaceAt(line, token.col, length, to), summary: `\`${token.text}\` → \`${to}\`` });
    if (token.kind === 'op') {
      if (arithmetic[token.text] && endsOperand(before)) for (const to of arithmetic[token.text] ?? []) swapTo(to);
      for (const to of augmented[token.text] ?? []) swapTo(to);
      for (const to of comparison[token.text] ?? []) swapTo(to);
    } else if (token.kind === 'number' && /^\d+$/.test(token.text)) {
      const n = Number(token.text);
      swapTo(String(n + 1));
      if (n > 0) swapTo(String(n - 1));
    } else if (token.kind === 'name') {
      const other = swappedNames[token.text];
      if (other !== undefined && !(token.text.startsWith('m') && after?.text !== '(')) swapTo(other);
      if (token.text === 'is') {
        if (after?.text === 'not') out.push({ text: replaceAt(line, token.col, after.col + 3 - token.col, 'is'), summary: '`is not` → `is`' });
        else swapTo('is not');
      }
      if (token.text === 'in' && !isFor) {
        if (before?.text === 'not') out.push({ text: replaceAt(line, before.col, token.col + 2 - before.col, 'in'), summary: '`not in` → `in`' });
        else swapTo('not in');
      }
    }
  });
  return out;
}

/** Negates the condition of `if`, `elif`, `while` and `return` lines. */
function conditionMutations(line: string): Array<{ text: string; summary: string }> {
  const m = /^(\s*(?:if|elif|while)\s+)(.*?)(\s*:\s*(?:#.*)?)$/.exec(line) ?? /^(\s*return\s+)(.+?)(\s*(?:#.*)?)$/.exec(line);
  if (!m) return [];
  const [, head = '', cond = '', tail = ''] = m;
  if (cond.startsWith('not ')) return [{ text: `${head}${cond.slice(4)}${tail}`, summary: 'condition un-negated' }];
  if (/^(if|elif|while)/.test(head.trim()) || /\b(and|or|not|==|!=|<=|>=|<|>|is|in)\b|[<>]/.test(cond)) {
    return [{ text: `${head}not (${cond})${tail}`, summary: 'condition negated' }];
  }
  return [];
}

/** Splits `(a, b, c)` starting at `open` into top-level argument ranges, or undefined if unclosed. */
function argumentRanges(line: string, open: number): Array<[number, number]> | undefined {
  const ranges: Array<[number, number]> = [];
  let depth = 0;
  let start = open + 1;
  let quote: string | undefined;
  for (let i = open; i < line.length; i++) {
    const ch = line[i] ?? '';
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) {
      depth--;
      if (depth === 0) {
        ranges.push([start, i]);
        return ranges;
      }
    } else if (ch === ',' && depth === 1) {
      ranges.push([start, i]);
      start = i + 1;
    }
  }
  return undefined;
}

function trimmed(line: string, [a, b]: [number, number]): [number, number] {
  while (a < b && /\s/.test(line[a] ?? '')) a++;
  while (b > a && /\s/.test(line[b - 1] ?? '')) b--;
  return [a, b];
}

/** Swaps of two positional arguments, and ±1 on `range` ends and slice bounds. */
function bracketMutations(line: string, tokens: readonly Token[]): Array<{ text: string; summary: string }> {
  const out: Array<{ text: string; summary: string }> = [];
  tokens.forEach((token, i) => {
    const prev = tokens[i - 1];
    if (token.text === '(' && prev?.kind === 'name' && !['if', 'while', 'return', 'and', 'or', 'not', 'in', 'def', 'class'].includes(prev.text)) {
      const ranges = argumentRanges(line, token.col)
        ?.map((r) => trimmed(line, r))
        .filter(([a, b]) => b > a);
      if (ranges === undefined) return;
      const positional = ranges.filter(([a, b]) => !/^\*|^[A-Za-z_]\w*\s*=(?!=)/.test(line.slice(a, b)));
      for (let x = 0; x < positional.length; x++) {
        for (let y = x + 1; y < positional.length; y++) {
          const [a1, b1] = positional[x] as [number, number];
          const [a2, b2] = positional[y] as [number, number];
          const first = line.slice(a1, b1);
          const second = line.slice(a2, b2);
          out.push({
            text: line.slice(0, a1) + second + line.slice(b1, a2) + first + line.slice(b2),
            summary: `swapped arguments ${x + 1} and ${y + 1} of ${prev.text}()`,
          });
        }
      }
      if (prev.text === 'range' || prev.text === 'len') {
        const last = ranges.at(-1);
        if (last !== undefined)
          for (const delta of [' + 1', ' - 1'])
            out.push({ text: line.slice(0, last[1]) + delta + line.slice(last[1]), summary: `${prev.text}() bound${delta}` });
      }
    }
    if (token.text === '[' && prev !== undefined && endsOperand(prev)) {
      const close = argumentRanges(line, token.col)?.[0];
      if (close === undefined) return;
      const inner = line.slice(close[0], close[1]);
      const colon = inner.indexOf(':');
      if (colon < 0) return;
      const bounds: Array<[number, number]> = [trimmed(line, [close[0], close[0] + colon]), trimmed(line, [close[0] + colon + 1, close[1]])];
      for (const [a, b] of bounds) {
        if (b <= a) continue;
        for (const delta of [' + 1', ' - 1']) out.push({ text: line.slice(0, b) + delta + line.slice(b), summary: `slice bound ${line.slice(a, b)}${delta}` });
      }
    }
  });
  return out;
}

function windowMutations(window: SourceWindow): LineMutation[] {
  const lines = window.text.split('\n');
  const tokens = tokeniseLines(lines);
  const out: LineMutation[] = [];
  lines.forEach((line, i) => {
    const lineTokens = tokens[i] ?? [];
    if (lineTokens.length === 0 || /^\s*(def|class|@|import|from)\b/.test(line)) return;
    const lineNo = window.start + i;
    for (const m of [...tokenMutations(line, lineTokens), ...conditionMutations(line), ...bracketMutations(line, lineTokens)]) {
      if (m.text !== line) out.push({ line: lineNo, text: m.text, summary: `${window.path}:${lineNo} ${m.summary}` });
    }
  });
  // Lines nearest the focus line first: a failing frame's line is the likeliest place.
  if (window.focusLine !== undefined) {
    const focus = window.focusLine;
    out.sort((a, b) => Math.abs(a.line - focus) - Math.abs(b.line - focus));
  }
  return out;
}

/**
 * Candidates for the windows, round-robin across windows so one long function cannot use the whole
 * budget, without duplicates, at most `limit`.
 */
export function mutationCandidates(windows: readonly SourceWindow[], limit: number): PatchCandidate[] {
  const perWindow = windows.map((w) => ({ window: w, mutations: windowMutations(w) }));
  const seen = new Set<string>();
  const out: PatchCandidate[] = [];
  for (let round = 0; out.length < limit; round++) {
    let any = false;
    for (const { window, mutations } of perWindow) {
      const m = mutations[round];
      if (m === undefined) continue;
      any = true;
      const key = `${window.path}:${m.line}:${m.text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ edits: [{ path: window.path, start: m.line, end: m.line, new_text: `${m.text}\n` }], summary: m.summary });
      if (out.length >= limit) break;
    }
    if (!any) break;
  }
  return out;
}
