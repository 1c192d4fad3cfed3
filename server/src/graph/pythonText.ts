/**
 * Small readers of Python source slices that the tree walk hands over as text: import
 * statements, base-class lists, docstrings and one-line signatures. Reading a statement's text is
 * cheaper than visiting its nodes one by one from JavaScript, and these statements are few.
 */

/** An import statement, as written. */
export type RawImport =
  | {
      /** `import a.b` or `import a.b as c`. */
      readonly form: 'import';
      readonly module: string;
      readonly alias: string | undefined;
    }
  | {
      /** `from .a.b import c as d, e` (`*` for a star import). */
      readonly form: 'from';
      readonly module: string;
      /** Leading dots of a relative import; 0 for an absolute one. */
      readonly level: number;
      readonly names: ReadonlyArray<{ readonly name: string; readonly alias: string | undefined }>;
    };

const dottedName = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Comments, line continuations and parentheses out; whitespace collapsed to single spaces. */
function flatten(statement: string): string {
  return statement
    .replace(/#[^\n]*/g, ' ')
    .replace(/[()\\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function nameAndAlias(part: string): { name: string; alias: string | undefined } | undefined {
  const [name = '', as, alias] = part.trim().split(' ');
  if (name === '*') return { name, alias: undefined };
  if (!dottedName.test(name)) return undefined;
  return { name, alias: as === 'as' && alias !== undefined && dottedName.test(alias) ? alias : undefined };
}

/** Reads `import …` and `from … import …` statements; anything else gives an empty list. */
export function parseImportStatement(statement: string): RawImport[] {
  const flat = flatten(statement);
  const from = /^from (\.*) ?([A-Za-z0-9_.]*) import (.+)$/.exec(flat);
  if (from !== null) {
    const [, dots = '', module = '', list = ''] = from;
    if (module !== '' && !dottedName.test(module)) return [];
    const names = list.split(',').flatMap((part) => nameAndAlias(part) ?? []);
    return [{ form: 'from', module, level: dots.length, names }];
  }
  const plain = /^import (.+)$/.exec(flat);
  if (plain === null) return [];
  return (plain[1] ?? '').split(',').flatMap((part) => {
    const parsed = nameAndAlias(part);
    return parsed === undefined || parsed.name === '*' ? [] : [{ form: 'import' as const, module: parsed.name, alias: parsed.alias }];
  });
}

/**
 * The base classes in a class header's argument list (`(A, mod.B, Generic[T], metaclass=M)` →
 * `A`, `mod.B`, `Generic`): keyword arguments and unpacking are left out, subscripts cut off.
 */
export function baseNames(argumentList: string): string[] {
  const inner = flatten(argumentList.replace(/^\(|\)$/g, ''));
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  const take = (end: number) => {
    const part = inner.slice(start, end).trim();
    const name = part.replace(/\s*\[.*$/, '').replace(/\s+/g, '');
    if (!part.includes('=') && !part.startsWith('*') && dottedName.test(name)) out.push(name);
  };
  for (let i = 0; i < inner.length; i += 1) {
    const c = inner[i];
    if (c === '[' || c === '{') depth += 1;
    else if (c === ']' || c === '}') depth -= 1;
    else if (c === ',' && depth === 0) {
      take(i);
      start = i + 1;
    }
  }
  take(inner.length);
  return out;
}

const stringOpening = /^([rRbBuUfF]*)('''|"""|'|")/;

/**
 * The text of a string literal used as a docstring, without prefix and quotes, or undefined for
 * byte strings and f-strings (which Python does not take as docstrings).
 */
export function docstringText(literal: string): string | undefined {
  const opening = stringOpening.exec(literal);
  if (opening === null) return undefined;
  const [whole, prefix = '', quote = ''] = opening;
  if (/[bBfF]/.test(prefix)) return undefined;
  const body = literal.slice(whole.length);
  return body.endsWith(quote) ? body.slice(0, body.length - quote.length) : body;
}

/** The first non-blank line of a docstring, trimmed (as `inspect.cleandoc` would start it). */
export function firstLine(doc: string): string | undefined {
  for (const line of doc.split('\n')) {
    const trimmed = line.trim();
    if (trimmed !== '') return trimmed;
  }
  return undefined;
}

const signatureLimit = 240;
const untidy = /\s\s|[\n\r\t#]|[([] | [)\]]|^\s|\s$/;

/** A header squeezed onto one line: comments out, whitespace collapsed, capped in length. */
export function oneLine(text: string): string {
  // Most headers are one tidy line already.
  if (text.length <= signatureLimit && !untidy.test(text)) return text;
  // A comment inside a header ends its line, so only a header that spans lines can hold one.
  const flat = (text.includes('#') && text.includes('\n') ? text.replace(/#[^\n]*/g, '') : text)
    .replace(/\s+/g, ' ')
    .replace(/([([]) /g, '$1')
    .replace(/ ([)\]])/g, '$1')
    .trim();
  return flat.length > signatureLimit ? `${flat.slice(0, signatureLimit - 1)}…` : flat;
}

/** A `def`/`class` header read from its text (decorators excluded, up to the body). */
export interface Header {
  readonly isAsync: boolean;
  readonly name: string;
  /** `(a, b=1)` for a function, `(Base, metaclass=M)` for a class, `''` when absent. */
  readonly parentheses: string;
  /** After `->`, without the colon; `''` when absent. */
  readonly returnType: string;
}

const headerStart = /^\s*(async\s+)?(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)/;

/** Offset just past the string literal opening at `i` (with quote `quote`), or the text's length. */
function stringEnd(text: string, i: number, quote: string): number {
  const triple = text.startsWith(quote.repeat(3), i);
  const closing = triple ? quote.repeat(3) : quote;
  for (let k = i + closing.length; k < text.length; k += 1) {
    const c = text[k];
    if (c === '\\') k += 1;
    else if (!triple && c === '\n') return k;
    else if (c === quote && text.startsWith(closing, k)) return k + closing.length;
  }
  return text.length;
}

/**
 * Reads a header: the name, the bracketed part after it (skipping `[T]` type parameters), and the
 * return annotation up to the colon that ends the header at bracket depth 0, strings and comments
 * stepped over.
 */
export function parseHeader(header: string): Header | undefined {
  const start = headerStart.exec(header);
  if (start === null) return undefined;
  let depth = 0;
  let open = -1;
  let close = -1;
  let arrow = -1;
  let colon = header.length;
  for (let i = start[0].length; i < header.length; i += 1) {
    const c = header[i];
    if (c === '"' || c === "'") i = stringEnd(header, i, c) - 1;
    else if (c === '#') {
      const eol = header.indexOf('\n', i);
      i = eol < 0 ? header.length : eol;
    } else if (c === '(' || c === '[' || c === '{') {
      if (c === '(' && depth === 0 && open < 0) open = i;
      depth += 1;
    } else if (c === ')' || c === ']' || c === '}') {
      depth -= 1;
      if (c === ')' && depth === 0 && open >= 0 && close < 0) close = i;
    } else if (depth === 0 && c === '-' && header[i + 1] === '>') arrow = i;
    else if (depth === 0 && c === ':') {
      colon = i;
      break;
    }
  }
  return {
    isAsync: start[1] !== undefined,
    name: start[2] ?? '',
    parentheses: open >= 0 && close > open ? header.slice(open, close + 1) : '',
    returnType: arrow >= 0 && arrow < colon ? header.slice(arrow + 2, colon).trim() : '',
  };
}

const docstringOpening = /(?:[rRuU]|[uU][rR]|[rR][uU])?('''|"""|'|")/y;

/** Offset of the first statement at or after `i`: blank space and comment lines skipped. */
export function skipBlankAndComments(text: string, i: number): number {
  let k = i;
  for (;;) {
    while (k < text.length && /\s/.test(text[k] ?? '')) k += 1;
    if (text[k] !== '#') return k;
    const eol = text.indexOf('\n', k);
    if (eol < 0) return text.length;
    k = eol;
  }
}

/**
 * The string literal that is a docstring when a body (or module) starts at `i`: a plain or raw
 * string standing as its own statement (followed by the end of the line, a comment, `;`, or another
 * literal it is concatenated with). Byte strings and f-strings are not docstrings.
 */
export function docstringLiteralAt(text: string, i: number): string | undefined {
  const start = skipBlankAndComments(text, i);
  docstringOpening.lastIndex = start;
  const opening = docstringOpening.exec(text);
  if (opening === null) return undefined;
  const quotes = opening[1] ?? '"';
  const end = stringEnd(text, start + opening[0].length - quotes.length, quotes.charAt(0));
  let k = end;
  while (text[k] === ' ' || text[k] === '\t') k += 1;
  const next = text[k];
  const alone = next === undefined || next === '\n' || next === '\r' || next === '#' || next === ';' || next === '"' || next === "'" || next === '\\';
  return alone ? text.slice(start, end) : undefined;
}
