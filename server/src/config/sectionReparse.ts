/**
 * Re-parses only the top-level section an edit falls in (for example `env:` and its keys) when the
 * edit is structural: a key renamed, a line added or removed. In block YAML without anchors the
 * top-level sections parse independently, so the edited section is parsed on its own and spliced
 * into the previous tree; everything after it only moves. Anything that could reach across
 * sections (anchors and aliases, a flow top level, document markers, a new top-level key, a
 * duplicate section) falls back to a full parse. The property test in
 * test/unit/incrementalParse.test.ts checks the result against a full parse: values, every node's
 * start and value end, line starts and findings. Node ends past the value (`range[2]`, trailing
 * comments) may differ; nothing reads them except to decide whether an edit could be patched,
 * where a wrong answer only means a full parse.
 */
import { isAlias, isMap, isScalar, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import { commonRegion, eachNode } from './yamlTree.js';
import { yamlParseOptions, type YamlSource } from './yamlSource.js';
import { duplicateKeys } from './duplicateKeys.js';

const maxAliasCount = 200;

function shiftNode(node: unknown, by: (x: number) => number): void {
  eachNode(node, (n) => {
    if (n.range) n.range = [by(n.range[0]), by(n.range[1]), by(n.range[2])];
  });
}

/**
 * Whether a tree uses anchors or aliases, which tie sections together. (A flow collection inside a
 * section is fine: if an edit leaves it open, the section alone fails to parse and we fall back.)
 */
function hasCrossLinks(node: unknown): boolean {
  let found = false;
  eachNode(node, (n) => {
    if (isAlias(n) || (n as { anchor?: string }).anchor) found = true;
  });
  return found;
}

function endsWithComment(section: string): boolean {
  const lines = section.split('\n').filter((l) => l.trim() !== '');
  return (lines[lines.length - 1] ?? '').trimStart().startsWith('#');
}

const crossLinkCache = new WeakMap<object, boolean>();

export function reparseSection(prev: YamlSource, text: string): YamlSource | undefined {
  if (prev.problems.length > 0 || prev.value === undefined || prev.doc.errors.length > 0 || prev.doc.warnings.length > 0) return undefined;
  const root = prev.doc.contents;
  if (!isMap(root) || root.flow === true || !root.range) return undefined;
  let linked = crossLinkCache.get(root);
  if (linked === undefined) {
    linked = hasCrossLinks(root);
    crossLinkCache.set(root, linked);
  }
  if (linked) return undefined;
  const old = prev.text;
  if (/^(---|\.\.\.|%)/m.test(old) || /^(---|\.\.\.|%)/m.test(text) || text.includes('\uFFFD') || text.includes('\t')) return undefined;

  const region = commonRegion(old, text, 0);
  const delta = text.length - old.length;
  // A section runs from its key to the next top-level key, less the blank lines and column-0
  // comments just before that key: the full parse counts indented comments into the section's node
  // ends but not those, so they stay outside (an edit there takes the full parse).
  const sectionEnd = (i: number): number => {
    const next = root.items[i + 1]?.key as Node | null | undefined;
    let end = next?.range ? next.range[0] : old.length;
    for (;;) {
      const lineStart = old.lastIndexOf('\n', end - 2) + 1;
      const line = old.slice(lineStart, end);
      if (lineStart <= ((root.items[i]?.key as Node | null)?.range?.[1] ?? 0) || !/^(#.*)?\r?\n?$/.test(line)) return end;
      end = lineStart;
    }
  };
  const index = root.items.findIndex((pair, i) => {
    const key = pair.key as Node | null;
    if (!key?.range) return false;
    const end = sectionEnd(i);
    return key.range[0] <= region.start && region.oldEnd <= end && (region.start < end || end === old.length);
  });
  const pair = root.items[index];
  const key = pair?.key as Node | null | undefined;
  // The last section runs into the end of the document, whose trivia the full parse treats its own
  // way; edits there take the full parse.
  if (!pair || !key?.range || !isScalar(pair.key) || index === root.items.length - 1) return undefined;
  const start = key.range[0];
  if (start !== 0 && old.charAt(start - 1) !== '\n') return undefined;
  const oldEnd = sectionEnd(index);
  const section = text.slice(start, oldEnd + delta);
  // The section must open with a plain key at column 0, or the text around it may read differently.
  if (!/^[A-Za-z_][\w.-]*:(\s|$)/.test(section) || (oldEnd + delta < text.length && !section.endsWith('\n'))) return undefined;

  // Comments at the end of a section are attached differently by a full parse (to the next key or
  // to the collection's end); a section ending in one takes the full parse.
  if (endsWithComment(old.slice(start, oldEnd)) || endsWithComment(section)) return undefined;
  // A column-0 comment inside a section, or a root key that is not a plain scalar, also reads
  // differently in a full parse.
  if (/\n#/.test(old.slice(start, oldEnd)) || /\n#/.test(section)) return undefined;
  if (root.items.some((p) => !isScalar(p.key) || p.key.type !== 'PLAIN' || p.key.value === null || p.key.value === '' || !p.key.range)) return undefined;
  const piece = parseDocument(section, yamlParseOptions);
  const contents = piece.contents;
  if (
    piece.errors.length ||
    piece.warnings.length ||
    duplicateKeys(piece).length > 0 ||
    !isMap(contents) ||
    contents.flow === true ||
    contents.items.length !== 1
  )
    return undefined;
  const newPair = contents.items[0] as Pair<unknown, unknown>;
  if (!isScalar(newPair.key) || (newPair.key as Node).range?.[0] !== 0 || hasCrossLinks(contents)) return undefined;
  const newKey = String(newPair.key.value);
  const oldKey = String(pair.key.value);
  if (newKey !== oldKey && root.items.some((p, i) => i !== index && isScalar(p.key) && String(p.key.value) === newKey)) return undefined;
  let sectionValue: unknown;
  try {
    sectionValue = (piece.toJS({ maxAliasCount }) as Record<string, unknown>)[newKey];
  } catch {
    return undefined;
  }

  // Splice: the new pair moves to the section's place; later sections move by the size change.
  shiftNode(newPair.key, (x) => x + start);
  shiftNode(newPair.value, (x) => x + start);
  for (let i = index + 1; i < root.items.length; i++) {
    const later = root.items[i];
    if (!later) continue;
    shiftNode(later.key, (x) => x + delta);
    shiftNode(later.value, (x) => x + delta);
  }
  const [r0, r1, r2] = root.range;
  root.range = [r0, r1 >= oldEnd ? r1 + delta : r1, r2 >= oldEnd ? r2 + delta : r2];
  if (prev.doc.range) {
    const [d0, d1, d2] = prev.doc.range;
    prev.doc.range = [d0, d1 >= oldEnd ? d1 + delta : d1, d2 >= oldEnd ? d2 + delta : d2];
  }
  root.items[index] = newPair as (typeof root.items)[number];

  const value: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(prev.value as Record<string, unknown>)) {
    if (k === oldKey) value[newKey] = sectionValue;
    else value[k] = v;
  }
  const lineCounter = new LineCounter();
  lineCounter.addNewLine(0);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineCounter.addNewLine(i + 1);
  return { text, doc: prev.doc, lineCounter, value, problems: [] };
}
