/**
 * Key paths (`['sandbox', 'mounts', 0, 'mode']`) into plain JSON-like data: reading, writing,
 * deleting and naming a place the same way in the config checks, the dataset checks and their
 * fixes. The mutating helpers (`setAt`, `deleteAt`) are for copies their caller owns; `updatedAt`
 * and `withValueAt` leave their input as it was and copy only the containers along the path.
 */
import { isRecord } from './isRecord.js';

/** A `KeyPath` (see `server/src/protocol/findings.ts`), or any read-only list of keys and indices. */
type Path = readonly (string | number)[];

type Container = Record<string | number, unknown>;

/** The value at a key path in plain JSON-like data, or undefined when any step is missing. */
export function getAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const seg of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Container)[seg];
  }
  return node;
}

/** Whether every step of the path is a key the data itself holds (an inherited key does not count). */
export function hasAt(root: unknown, path: Path): boolean {
  let node = root;
  for (const seg of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, seg)) return false;
    node = (node as Container)[seg];
  }
  return true;
}

/** Sets a value at a key path in place, creating mappings on the way (the deep-merge of one leaf). */
export function setAt(root: Record<string, unknown>, path: Path, value: unknown): void {
  let node: Container = root;
  for (const seg of path.slice(0, -1)) {
    const next = node[seg];
    if (next === null || typeof next !== 'object') node[seg] = {};
    node = node[seg] as Container;
  }
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = value;
}

/**
 * Deletes the value at a key path in place; a missing step does nothing. A list element becomes
 * undefined rather than being spliced out, so that other paths into the same list stay valid.
 */
export function deleteAt(root: unknown, path: Path): void {
  const last = path[path.length - 1];
  if (last === undefined) return;
  const node = getAt(root, path.slice(0, -1));
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node) && typeof last === 'number') node.splice(last, 1, undefined);
  else delete (node as Container)[last];
}

function shallowCopy(value: unknown): unknown {
  if (Array.isArray(value)) return [...(value as unknown[])];
  if (isRecord(value)) return { ...value };
  return value;
}

/**
 * Copies the containers along `path` (creating mappings where one is missing), lets `update` change
 * the copied parent of the last step, and returns the copied root; `root` itself is not changed.
 */
export function updatedAt(root: unknown, path: Path, update: (parent: Record<string, unknown> | unknown[], last: string | number) => void): unknown {
  const last = path[path.length - 1];
  if (last === undefined) return root;
  const copy = isRecord(root) || Array.isArray(root) ? shallowCopy(root) : {};
  let node = copy as Record<string, unknown> | unknown[];
  for (const segment of path.slice(0, -1)) {
    const current = (node as Container)[segment];
    const child = isRecord(current) || Array.isArray(current) ? shallowCopy(current) : {};
    (node as Container)[segment] = child;
    node = child as Record<string, unknown> | unknown[];
  }
  update(node, last);
  return copy;
}

/** A copy of `root` with `value` at `path`; the empty path gives `value` itself. */
export function withValueAt(root: Record<string, unknown>, path: Path, value: Record<string, unknown>): Record<string, unknown>;
export function withValueAt(root: unknown, path: Path, value: unknown): unknown;
export function withValueAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  return updatedAt(root, path, (parent, last) => {
    (parent as Container)[last] = value;
  });
}

/**
 * A key path the way a person names the field: `sandbox.mounts[0].mode`. The empty path gives the
 * empty string, so a caller can name the top level in its own words (`formatKeyPath(p) || 'the line'`).
 */
export function formatKeyPath(path: Path): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  return out;
}
