/**
 * Parses experiment YAML once, keeping the CST positions so every finding can be mapped back to a
 * range. Parsing never throws: syntax errors, duplicate keys, tabs and alias bombs all come back
 * as findings with offsets.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair } from 'yaml';
import type { KeyPath } from '../protocol/index.js';
import { errorMessage } from '../util/errors.js';
import { duplicateKeys } from './duplicateKeys.js';

/** A half-open character range [start, end) in the source text. */
export interface OffsetRange {
  readonly start: number;
  readonly end: number;
}

export interface SyntaxProblem {
  readonly code: 'yaml/syntax' | 'yaml/duplicate-key' | 'yaml/alias-limit' | 'yaml/not-a-mapping' | 'yaml/encoding' | 'yaml/unsupported-tag';
  readonly message: string;
  readonly range: OffsetRange;
  readonly severity: 'error' | 'warning';
}

export interface YamlSource {
  readonly text: string;
  readonly doc: Document.Parsed;
  readonly lineCounter: LineCounter;
  /** The plain JS value, or undefined when the document could not be converted. */
  readonly value: unknown;
  readonly problems: readonly SyntaxProblem[];
}

/** Aliases may expand to at most this many nodes; more is an alias bomb, reported not expanded. */
const maxAliasCount = 200;

/**
 * How every experiment YAML is parsed. Duplicate keys are found by duplicateKeys.ts, in linear
 * time, instead of the library's quadratic `uniqueKeys`. Tags beyond plain data (`!!binary`,
 * `!!set`, `!!timestamp`, a custom `!tag`) are not resolved into objects a config cannot hold: each
 * is a finding, and its value stays the plain scalar or collection it was written as.
 */
export const yamlParseOptions = { prettyErrors: false, uniqueKeys: false, keepSourceTokens: false, resolveKnownTags: false } as const;

export function parseYamlSource(text: string): YamlSource {
  const lineCounter = new LineCounter();
  // Only the first document counts: an experiment is one mapping.
  const doc = parseDocument(text, { ...yamlParseOptions, lineCounter });
  const problems: SyntaxProblem[] = [];
  for (const e of doc.errors)
    problems.push({ code: 'yaml/syntax', message: cleanMessage(e.message), range: { start: e.pos[0], end: e.pos[1] }, severity: 'error' });
  const duplicates = duplicateKeys(doc);
  for (const d of duplicates) {
    const line = lineCounter.linePos(d.first[0]).line;
    problems.push({
      code: 'yaml/duplicate-key',
      message: `Map keys must be unique: \`${d.key}\` is already defined on line ${line}.`,
      range: { start: d.range[0], end: d.range[1] },
      severity: 'error',
    });
  }
  for (const w of doc.warnings) {
    const tag = w.code === 'TAG_RESOLVE_FAILED' ? /Unresolved tag: (\S+)/.exec(w.message)?.[1] : undefined;
    problems.push(
      tag === undefined
        ? { code: 'yaml/syntax', message: cleanMessage(w.message), range: { start: w.pos[0], end: w.pos[1] }, severity: 'warning' }
        : {
            code: 'yaml/unsupported-tag',
            message: coreTags.has(shortTag(tag))
              ? `The value does not have the form the tag ${shortTag(tag)} requires (YAML 1.2's core schema; a float needs a dot or an exponent, e.g. 1.0); write it in that form, or drop the tag.`
              : `The tag ${shortTag(tag)} is not supported in an experiment config, which holds plain data; write the value without it (a string, number, boolean, list or mapping).`,
            range: { start: w.pos[0], end: w.pos[1] },
            severity: 'error',
          },
    );
  }
  const replacement = text.indexOf('\uFFFD');
  if (replacement >= 0) {
    problems.push({
      code: 'yaml/encoding',
      message: 'The file is not valid UTF-8 (a byte sequence could not be decoded); save it as UTF-8.',
      range: { start: replacement, end: replacement + 1 },
      severity: 'error',
    });
  }
  let value: unknown;
  if (doc.errors.length === 0 && duplicates.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount });
    } catch (err) {
      // The yaml library throws a ReferenceError for excessive alias expansion: an alias bomb.
      problems.push({
        code: 'yaml/alias-limit',
        message: `Aliases expand too much (${errorMessage(err)}); write the values out or use fewer nested aliases.`,
        range: { start: 0, end: firstLineEnd(text) },
        severity: 'error',
      });
    }
    if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      problems.push({
        code: 'yaml/not-a-mapping',
        message: 'An experiment config must be a mapping of sections (experiment:, paths:, env:, …) at the top level.',
        range: { start: 0, end: firstLineEnd(text) },
        severity: 'error',
      });
      value = undefined;
    }
    if (value === null) value = {};
  }
  return { text, doc, lineCounter, value, problems };
}

/** The tags of YAML 1.2's core schema, which a config may use when the value has their form. */
const coreTags = new Set(['!!str', '!!int', '!!float', '!!bool', '!!null', '!!map', '!!seq']);

/** `tag:yaml.org,2002:binary` as it was written, `!!binary`. */
function shortTag(tag: string): string {
  return tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag;
}

function cleanMessage(message: string): string {
  // The library appends " at line N, column M" and a code frame; the editor shows the location.
  return message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();
}

function firstLineEnd(text: string): number {
  const nl = text.indexOf('\n');
  return nl < 0 ? text.length : nl;
}

/** The pair at `path` (its key and value nodes), or the deepest existing ancestor pair. */
export interface PathLocation {
  readonly pair: Pair<unknown, unknown> | undefined;
  readonly keyNode: Node | undefined;
  readonly valueNode: Node | undefined;
  /** How many elements of the path were found. */
  readonly depth: number;
}

export function locatePath(doc: Document.Parsed, path: KeyPath): PathLocation {
  let node: unknown = doc.contents;
  let found: PathLocation = { pair: undefined, keyNode: undefined, valueNode: asNode(node), depth: 0 };
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return found;
      found = { pair, keyNode: asNode(pair.key), valueNode: asNode(pair.value), depth: i + 1 };
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (item === undefined) return found;
      found = { pair: undefined, keyNode: undefined, valueNode: asNode(item), depth: i + 1 };
      node = item;
    } else {
      return found;
    }
  }
  return found;
}

function asNode(x: unknown): Node | undefined {
  if (x && typeof x === 'object' && 'range' in x && !isPair(x)) return x as Node;
  return undefined;
}

export function nodeRange(node: Node | undefined): OffsetRange | undefined {
  const r = node?.range;
  return r ? { start: r[0], end: r[1] } : undefined;
}

/** Clips a range to the end of its first line, so a finding never paints a whole block. */
export function clipToLine(text: string, range: OffsetRange): OffsetRange {
  const nl = text.indexOf('\n', range.start);
  // A CRLF line ends before its carriage return.
  const lineEnd = nl < 0 ? text.length : nl > range.start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
  const end = Math.min(Math.max(range.end, range.start), lineEnd);
  // An empty range at a line end is still visible as a squiggle in VS Code; keep it at least 1 wide when possible.
  return { start: range.start, end: end === range.start && end < lineEnd ? end + 1 : end };
}
