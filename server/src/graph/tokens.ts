/**
 * Words for search and localisation: identifiers split into sub-words (`parse_http_response`,
 * `parseHTTPResponse` → `parse`, `http`, `response`, plus the whole name), English stop words,
 * and the Python names too common to point anywhere by themselves.
 */

/** Python keywords and the receiver names, which say nothing about what code does. */
export const pythonKeywords: ReadonlySet<string> = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case self cls'.split(
    ' ',
  ),
);

/** Python's builtins: a call to one of these is not a call to a same-named function of the repository. */
export const pythonBuiltins: ReadonlySet<string> = new Set(
  (
    'abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir divmod ' +
    'enumerate eval exec filter float format frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len ' +
    'list locals map max memoryview min next object oct open ord pow print property range repr reversed round set setattr slice sorted ' +
    'staticmethod str sum super tuple type vars zip __import__ Exception BaseException ValueError TypeError KeyError IndexError ' +
    'AttributeError RuntimeError NotImplementedError StopIteration OSError IOError AssertionError ImportError LookupError ' +
    'ArithmeticError ZeroDivisionError UnicodeError UnicodeDecodeError UnicodeEncodeError Warning DeprecationWarning UserWarning ' +
    'NotImplemented Ellipsis'
  ).split(' '),
);

/**
 * Method names of builtin types and the standard library that a call on an unknown receiver
 * (`x.get(…)`) most likely means; they never resolve by name alone.
 */
export const commonMethodNames: ReadonlySet<string> = new Set(
  (
    'get set add append extend insert remove pop clear copy update keys values items join split strip lstrip rstrip replace ' +
    'startswith endswith lower upper format encode decode read write close open seek flush readline readlines find index count ' +
    'sort reverse setdefault fromkeys group match search sub send put run start stop wait acquire release call apply ' +
    'next iter len str repr hash eq lt gt le ge'
  ).split(' '),
);

/** Definition names too common to anchor on when an issue mentions them without backticks. */
export const commonDefinitionNames: ReadonlySet<string> = new Set(
  'get set test main run setup teardown setUp tearDown init call new str repr len iter next add update close open read write start stop load save parse format copy name value data info error debug warn log'.split(
    ' ',
  ),
);

/** English words that carry no meaning for search. */
export const stopWords: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could did do does doing for from had has have how i if in into is it its me my no not of ' +
    'on or our should so such than that the their them then there these they this those to too was we were what when where which ' +
    'while who why will with would you your also just only very any all some more most other same after before again further once ' +
    'here both each few nor own over under up down out off about above below between through during am being were s t e g ie eg'
  ).split(' '),
);

const identifierPattern = /[A-Za-z_][A-Za-z0-9_]*|[0-9]+/g;
const subWordPattern = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
const plainLower = /^[a-z][a-z0-9]*$/;

/** Lower-cased sub-words of one identifier; the whole name comes first when it has several. */
export function splitIdentifier(identifier: string): string[] {
  // Most identifiers are plain lower case: no sub-words to find.
  if (plainLower.test(identifier)) return [identifier];
  const whole = identifier.toLowerCase().replace(/^_+|_+$/g, '');
  const parts = identifier.match(subWordPattern) ?? [];
  if (parts.length <= 1) return whole === '' ? [] : [whole];
  const out = [whole];
  for (const part of parts) out.push(part.toLowerCase());
  return out;
}

/**
 * Turns identifiers into search terms, remembering each identifier's terms: a repository repeats
 * its identifiers many times. One instance per graph, so the memory goes with the graph.
 */
export class Terms {
  private readonly cache = new Map<string, readonly string[]>();

  /** Terms of one identifier (sub-words and the whole name), stop words and single letters left out. */
  ofIdentifier(identifier: string): readonly string[] {
    let terms = this.cache.get(identifier);
    if (terms === undefined) {
      terms = splitIdentifier(identifier).filter((t) => t.length > 1 && !stopWords.has(t));
      this.cache.set(identifier, terms);
    }
    return terms;
  }

  /** Terms of free text (a query, a docstring, a path): every word split as an identifier. */
  ofText(text: string, out: string[] = []): string[] {
    for (const word of text.match(identifierPattern) ?? []) {
      for (const term of this.ofIdentifier(word)) out.push(term);
    }
    return out;
  }
}
