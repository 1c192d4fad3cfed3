/**
 * Where a config finding sits in the YAML text. A finding about a field sits on that field (its
 * value, or its key when the finding says so); about a field the file does not write, on the key
 * of its nearest written ancestor (`sandbox:` for a missing `sandbox.cpus`, where the default that
 * applies belongs); about a field whose whole section is missing, on a written key the finding
 * names as related (the setting that made it apply), else on the file's first key. Only a finding
 * about the whole file (an empty key path) sits on the first line, so a note never lands on a
 * comment or on a `# yaml-language-server:` line that has nothing to do with it.
 */
import type { Finding, KeyPath } from '../protocol/index.js';
import { isMap, isNode } from 'yaml';
import { clipToLine, locatePath, nodeRange, type OffsetRange, type YamlSource } from './yamlSource.js';

/**
 * The written key or value at `path`, or the key of its nearest written ancestor; undefined when
 * nothing of it is written. A value left empty (`dataset_train:` with nothing after it) has no
 * text to sit on, so its finding sits on the key.
 */
function writtenRange(source: YamlSource, path: KeyPath, target: 'value' | 'key'): OffsetRange | undefined {
  const loc = locatePath(source.doc, path);
  if (loc.depth === 0) return undefined;
  const value = nodeRange(loc.valueNode);
  if (loc.depth === path.length && target === 'value' && value !== undefined && value.end > value.start) return value;
  return nodeRange(loc.keyNode) ?? value;
}

/** The first line, for findings about the whole file. */
function firstLine(source: YamlSource): OffsetRange {
  const nl = source.text.indexOf('\n');
  return { start: 0, end: nl < 0 ? source.text.length : nl };
}

/** The document's first top-level key: where its settings begin, past any leading comments. */
function firstKey(source: YamlSource): OffsetRange | undefined {
  const contents = source.doc.contents;
  if (!isMap(contents)) return undefined;
  const first = contents.items[0];
  return first !== undefined && isNode(first.key) ? nodeRange(first.key) : undefined;
}

/**
 * Where a key path sits in the text: its value (or key) when it is written in the document, else
 * the key of the deepest written ancestor (a default value is reported on its section), else the
 * file's first key; the first line only for the empty path (the whole file).
 */
export function rangeOf(source: YamlSource, path: KeyPath, target: 'value' | 'key'): OffsetRange {
  const range = path.length === 0 ? undefined : (writtenRange(source, path, target) ?? firstKey(source));
  return clipToLine(source.text, range ?? firstLine(source));
}

/**
 * Where a finding sits: on its path as `rangeOf` places it, except that a finding whose path has
 * nothing written sits on the first related setting that is written, since that setting is why the
 * finding applies (the GPU count a sharing note counts, for instance).
 */
export function findingRange(source: YamlSource, f: Pick<Finding, 'path' | 'target' | 'related'>): OffsetRange {
  const target = f.target ?? 'value';
  if (f.path.length === 0) return clipToLine(source.text, firstLine(source));
  const own = writtenRange(source, f.path, target);
  if (own !== undefined) return clipToLine(source.text, own);
  for (const r of f.related) {
    const range = writtenRange(source, r.path, 'key');
    if (range !== undefined) return clipToLine(source.text, range);
  }
  return rangeOf(source, f.path, target);
}

/** The related settings that are written, each on its key (or its nearest written ancestor's); the others point nowhere and are left out. */
export function relatedRanges(source: YamlSource, related: Finding['related']): { range: OffsetRange; message: string }[] {
  return related.flatMap((r) => {
    const range = writtenRange(source, r.path, 'key');
    return range === undefined ? [] : [{ range: clipToLine(source.text, range), message: r.message }];
  });
}
