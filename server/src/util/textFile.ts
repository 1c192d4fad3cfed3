/**
 * Is this file text at all? A config or dataset check that runs its parser over a binary file
 * reports hundreds of findings (one per "line" of noise) and buries the one that matters, and an
 * empty file passes without a word. Checks classify the file first: empty, blank (only
 * whitespace), binary (a NUL byte, which text never contains, or a UTF-16 byte-order mark), not
 * UTF-8 (text in another encoding, or a binary file without a NUL in it), or text. Only binary
 * files stop a check: text in another encoding still parses, and the checks report each
 * undecodable byte where it is. The classification works on bytes where the caller has them (the
 * CLI reading from disk) and on decoded text where it does not (the language server), where an
 * undecodable byte has already become U+FFFD.
 */

/** Why a file is binary, and where its first offending byte is. */
export interface NotText {
  readonly kind: 'nul' | 'utf16';
  /** Byte offset of the first offending byte in the file (0-based): a NUL, or one that is not UTF-8. */
  readonly byteOffset: number;
  /** Byte offset of the first NUL, when the file has one. */
  readonly nulOffset?: number;
  /** Offset of the first offending character in the decoded text, for locating it in an editor. */
  readonly charOffset: number;
}

export type TextClass =
  | { readonly kind: 'empty' }
  | { readonly kind: 'blank' }
  | { readonly kind: 'text' }
  | { readonly kind: 'not-text'; readonly problem: NotText }
  /** Offsets of the first byte that is not UTF-8 (in a decoded text: the first U+FFFD). */
  | { readonly kind: 'not-utf8'; readonly byteOffset: number; readonly charOffset: number };

/**
 * The offset of the first byte that does not belong to a well-formed UTF-8 sequence, or -1 when all
 * are valid. Overlong forms, surrogates and code points above U+10FFFF count as invalid, as they do
 * for a fatal `TextDecoder`. With `truncated` (the bytes are a prefix of a longer file), a sequence
 * cut off by the end of the bytes is not counted, because the rest of it follows.
 */
export function firstInvalidUtf8(bytes: Uint8Array, truncated = false): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return truncated ? -1 : i;
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

function isBlankText(text: string): boolean {
  return /^[\s\uFEFF]*$/.test(text);
}

/** The decoded length of `bytes[0, offset)`, whose bytes are valid UTF-8. */
function charOffsetOf(bytes: Uint8Array, offset: number): number {
  return new TextDecoder().decode(bytes.subarray(0, offset)).length;
}

/**
 * Classifies raw bytes. With `truncated`, the bytes are the first part of a longer file (a sample),
 * so a multi-byte character cut off at the end is not an error and the file is not empty.
 */
export function classifyBytes(bytes: Uint8Array, truncated = false): TextClass {
  if (bytes.length === 0) return { kind: truncated ? 'text' : 'empty' };
  // A UTF-16 byte-order mark: the file is text, but in an encoding no check here reads.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { kind: 'not-text', problem: { kind: 'utf16', byteOffset: 0, charOffset: 0 } };
  }
  const invalid = firstInvalidUtf8(bytes, truncated);
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    const first = invalid < 0 ? nul : Math.min(nul, invalid);
    return { kind: 'not-text', problem: { kind: 'nul', byteOffset: first, charOffset: charOffsetOf(bytes, first), nulOffset: nul } };
  }
  if (invalid >= 0) return { kind: 'not-utf8', byteOffset: invalid, charOffset: charOffsetOf(bytes, invalid) };
  if (truncated) return { kind: 'text' };
  return isBlankText(new TextDecoder().decode(bytes)) ? { kind: 'blank' } : { kind: 'text' };
}

/**
 * Classifies decoded text. A U+FFFD counts as an undecodable byte: text that reaches us decoded
 * (an editor buffer, `readFile(…, 'utf8')`) has lost the difference, and a real U+FFFD in a config
 * or dataset is far rarer than a file in the wrong encoding.
 */
export function classifyText(text: string): TextClass {
  if (text.length === 0) return { kind: 'empty' };
  const nul = text.indexOf('\0');
  const bad = text.indexOf('\uFFFD');
  const first = nul >= 0 && (bad < 0 || nul < bad) ? nul : bad;
  if (first < 0) return isBlankText(text) ? { kind: 'blank' } : { kind: 'text' };
  const bytesBefore = (end: number) => new TextEncoder().encode(text.slice(0, end)).length;
  const byteOffset = bytesBefore(first);
  if (nul < 0) return { kind: 'not-utf8', byteOffset, charOffset: first };
  return { kind: 'not-text', problem: { kind: 'nul', byteOffset, charOffset: first, nulOffset: nul === first ? byteOffset : bytesBefore(nul) } };
}

/**
 * One sentence a person can act on: what is wrong, where, and what to do. `what` names what the
 * file should have been ("an experiment YAML", "a dataset JSONL file").
 */
export function describeNotText(problem: NotText, what: string): string {
  const at = `byte ${problem.byteOffset}`;
  switch (problem.kind) {
    case 'utf16':
      return `This file is UTF-16 (it starts with a UTF-16 byte-order mark), and ${what} must be UTF-8; save it as UTF-8 (for example \`iconv -f utf-16 -t utf-8\`). Nothing else was checked.`;
    case 'nul': {
      const first = problem.byteOffset === problem.nulOffset ? `${at} is a NUL byte` : `${at} is not UTF-8 and byte ${problem.nulOffset ?? '?'} is a NUL byte`;
      return `This is not a text file: ${first}, which text never contains. Check that you named the right file (${what} is UTF-8 text). Nothing else was checked.`;
    }
  }
}
