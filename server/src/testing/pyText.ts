/**
 * Python's string rules where the harness's parsers rely on them, so our ports of those parsers
 * (docs/upstream-contracts.md#swe-bench-grading) cut lines exactly where the harness does.
 * JavaScript's `\s`, `\d` and `trim` differ from Python's `str.split()`, `\d` and `str.strip()`
 * on a few characters (Python's whitespace includes U+001C–U+001F and U+0085, JavaScript's
 * includes U+FEFF; Python's `\d` is every decimal digit of Unicode).
 */

/** The characters `str.isspace()` accepts, as a regular-expression class body. */
export const pyWhitespace = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

const runs = new RegExp(`[${pyWhitespace}]+`);
const leading = new RegExp(`^[${pyWhitespace}]+`);
const trailing = new RegExp(`[${pyWhitespace}]+$`);

/** `text.split()`: the words between runs of whitespace, none empty. */
export function pySplit(text: string): string[] {
  return text.split(runs).filter((word) => word !== '');
}

/** `text.strip()`. */
export function pyStrip(text: string): string {
  return text.replace(leading, '').replace(trailing, '');
}

/** `text.lstrip()`. */
export function pyLstrip(text: string): string {
  return text.replace(leading, '');
}

/** `text.split(separator, 1)[0]`, and `text.split(separator)[0]`, which is the same. */
export function beforeFirst(text: string, separator: string): string {
  const at = text.indexOf(separator);
  return at === -1 ? text : text.slice(0, at);
}

/** `text.rsplit(separator, 1)[0]`. */
export function beforeLast(text: string, separator: string): string {
  const at = text.lastIndexOf(separator);
  return at === -1 ? text : text.slice(0, at);
}

const decimalDigit = /^\p{Nd}$/u;

/**
 * `int(text)` for a run of Unicode decimal digits with an optional minus sign, as Python reads
 * `-?\d+`. Unicode encodes each script's digits 0 to 9 in a contiguous run, so a digit's value is
 * its distance from the start of its run, modulo ten for scripts whose runs adjoin.
 */
export function pyInt(text: string): number {
  const negative = text.startsWith('-');
  let value = 0;
  for (const ch of negative ? text.slice(1) : text) {
    const code = ch.codePointAt(0) ?? 0;
    let start = code;
    while (start > 0 && decimalDigit.test(String.fromCodePoint(start - 1))) start -= 1;
    value = value * 10 + ((code - start) % 10);
  }
  return negative ? -value : value;
}
