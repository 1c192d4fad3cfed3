/**
 * Applies value-level edits (a finding's fix) to YAML text, touching as little text as possible so
 * comments and formatting around the change survive. Block mappings are edited as text; anything
 * inside a flow collection (`{a: 1}`) goes through the yaml library's document API instead. A fix
 * whose result would not parse cleanly is refused rather than applied. The editor turns the result
 * into one minimal TextEdit; `gp config check --fix` writes it to the file.
 */
import { isMap, isScalar, isSeq, parseDocument, stringify, type Node } from 'yaml';
import type { ConfigEdit, KeyPath } from '../protocol/index.js';
import { locatePath, parseYamlSource, type YamlSource } from './yamlSource.js';

export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly newText: string;
}

export function formatValue(value: unknown): string {
  if (value !== null && typeof value === 'object') return JSON.stringify(value).replace(/,/g, ', ');
  return stringify(value, { lineWidth: 0 }).trimEnd();
}

/**
 * The text after applying every edit in order (each sees the previous one's result), or undefined
 * when an edit cannot be applied or the result has YAML problems the original did not have.
 */
export function applyYamlEdits(text: string, edits: readonly ConfigEdit[]): string | undefined {
  const before = parseYamlSource(text).problems.length;
  let current = text;
  for (const edit of edits) {
    const source = parseYamlSource(current);
    const next = touchesFlow(source, edit) ? viaDocument(current, edit) : viaText(source, edit);
    if (next === undefined) return undefined;
    current = next;
  }
  return parseYamlSource(current).problems.length > before ? undefined : current;
}

/** The smallest single text edit that turns `text` into the result of `edits`. */
export function editsToTextEdit(text: string, edits: readonly ConfigEdit[]): TextEdit | undefined {
  const result = applyYamlEdits(text, edits);
  return result === undefined ? undefined : smallestEdit(text, result);
}

/** The one text edit that turns `text` into `result`: the span between their common start and end; undefined when they are equal. */
export function smallestEdit(text: string, result: string): TextEdit | undefined {
  if (result === text) return undefined;
  let p = 0;
  const min = Math.min(text.length, result.length);
  while (p < min && text.charCodeAt(p) === result.charCodeAt(p)) p++;
  let s = 0;
  while (s < min - p && text.charCodeAt(text.length - 1 - s) === result.charCodeAt(result.length - 1 - s)) s++;
  return { start: p, end: text.length - s, newText: result.slice(p, result.length - s) };
}

function targetPath(edit: ConfigEdit): KeyPath {
  return edit.op === 'replaceRoot' ? [] : edit.path;
}

/** Whether any collection on the way to the edited key is a flow collection. */
function touchesFlow(source: YamlSource, edit: ConfigEdit): boolean {
  let node: unknown = source.doc.contents;
  const path = targetPath(edit);
  for (let i = 0; i <= path.length; i++) {
    if ((isMap(node) || isSeq(node)) && (node as { flow?: boolean }).flow === true) return true;
    const seg = path[i];
    if (seg === undefined) break;
    if (isMap(node)) node = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg))?.value;
    else if (isSeq(node) && typeof seg === 'number') node = node.items[seg];
    else break;
  }
  return false;
}

function viaDocument(text: string, edit: ConfigEdit): string | undefined {
  // Duplicates are reported by the check (duplicateKeys.ts); the library's own search is quadratic.
  const doc = parseDocument(text, { uniqueKeys: false });
  switch (edit.op) {
    case 'replaceRoot':
      return stringify(edit.value, { lineWidth: 0 });
    case 'set':
      doc.setIn(edit.path, edit.value);
      break;
    case 'remove':
      if (!doc.deleteIn(edit.path)) return undefined;
      break;
    case 'rename': {
      const parent = doc.getIn(edit.path.slice(0, -1), true);
      const last = edit.path[edit.path.length - 1];
      const pair = isMap(parent) ? parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(last)) : undefined;
      if (!pair || !isScalar(pair.key)) return undefined;
      pair.key.value = edit.newKey;
      break;
    }
  }
  return doc.toString({ lineWidth: 0 });
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset just after the line ending of the line that holds `offset` (or the text's end). */
function nextLineStart(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? text.length : nl + 1;
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

function viaText(source: YamlSource, edit: ConfigEdit): string | undefined {
  const text = source.text;
  switch (edit.op) {
    case 'replaceRoot':
      return stringify(edit.value, { lineWidth: 0 });
    case 'rename': {
      const loc = locatePath(source.doc, edit.path);
      const r = loc.depth === edit.path.length ? loc.keyNode?.range : undefined;
      return r ? splice(text, r[0], r[1], edit.newKey) : undefined;
    }
    case 'remove': {
      const loc = locatePath(source.doc, edit.path);
      const key = loc.depth === edit.path.length ? loc.keyNode?.range : undefined;
      if (!key) return undefined;
      const parent = edit.path.length > 1 ? locatePath(source.doc, edit.path.slice(0, -1)).valueNode : source.doc.contents;
      // Removing the only key of a section would leave `section:` (null); the document API writes `{}`.
      if (isMap(parent) && parent.items.length === 1 && edit.path.length > 1) return viaDocument(text, edit);
      const valueEnd = loc.valueNode?.range?.[1] ?? key[1];
      return splice(text, lineStart(text, key[0]), nextLineStart(text, Math.max(valueEnd - 1, key[1])), '');
    }
    case 'set':
      return setViaText(source, edit.path, edit.value);
  }
}

function setViaText(source: YamlSource, path: KeyPath, value: unknown): string | undefined {
  const text = source.text;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const loc = locatePath(source.doc, path);
  const formatted = formatValue(value);
  if (loc.depth === path.length && path.length > 0) {
    const v = loc.valueNode;
    const emptyValue = !v || (isScalar(v) && v.value === null && v.range?.[0] === v.range?.[1]);
    if (!emptyValue && v?.range) {
      // A block collection replaced by a scalar needs the document API to drop its lines.
      if (isMap(v) || isSeq(v)) return viaDocument(text, { op: 'set', path, value });
      return splice(text, v.range[0], v.range[1], formatted);
    }
    // `key:` with no value: write the value after the colon, keeping any comment after it.
    const k = loc.keyNode?.range;
    if (!k) return undefined;
    const colon = text.indexOf(':', k[1]);
    return splice(text, colon + 1, colon + 1, ` ${formatted}`);
  }
  // Part of the path is not written yet: insert the missing keys under the deepest written one.
  const missing = path.slice(loc.depth);
  let insertAt: number;
  let indent: number;
  const parent = loc.depth === 0 ? source.doc.contents : loc.valueNode;
  if (isMap(parent) && parent.items.length > 0) {
    const firstKey = parent.items[0]?.key as Node | undefined;
    indent = firstKey?.range ? firstKey.range[0] - lineStart(text, firstKey.range[0]) : 0;
    const lastItem = parent.items[parent.items.length - 1];
    const lastEnd = (lastItem?.value as Node | undefined)?.range?.[1] ?? (lastItem?.key as Node | undefined)?.range?.[1] ?? text.length;
    insertAt = nextLineStart(text, Math.max(lastEnd - 1, 0));
  } else if (loc.depth > 0 && loc.keyNode?.range) {
    if (parent && !(isScalar(parent) && parent.value === null)) return viaDocument(text, { op: 'set', path, value });
    indent = loc.keyNode.range[0] - lineStart(text, loc.keyNode.range[0]) + 2;
    insertAt = nextLineStart(text, loc.keyNode.range[1]);
  } else {
    indent = 0;
    insertAt = text.length;
  }
  const lines = missing.map((seg, i) => {
    const pad = ' '.repeat(indent + 2 * i);
    return i === missing.length - 1 ? `${pad}${String(seg)}: ${formatted}` : `${pad}${String(seg)}:`;
  });
  const needsNewline = insertAt > 0 && text[insertAt - 1] !== '\n';
  return splice(text, insertAt, insertAt, `${needsNewline ? eol : ''}${lines.join(eol)}${eol}`);
}
