/**
 * BERT's WordPiece tokenizer, as Hugging Face `tokenizers` runs a `tokenizer.json` made of a
 * `BertNormalizer`, a `BertPreTokenizer`, a `WordPiece` model and the `[CLS] $A [SEP]` template.
 * The sentence-embedding model (`embedder.ts`) was trained on ids from that implementation, so this
 * one follows it character for character rather than the original Python BERT code, which differs
 * at the edges (it treats only category Zs as whitespace, and lower-cases a final sigma in context):
 *
 * 1. Special tokens such as `[SEP]` are found in the raw text first, case-sensitively, and become
 *    their ids whatever surrounds them.
 * 2. Normalisation: control characters, NUL and U+FFFD are dropped and every other white-space
 *    character becomes a space; CJK ideographs get a space either side; accents are stripped
 *    (NFD, then nonspacing marks removed); then each character is lower-cased on its own.
 * 3. Pre-tokenisation: split on white space, and each punctuation character (ASCII punctuation
 *    or Unicode category P) becomes a word of its own.
 * 4. WordPiece: greedy longest match first, continuation pieces prefixed with `##`; a word with
 *    no full cover, or longer than 100 characters, becomes `[UNK]`.
 *
 * Character classes come from V8's Unicode data, and `tokenizers` carries older tables: the 671
 * code points that later Unicode versions assigned or re-categorised (marks and punctuation of
 * recently encoded scripts) can tokenize differently. Compared on 6,394 texts (the standard
 * library's Python and random mixes of 17 Unicode blocks), the ids differed nowhere else.
 */
import { z } from 'zod';
import { errorMessage } from '../util/errors.js';

/**
 * Tokens per text, `[CLS]` and `[SEP]` included. The model accepts 512 and was tuned on 128; the
 * texts we embed (a signature and a docstring, or an issue's first lines) mostly fit in 128, and
 * attention's cost grows with the square of the length, so longer texts would cost much more for
 * the tail that matters least.
 */
export const defaultMaxTokens = 128;

export interface WordPieceOptions {
  readonly lowercase: boolean;
  readonly stripAccents: boolean;
  readonly cleanText: boolean;
  readonly handleChineseChars: boolean;
  readonly unkToken: string;
  readonly clsToken: string;
  readonly sepToken: string;
  readonly padToken: string;
  readonly continuingSubwordPrefix: string;
  readonly maxInputCharsPerWord: number;
  /** Tokens matched verbatim in the raw text before normalisation. */
  readonly specialTokens: readonly string[];
}

export const bertUncasedOptions: WordPieceOptions = {
  lowercase: true,
  stripAccents: true,
  cleanText: true,
  handleChineseChars: true,
  unkToken: '[UNK]',
  clsToken: '[CLS]',
  sepToken: '[SEP]',
  padToken: '[PAD]',
  continuingSubwordPrefix: '##',
  maxInputCharsPerWord: 100,
  specialTokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'],
};

/** Encoded texts padded to one width, as the model's int64 inputs (row-major). */
export interface TokenBatch {
  readonly rows: number;
  readonly width: number;
  readonly inputIds: BigInt64Array;
  readonly attentionMask: BigInt64Array;
  readonly tokenTypeIds: BigInt64Array;
}

/** Words are cached with their pieces; code repeats identifiers, so most words are seen before. */
const wordCacheLimit = 200_000;
const asciiPrintable = /^[\x20-\x7e]*$/;
const asciiPunctuation = /^[!-/:-@[-`{-~]$/;
const unicodePunctuation = /^\p{P}$/u;
const whiteSpace = /^\p{White_Space}$/u;
// Control, format and private-use characters; unassigned code points are kept, as `tokenizers` does.
const controlCategory = /^[\p{Cc}\p{Cf}\p{Co}\p{Cs}]$/u;
const nonspacingMarks = /\p{Mn}/gu;

export class WordPieceTokenizer {
  private readonly unkId: number;
  private readonly clsId: number;
  private readonly sepId: number;
  readonly padId: number;
  private readonly specialIds = new Map<string, number>();
  private readonly specialPattern: RegExp | undefined;
  private readonly pieceCache = new Map<string, readonly number[]>();
  /** Id → token, built on the first `tokenize`. */
  private tokens: Map<number, string> | undefined;

  /** Throws when a token the options name is not in the vocabulary: callers build from checked files. */
  constructor(
    private readonly vocab: ReadonlyMap<string, number>,
    private readonly options: WordPieceOptions = bertUncasedOptions,
  ) {
    this.unkId = this.required(options.unkToken);
    this.clsId = this.required(options.clsToken);
    this.sepId = this.required(options.sepToken);
    this.padId = this.required(options.padToken);
    for (const token of options.specialTokens) this.specialIds.set(token, this.required(token));
    // Longest first, so that of two special tokens starting at one place the longer wins.
    const alternatives = [...this.specialIds.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.specialPattern = alternatives.length > 0 ? new RegExp(alternatives.join('|'), 'g') : undefined;
  }

  /** `[CLS]`, the text's pieces cut to fit, `[SEP]`: at most `maxLength` ids. */
  encode(text: string, maxLength: number = defaultMaxTokens): number[] {
    if (!Number.isInteger(maxLength) || maxLength < 2) throw new Error(`maxLength must be an integer of at least 2, got ${maxLength}`);
    const ids = [this.clsId];
    const limit = maxLength - 1;
    // Words past the limit are never looked up; a long docstring costs its normalisation only.
    fill: for (const segment of this.segments(text)) {
      if (typeof segment === 'number') ids.push(segment);
      else {
        for (const word of preTokenize(normalise(segment, this.options))) {
          for (const id of this.pieces(word)) ids.push(id);
          if (ids.length >= limit) break fill;
        }
      }
      if (ids.length >= limit) break;
    }
    ids.length = Math.min(ids.length, limit);
    ids.push(this.sepId);
    return ids;
  }

  /** The pieces of a text as strings, without `[CLS]` and `[SEP]` and uncut. */
  tokenize(text: string): string[] {
    this.tokens ??= new Map([...this.vocab].map(([token, id]) => [id, token]));
    const byId = this.tokens;
    const ids = this.encode(text, Number.MAX_SAFE_INTEGER).slice(1, -1);
    return ids.map((id) => byId.get(id) ?? this.options.unkToken);
  }

  /** Pads encoded texts to the longest with `[PAD]`, masked out; every token type is 0. */
  batch(encodings: readonly (readonly number[])[]): TokenBatch {
    const rows = encodings.length;
    const width = encodings.reduce((most, ids) => Math.max(most, ids.length), 0);
    const inputIds = new BigInt64Array(rows * width).fill(BigInt(this.padId));
    const attentionMask = new BigInt64Array(rows * width);
    encodings.forEach((ids, row) => {
      ids.forEach((id, column) => {
        inputIds[row * width + column] = BigInt(id);
        attentionMask[row * width + column] = 1n;
      });
    });
    return { rows, width, inputIds, attentionMask, tokenTypeIds: new BigInt64Array(rows * width) };
  }

  private required(token: string): number {
    const id = this.vocab.get(token);
    if (id === undefined) throw new Error(`the vocabulary has no ${token}`);
    return id;
  }

  /** The text split around special tokens: their ids, and the plain text between them. */
  private *segments(text: string): Generator<string | number> {
    if (this.specialPattern === undefined) {
      yield text;
      return;
    }
    let from = 0;
    for (const match of text.matchAll(this.specialPattern)) {
      if (match.index > from) yield text.slice(from, match.index);
      const id = this.specialIds.get(match[0]);
      if (id !== undefined) yield id;
      from = match.index + match[0].length;
    }
    if (from < text.length) yield text.slice(from);
  }

  private pieces(word: string): readonly number[] {
    let ids = this.pieceCache.get(word);
    if (ids === undefined) {
      ids = wordPieces(word, this.vocab, this.options) ?? [this.unkId];
      if (this.pieceCache.size >= wordCacheLimit) this.pieceCache.clear();
      this.pieceCache.set(word, ids);
    }
    return ids;
  }
}

/** Step 2 above. ASCII text takes a short path: it has no accents, CJK or odd white space. */
export function normalise(text: string, options: WordPieceOptions): string {
  if (asciiPrintable.test(text)) return options.lowercase ? text.toLowerCase() : text;
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    if (options.cleanText) {
      if (code === 0 || code === 0xfffd || isControl(c)) continue;
      if (isWhiteSpace(c)) {
        out += ' ';
        continue;
      }
    }
    out += options.handleChineseChars && isChineseChar(code) ? ` ${c} ` : c;
  }
  if (options.stripAccents) out = out.normalize('NFD').replace(nonspacingMarks, '');
  // One character at a time, as `tokenizers` does: a whole-string lower-casing would turn a
  // final capital sigma into ς, which the model never saw.
  if (options.lowercase) {
    let lower = '';
    for (const c of out) lower += c.toLowerCase();
    out = lower;
  }
  return out;
}

/** Step 3 above. */
export function preTokenize(text: string): string[] {
  const words: string[] = [];
  let word = '';
  for (const c of text) {
    if (isWhiteSpace(c)) {
      if (word !== '') words.push(word);
      word = '';
    } else if (isPunctuation(c)) {
      if (word !== '') words.push(word);
      words.push(c);
      word = '';
    } else word += c;
  }
  if (word !== '') words.push(word);
  return words;
}

/** Step 4 above: the word's piece ids, or undefined when it must become `[UNK]`. */
function wordPieces(word: string, vocab: ReadonlyMap<string, number>, options: WordPieceOptions): number[] | undefined {
  const chars = Array.from(word);
  if (chars.length > options.maxInputCharsPerWord) return undefined;
  const ids: number[] = [];
  for (let start = 0; start < chars.length;) {
    let end = chars.length;
    let id: number | undefined;
    for (; end > start; end--) {
      const piece = chars.slice(start, end).join('');
      id = vocab.get(start > 0 ? options.continuingSubwordPrefix + piece : piece);
      if (id !== undefined) break;
    }
    if (id === undefined) return undefined;
    ids.push(id);
    start = end;
  }
  return ids;
}

/** Tab, newline and carriage return count as white space, not control. */
function isControl(c: string): boolean {
  return c !== '\t' && c !== '\n' && c !== '\r' && controlCategory.test(c);
}

function isWhiteSpace(c: string): boolean {
  return whiteSpace.test(c);
}

function isPunctuation(c: string): boolean {
  return asciiPunctuation.test(c) || unicodePunctuation.test(c);
}

/** The CJK ideograph blocks, as `tokenizers` lists them (Korean and kana are not among them). */
function isChineseChar(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x20000 && code <= 0x2a6df) ||
    (code >= 0x2a700 && code <= 0x2b73f) ||
    (code >= 0x2b740 && code <= 0x2b81f) ||
    (code >= 0x2b920 && code <= 0x2ceaf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x2f800 && code <= 0x2fa1f)
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The parts of a `tokenizer.json` this tokenizer reads; anything else there is rejected below. */
const tokenizerJsonSchema = z.object({
  added_tokens: z.array(z.object({ content: z.string(), special: z.boolean(), normalized: z.boolean() })).default([]),
  normalizer: z.object({
    type: z.literal('BertNormalizer'),
    clean_text: z.boolean(),
    handle_chinese_chars: z.boolean(),
    strip_accents: z.boolean().nullable(),
    lowercase: z.boolean(),
  }),
  pre_tokenizer: z.object({ type: z.literal('BertPreTokenizer') }),
  model: z.object({
    type: z.literal('WordPiece'),
    unk_token: z.string(),
    continuing_subword_prefix: z.string(),
    max_input_chars_per_word: z.number().int().positive(),
    vocab: z.record(z.string(), z.number().int().nonnegative()),
  }),
  post_processor: z.object({
    type: z.literal('TemplateProcessing'),
    single: z.tuple([
      z.object({ SpecialToken: z.object({ id: z.string() }) }),
      z.object({ Sequence: z.object({ id: z.literal('A') }) }),
      z.object({ SpecialToken: z.object({ id: z.string() }) }),
    ]),
  }),
  padding: z.object({ pad_token: z.string() }).nullable().default(null),
});

/**
 * A tokenizer from the text of a `tokenizer.json`, or why this module cannot run it (another
 * normaliser, pre-tokeniser, model or template than BERT's).
 */
export function parseTokenizerJson(text: string): { tokenizer: WordPieceTokenizer } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { error: `tokenizer.json is not JSON: ${errorMessage(error)}` };
  }
  const parsed = tokenizerJsonSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: `tokenizer.json is not a BERT WordPiece tokenizer: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'unknown shape'}` };
  }
  const json = parsed.data;
  const [cls, , sep] = json.post_processor.single;
  const options: WordPieceOptions = {
    lowercase: json.normalizer.lowercase,
    // Null means "as lowercase says", which is how BERT's uncased models were trained.
    stripAccents: json.normalizer.strip_accents ?? json.normalizer.lowercase,
    cleanText: json.normalizer.clean_text,
    handleChineseChars: json.normalizer.handle_chinese_chars,
    unkToken: json.model.unk_token,
    clsToken: cls.SpecialToken.id,
    sepToken: sep.SpecialToken.id,
    padToken: json.padding?.pad_token ?? '[PAD]',
    continuingSubwordPrefix: json.model.continuing_subword_prefix,
    maxInputCharsPerWord: json.model.max_input_chars_per_word,
    // Tokens that are normalised before matching would need the normaliser's alignments; BERT's
    // special tokens are all matched raw, and that is what is supported.
    specialTokens: json.added_tokens.filter((t) => !t.normalized).map((t) => t.content),
  };
  if (json.added_tokens.some((t) => t.normalized))
    return { error: 'tokenizer.json has added tokens matched after normalisation, which this tokenizer does not support' };
  try {
    return { tokenizer: new WordPieceTokenizer(new Map(Object.entries(json.model.vocab)), options) };
  } catch (error) {
    return { error: `tokenizer.json is inconsistent: ${errorMessage(error)}` };
  }
}
