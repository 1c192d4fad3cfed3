/**
 * Re-parses an experiment YAML after an edit that only changed plain scalar values (the common
 * case: a person changes a number or a name, on one line or several with multiple cursors).
 * Parsing 300 lines with the `yaml` library costs about 2.3 ms; patching the previous tree costs a
 * fraction of that. Any other edit (a key, a newline, a comment, quoting, anchors, flow syntax,
 * list items) returns undefined and the caller parses the whole text, so the result is always what
 * a full parse gives; a property test checks exactly that.
 */
import { isMap, isScalar, LineCounter, type Node, type Scalar, type ScalarTag } from 'yaml';
import type { KeyPath } from '../protocol/index.js';
import { commonRegion, eachNode, type Region } from './yamlTree.js';
import type { YamlSource } from './yamlSource.js';

/** Most changed lines handled one by one before a full parse is cheaper. */
export const maxChangedLines = 16;

/** A validated scalar change, ready to be applied. */
interface Patch {
  readonly region: Region;
  readonly node: Scalar;
  readonly path: KeyPath;
  readonly value: unknown;
  readonly source: string;
  readonly range: readonly [number, number, number];
}

/**
 * Returns the new source, or undefined when the edit is not made of plain-scalar changes. The
 * previous source is consumed: its tree is patched in place and must not be used afterwards.
 */
export function reparseScalarEdits(prev: YamlSource, text: string): YamlSource | undefined {
  if (prev.problems.length > 0 || prev.value === undefined || prev.doc.errors.length > 0 || prev.doc.warnings.length > 0) return undefined;
  if (prev.text === text) return prev;
  const regions = changedRegions(prev.text, text);
  if (!regions) return undefined;
  const patches: Patch[] = [];
  for (const region of regions) {
    const patch = scalarPatch(prev, region);
    if (!patch) return undefined;
    patches.push(patch);
  }
  let value: unknown = prev.value;
  for (const p of patches) {
    value = replaceExistingAt(value, p.path, p.value);
    if (value === undefined) return undefined;
  }

  // Every position moves by the size changes of the regions that end at or before it.
  const moved = (x: number) => {
    let out = x;
    for (const r of regions) if (x >= r.oldEnd) out += r.added.length - (r.oldEnd - r.start);
    return out;
  };
  eachNode(prev.doc.contents, (n) => {
    if (n.range) shiftRange(n.range, moved);
  });
  if (prev.doc.range) shiftRange(prev.doc.range, moved);
  for (const p of patches) {
    const delta = p.region.added.length - (p.region.oldEnd - p.region.start);
    // Shift from the regions before this scalar only (an insertion at its first character is its own).
    const before = moved(p.range[0]) - p.range[0] - (p.region.oldEnd <= p.range[0] ? delta : 0);
    p.node.value = p.value;
    p.node.source = p.source;
    p.node.range = [p.range[0] + before, p.range[1] + before + delta, p.range[2] + before + delta];
  }
  const lineCounter = new LineCounter();
  for (const start of prev.lineCounter.lineStarts) lineCounter.addNewLine(moved(start));
  return { text, doc: prev.doc, lineCounter, value, problems: [] };
}

/** The changed regions: one when the change is on one line, else one per changed line. */
function changedRegions(old: string, text: string): Region[] | undefined {
  const single = commonRegion(old, text, 0);
  if (!/[\n\r]/.test(old.slice(single.start, single.oldEnd)) && !/[\n\r]/.test(single.added)) return [single];
  const oldLines = old.split('\n');
  const newLines = text.split('\n');
  if (oldLines.length !== newLines.length) return undefined;
  const regions: Region[] = [];
  let offset = 0;
  for (let i = 0; i < oldLines.length; i++) {
    const a = oldLines[i] ?? '';
    const b = newLines[i] ?? '';
    if (a !== b) {
      if (regions.length >= maxChangedLines) return undefined;
      regions.push(commonRegion(a, b, offset));
    }
    offset += a.length + 1;
  }
  return regions;
}

function scalarPatch(prev: YamlSource, region: Region): Patch | undefined {
  if (/[\r\uFFFD]/.test(region.added)) return undefined;
  const found = scalarValueAt(prev.doc.contents, region.start, region.oldEnd, []);
  if (!found) return undefined;
  const { node } = found;
  if (node.type !== 'PLAIN' || node.anchor || node.tag || !node.range) return undefined;
  const [r0, r1, r2] = node.range;
  // The edit must stay inside the scalar's own characters (touching its ends is fine).
  if (region.start < r0 || region.oldEnd > r1) return undefined;
  const old = prev.text;
  const scalarText = old.slice(r0, region.start) + region.added + old.slice(region.oldEnd, r1);
  if (scalarText.length === 0 || scalarText.trim() !== scalarText || /[#:,[\]{}'"&*!|>%@`\n]/.test(scalarText)) return undefined;
  const after = old.charAt(r1);
  if (after !== '' && after !== '\n' && after !== ' ' && after !== '\r') return undefined;
  const value = resolvePlainScalar(prev, scalarText);
  if (value === invalid) return undefined;
  return { region, node, path: found.path, value, source: scalarText, range: [r0, r1, r2] };
}

const invalid = Symbol('invalid');

/**
 * The value of an untagged plain scalar, resolved the way the yaml library's composer does it: the
 * first default tag of the document's schema whose test matches, else a string. Parsing a tiny
 * document for this costs more than all the rest of an incremental update.
 */
function resolvePlainScalar(prev: YamlSource, text: string): unknown {
  // Text that could start a list item, a complex key or a document marker is not a plain scalar here.
  if (/^(-(\s|$)|\?|---|\.\.\.)/.test(text) || /\s{2,}|\t/.test(text)) return invalid;
  const tag = prev.doc.schema.tags.find((t): t is ScalarTag => t.default === true && 'test' in t && t.test instanceof RegExp && t.test.test(text));
  if (!tag) return text;
  let failed = false;
  const resolved = tag.resolve(text, () => (failed = true), prev.doc.options);
  if (failed) return invalid;
  return isScalar(resolved) ? resolved.value : resolved;
}

/** The plain scalar map value whose source contains [start, end], with its key path. */
function scalarValueAt(root: unknown, start: number, end: number, path: KeyPath): { node: Scalar; path: KeyPath } | undefined {
  if (!isMap(root)) return undefined; // Sequence items change list structure too easily; parse in full.
  for (const pair of root.items) {
    const key = pair.key as Node | null;
    const value = pair.value as Node | null;
    if (key?.range && start <= key.range[1] && end >= key.range[0]) return undefined; // The edit touches a key.
    if (!value?.range || !isScalar(pair.key)) continue;
    if (start >= value.range[0] && end <= value.range[2]) {
      const next = [...path, String(pair.key.value)];
      return isScalar(value) ? { node: value, path: next } : scalarValueAt(value, start, end, next);
    }
  }
  return undefined;
}

/**
 * A copy of `root` with the value at `path` replaced, sharing every untouched branch (the previous
 * value stays valid for whoever still holds it). Undefined when the path does not exist.
 */
function replaceExistingAt(root: unknown, path: KeyPath, value: unknown): unknown {
  if (path.length === 0) return value;
  if (root === null || typeof root !== 'object' || Array.isArray(root)) return undefined;
  const [head, ...rest] = path;
  if (head === undefined || !(head in root)) return undefined;
  const child = replaceExistingAt((root as Record<string | number, unknown>)[head], rest, value);
  return child === undefined && rest.length > 0 ? undefined : { ...(root as Record<string | number, unknown>), [head]: child };
}

function shiftRange(range: [number, number, number], moved: (x: number) => number): void {
  range[0] = moved(range[0]);
  range[1] = moved(range[1]);
  range[2] = moved(range[2]);
}
