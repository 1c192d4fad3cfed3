/**
 * A small position-aware JSON scanner for one JSONL line. `JSON.parse` says neither where a syntax
 * error is (V8's messages often carry no position) nor where a key sits, so the validator calls
 * this scanner, and only for lines that need a position: it finds the exact offset of a syntax
 * error, and it locates a key path's key and value. Both walk with explicit loops rather than
 * recursion so that deeply nested or megabyte-long lines cannot overflow the stack, and `locate`
 * skips over strings with `indexOf`, so finding a key in a line of long issue texts stays cheap.
 *
 * It is not jsonc-parser (which util/jsonDocument.ts uses for whole files) because the dataset
 * validation figure cannot afford it (bench/jsonlThroughput.ts, `jsonl-throughput`, goal at least
 * 0.6 of `JSON.parse` per line, on the 499 SWE-bench Verified rows). Measured on the same loaded
 * two-core machine, in one session, twice each: this scanner 0.62–0.64 of the floor (138–144 MB/s
 * against 217–231); jsonc-parser's `parseTree` and `findNodeAtLocation` for each line's findings
 * and its `task_id` 0.12–0.13 (26–29 MB/s), and for the findings alone still 0.12–0.13, because
 * every row has findings and jsonc-parser builds the whole tree of a row to find one key. jsonc-parser
 * also recurses once per level, so a line nested a million deep (test/unit/jsonl.test.ts) would lose
 * the position of its syntax error.
 */

/** A half-open range `[start, end)` of UTF-16 offsets inside the scanned text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** Where a key path was found: its key (absent for array elements and the root) and its value. */
export interface Located {
  /** How many segments of the requested path were found; less than its length means an ancestor. */
  readonly depth: number;
  readonly key: Span | undefined;
  readonly value: Span;
}

export interface SyntaxProblem {
  readonly offset: number;
  readonly message: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function skipWs(t: string, p: number): number {
  while (p < t.length && isWs(t.charCodeAt(p))) p++;
  return p;
}

/** From an opening quote, the offset after the closing quote (or the text's end if unterminated). */
export function skipString(t: string, p: number): number {
  let from = p + 1;
  for (;;) {
    const q = t.indexOf('"', from);
    if (q < 0) return t.length;
    let slashes = 0;
    for (let b = q - 1; b > p && t.charCodeAt(b) === BACKSLASH; b--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** From the first character of a value in valid JSON, the offset after that value. */
export function skipValue(t: string, p: number): number {
  const c = t.charCodeAt(p);
  if (c === QUOTE) return skipString(t, p);
  if (c !== LBRACE && c !== LBRACKET) {
    while (p < t.length) {
      const d = t.charCodeAt(p);
      if (d === COMMA || d === RBRACE || d === RBRACKET || isWs(d)) break;
      p++;
    }
    return p;
  }
  let depth = 0;
  while (p < t.length) {
    const d = t.charCodeAt(p);
    if (d === QUOTE) {
      p = skipString(t, p);
      continue;
    }
    if (d === LBRACE || d === LBRACKET) depth++;
    else if (d === RBRACE || d === RBRACKET) {
      depth--;
      if (depth === 0) return p + 1;
    }
    p++;
  }
  return p;
}

function readKey(t: string, start: number, end: number): string {
  const raw = t.slice(start + 1, end - 1);
  // Keys with escapes are rare; JSON.parse decodes them exactly as the real parse did.
  return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
}

/** Finds the member `name` of the object whose `{` is at `p`; returns its key span and value start. */
function findMember(t: string, p: number, name: string): { key: Span; valueStart: number } | undefined {
  p = skipWs(t, p + 1);
  while (p < t.length && t.charCodeAt(p) === QUOTE) {
    const keyEnd = skipString(t, p);
    const key: Span = { start: p, end: keyEnd };
    p = skipWs(t, keyEnd);
    if (t.charCodeAt(p) !== COLON) return undefined;
    const valueStart = skipWs(t, p + 1);
    // JSON.parse keeps the last of repeated keys; we stop at the first, because scanning on would
    // cost a pass over the rest of the line for every lookup and repeated keys are rare.
    if (readKey(t, key.start, key.end) === name) return { key, valueStart };
    p = skipWs(t, skipValue(t, valueStart));
    if (t.charCodeAt(p) !== COMMA) return undefined;
    p = skipWs(t, p + 1);
  }
  return undefined;
}

/** Finds element `index` of the array whose `[` is at `p`; returns its start. */
function findElement(t: string, p: number, index: number): number | undefined {
  p = skipWs(t, p + 1);
  for (let i = 0; p < t.length && t.charCodeAt(p) !== RBRACKET; i++) {
    if (i === index) return p;
    p = skipWs(t, skipValue(t, p));
    if (t.charCodeAt(p) !== COMMA) return undefined;
    p = skipWs(t, p + 1);
  }
  return undefined;
}

/** How far a key path was found: the depth reached, the last key found and where its value starts. */
export interface Descent {
  readonly depth: number;
  readonly key: Span | undefined;
  readonly start: number;
}

/**
 * Follows a key path from the value at `from` in a text that is valid JSON, as far as it exists.
 * It computes no value ends, so callers that only need a key or a start pay for no skipping.
 */
export function descend(t: string, path: readonly (string | number)[], from = 0): Descent {
  let depth = 0;
  let key: Span | undefined;
  let start = skipWs(t, from);
  for (const segment of path) {
    const c = t.charCodeAt(start);
    if (c === LBRACE) {
      const member = findMember(t, start, String(segment));
      if (member === undefined) break;
      key = member.key;
      start = member.valueStart;
    } else if (c === LBRACKET) {
      const index = typeof segment === 'number' ? segment : Number(segment);
      const element = Number.isInteger(index) ? findElement(t, start, index) : undefined;
      if (element === undefined) break;
      key = undefined;
      start = element;
    } else break;
    depth++;
  }
  return { depth, key, start };
}

/**
 * Locates a key path in a text that is valid JSON. When the path does not exist (a missing key),
 * the deepest ancestor that does is returned, with `depth` saying how far the path was found.
 */
export function locate(t: string, path: readonly (string | number)[], from = 0): Located {
  const { depth, key, start } = descend(t, path, from);
  return { depth, key, value: { start, end: depth === 0 && from === 0 ? trimmedEnd(t) : skipValue(t, start) } };
}

/** The end of a text without its trailing white space: where a valid JSON line's root value ends. */
function trimmedEnd(t: string): number {
  let end = t.length;
  while (end > 0 && isWs(t.charCodeAt(end - 1))) end--;
  return end;
}

function describeChar(t: string, p: number): string {
  if (p >= t.length) return 'end of line';
  const code = t.codePointAt(p) ?? 0;
  if (code < 0x20 || code === 0x7f || code === 0xfffd || code > 0x7e) {
    return `character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${String.fromCodePoint(code)}'`;
}

/** Scans a JSON string from its opening quote, checking escapes and control characters. */
function scanString(t: string, p: number): number | SyntaxProblem {
  for (let q = p + 1; q < t.length; q++) {
    const c = t.charCodeAt(q);
    if (c === QUOTE) return q + 1;
    if (c < 0x20) return { offset: q, message: `Unescaped ${describeChar(t, q)} inside a string; write it as an escape such as \\n or \\u00XX.` };
    if (c === BACKSLASH) {
      const e = t.charAt(q + 1);
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(t.slice(q + 2, q + 6))) return { offset: q, message: 'Invalid \\u escape: it needs four hexadecimal digits.' };
        q += 5;
      } else if ('"\\/bfnrt'.includes(e) && e !== '') q += 1;
      else return { offset: q, message: `Invalid escape '\\${e}' in a string.` };
    }
  }
  return { offset: t.length, message: `Unterminated string that starts at column ${p + 1}: a closing '"' is missing.` };
}

const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function scanScalar(t: string, p: number): number | SyntaxProblem {
  const c = t.charAt(p);
  if (c === '"') return scanString(t, p);
  for (const literal of ['true', 'false', 'null']) {
    if (t.startsWith(literal, p)) return p + literal.length;
  }
  if (c === '-' || (c >= '0' && c <= '9')) {
    numberPattern.lastIndex = p;
    if (numberPattern.test(t)) return numberPattern.lastIndex;
    return { offset: p, message: 'Invalid number.' };
  }
  if (c === "'") return { offset: p, message: 'Strings must use double quotes, not single quotes.' };
  return { offset: p, message: `Expected a value but found ${describeChar(t, p)}.` };
}

/**
 * Finds the first syntax error of a JSON text, or undefined when it has none. Iterative: the only
 * state is a stack of open containers.
 */
export function findSyntaxError(t: string, from = 0): SyntaxProblem | undefined {
  const open: number[] = [];
  let p = skipWs(t, from);
  if (p >= t.length) return { offset: p, message: 'Expected a JSON value but the line is empty.' };
  for (;;) {
    // Here a value is expected at `p`.
    p = skipWs(t, p);
    const c = t.charCodeAt(p);
    if (p >= t.length) return { offset: p, message: 'Unexpected end of line: a value is missing.' };
    if (c === LBRACE || c === LBRACKET) {
      open.push(c);
      p = skipWs(t, p + 1);
      const close = c === LBRACE ? RBRACE : RBRACKET;
      if (t.charCodeAt(p) === close) {
        open.pop();
        p += 1;
      } else if (c === LBRACE) {
        const afterKey = scanKey(t, p);
        if (typeof afterKey !== 'number') return afterKey;
        p = afterKey;
        continue;
      } else continue;
    } else if (c === RBRACE || c === RBRACKET) {
      return {
        offset: p,
        message: open.length > 0 ? `Unexpected ${describeChar(t, p)}: remove the trailing comma before it.` : `Unexpected ${describeChar(t, p)}.`,
      };
    } else {
      const end = scanScalar(t, p);
      if (typeof end !== 'number') return end;
      p = end;
    }
    // Here a value has ended; close containers or move to the next member.
    for (;;) {
      p = skipWs(t, p);
      const top = open[open.length - 1];
      if (top === undefined) {
        return p < t.length
          ? { offset: p, message: `Unexpected ${describeChar(t, p)} after the JSON value; each line must hold exactly one value.` }
          : undefined;
      }
      const d = t.charCodeAt(p);
      const close = top === LBRACE ? RBRACE : RBRACKET;
      if (d === close) {
        open.pop();
        p += 1;
        continue;
      }
      if (d !== COMMA) {
        if (p >= t.length) return { offset: p, message: `Unexpected end of line: '${top === LBRACE ? '}' : ']'}' is missing.` };
        return { offset: p, message: `Expected ',' or '${top === LBRACE ? '}' : ']'}' but found ${describeChar(t, p)}.` };
      }
      p = skipWs(t, p + 1);
      if (top === LBRACE) {
        const afterKey = scanKey(t, p);
        if (typeof afterKey !== 'number') return afterKey;
        p = afterKey;
      }
      break;
    }
  }
}

/** Scans `"key" :` and returns the offset of the value after it. */
function scanKey(t: string, p: number): number | SyntaxProblem {
  const c = t.charCodeAt(p);
  if (c === RBRACE) return { offset: p, message: "Unexpected '}': remove the trailing comma before it." };
  if (c !== QUOTE) {
    if (p >= t.length) return { offset: p, message: "Unexpected end of line: '}' is missing." };
    return { offset: p, message: `Expected a property name in double quotes but found ${describeChar(t, p)}.` };
  }
  const end = scanString(t, p);
  if (typeof end !== 'number') return end;
  const colon = skipWs(t, end);
  if (t.charCodeAt(colon) !== COLON) return { offset: colon, message: `Expected ':' after the property name but found ${describeChar(t, colon)}.` };
  return colon + 1;
}
