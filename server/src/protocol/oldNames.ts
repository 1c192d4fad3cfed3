/**
 * Reading run folders written before a field was renamed (issue 38: one name per concept). A
 * schema of a file we persist that renamed a field is wrapped once, where it is declared, in
 * `withOldNames`: a line that carries the old key and not the new one is read as if it carried the
 * new one, so an old run folder opens with the same views and values. Writers use the new names
 * only; the old names are listed in ARCHITECTURE.md's "Names" section.
 */
import { z } from 'zod';

/** The renames a file's lines went through: each old key with the name it is read under now. */
export type OldNames = Readonly<Record<string, string>>;

function renamed(value: unknown, oldNames: OldNames): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const moved = Object.entries(oldNames).filter(([old, name]) => old in record && !(name in record));
  if (moved.length === 0) return value;
  const copy = { ...record };
  for (const [old, name] of moved) {
    copy[name] = copy[old];
    delete copy[old];
  }
  return copy;
}

/**
 * The renames of each wrapped schema, so the JSON Schemas we emit for tools outside this repository
 * (scripts/generated.ts) accept a line written under the old names too, as our own readers do.
 */
export const oldNamesRegistry = z.registry<{ oldNames: OldNames }>();

/** `schema`, reading each of `oldNames`' old keys under its new name when the new one is absent. */
export function withOldNames<S extends z.ZodType>(oldNames: OldNames, schema: S) {
  const wrapped = z.preprocess((value) => renamed(value, oldNames), schema);
  oldNamesRegistry.add(wrapped as z.ZodType, { oldNames });
  return wrapped;
}
