/**
 * Duplicate keys of a YAML document in linear time. The `yaml` library's own check (`uniqueKeys`)
 * compares every key of a mapping with every other, so a file of 160,000 keys took over five
 * minutes and a 1 MB file blocked the language server for 11 s (issue 21). Here each mapping's
 * scalar keys go through one hash set; two keys are the same when the library would call them so
 * (equal scalar values of the same type: `1` and `'1'` differ, as YAML 1.2 says). Keys that are
 * collections are never equal to another node, as in the library, so they are skipped.
 */
import { isMap, isScalar, isSeq, type Document, type Node } from 'yaml';

export interface DuplicateKey {
  /** The repeated key as text. */
  readonly key: string;
  /** The repeated occurrence's range in the source. */
  readonly range: readonly [number, number];
  /** Where the key was first defined. */
  readonly first: readonly [number, number];
}

export function duplicateKeys(doc: Document): DuplicateKey[] {
  const out: DuplicateKey[] = [];
  // An explicit stack, not recursion: a deeply nested document cannot overflow it.
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
      continue;
    }
    if (!isMap(node)) continue;
    // Keyed by the scalar's value itself: a Map tells `1` from `'1'` as the library's `===` does.
    const seen = new Map<unknown, Node>();
    for (const pair of node.items) {
      stack.push(pair.value);
      const key = pair.key;
      if (!isScalar(key)) {
        stack.push(key);
        continue;
      }
      const first = seen.get(key.value);
      if (first === undefined) {
        seen.set(key.value, key);
        continue;
      }
      const range = key.range ?? [0, 0];
      out.push({ key: String(key.value), range: [range[0], range[1]], first: [first.range?.[0] ?? 0, first.range?.[1] ?? 0] });
    }
  }
  // Mappings are not visited in the order of the text; findings go in that order.
  return out.sort((a, b) => a.range[0] - b.range[0]);
}
