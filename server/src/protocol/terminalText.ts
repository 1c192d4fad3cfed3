/**
 * Text from a dataset, a model reply or a trajectory made safe to print: the boundary between our
 * processes and a person's terminal (the `gp` CLI, the extension's terminals, the editor). A terminal acts on control
 * characters: ESC starts sequences that clear the screen, set the window title or write the
 * clipboard (OSC 52), a carriage return overwrites what a line showed, and bidirectional overrides
 * make a line read differently from what it holds. So before such text reaches a terminal (or an
 * id reaches a file name), each of these characters is shown as a visible escape (`\x1b`,
 * `\u202e`) instead of being sent as it is.
 */

/**
 * The characters a terminal or a text renderer acts on, as the body of a regular-expression class
 * (escapes only, so it also serves as a JSON Schema pattern): C0 controls, DEL, C1 controls, the
 * bidirectional marks, embeddings, overrides and isolates, and the line and paragraph separators.
 */
export const controlCharacterClass = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';

/** Every control character, tab and newline included: text that must stay on one line (an id, a key, a name). */
const controlsOneLine = new RegExp(`[${controlCharacterClass}]`, 'gu');

/** The same but tab and newline, which a reply or a log of several lines keeps. */
const controls = new RegExp(`(?![\\t\\n])[${controlCharacterClass}]`, 'gu');

function escape(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character shown as an escape; tabs and newlines are kept (a reply or a
 * log is several lines), and so is a carriage return before a newline (a CRLF file's line end),
 * which cannot overwrite anything.
 */
export function visibleText(text: string): string {
  return text.replace(controls, (char, offset: number) => (char === '\r' && text[offset + 1] === '\n' ? char : escape(char)));
}

/**
 * The colours `gp` itself paints with (SGR: reset, bold, dim, red, green, yellow, magenta, cyan,
 * grey). They only colour text, so they may pass; every other escape sequence may not.
 */
// eslint-disable-next-line no-control-regex
const ownColours = /\u001b\[(?:0|1|2|31|32|33|35|36|90)m/g;

/**
 * What `gp` writes to its stdout and stderr: `visibleText`, except for the colours it paints
 * itself. Applied once where the CLI writes (cli/main.ts), so no command's data can act on the
 * terminal, whichever command prints it.
 */
export function terminalSafe(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(ownColours)) {
    out += visibleText(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return out + visibleText(text.slice(last));
}

/** `text` on one line with every control character, tab and newline included, shown as an escape. */
export function visibleLine(text: string): string {
  return text.replace(controlsOneLine, escape);
}

/** The first control character in `text` (tab and newline included) and its index, if any. */
export function firstControlCharacter(text: string): { char: string; index: number; shown: string } | undefined {
  // `search` ignores the expression's global state; every character of the class is one UTF-16 unit.
  const index = text.search(controlsOneLine);
  const char = text[index];
  return char === undefined ? undefined : { char, index, shown: escape(char) };
}
