/**
 * Applies `ConfigEdit`s to a parsed JSON value, so that a fix computed by the validator can rewrite
 * a dataset line in the editor and on the command line alike. Edits never mutate their input.
 */
import type { ConfigEdit } from '../protocol/index.js';
import { isRecord } from '../util/isRecord.js';
import { updatedAt, withValueAt } from '../util/keyPath.js';

type Json = unknown;

/** Renames a key in place, keeping the order of the other keys. */
function renameKey(object: Record<string, unknown>, from: string, to: string): void {
  const entries = Object.entries(object);
  for (const key of Object.keys(object)) delete object[key];
  for (const [key, value] of entries) {
    if (key === to && key !== from) continue;
    object[key === from ? to : key] = value;
  }
}

/** One edit applied to a JSON value; the input is left as it was. */
export function applyJsonEdit(root: Json, edit: ConfigEdit): Json {
  switch (edit.op) {
    case 'replaceRoot':
      return edit.value;
    case 'set':
      return withValueAt(root, edit.path, edit.value);
    case 'remove':
      return updatedAt(root, edit.path, (parent, last) => {
        if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
        else delete (parent as Record<string | number, unknown>)[last];
      });
    case 'rename':
      return updatedAt(root, edit.path, (parent, last) => {
        if (isRecord(parent) && typeof last === 'string') renameKey(parent, last, edit.newKey);
      });
  }
}

/** Every edit applied to a JSON value in order, each seeing the previous one's result. */
export function applyJsonEdits(root: Json, edits: readonly ConfigEdit[]): Json {
  return edits.reduce(applyJsonEdit, root);
}
