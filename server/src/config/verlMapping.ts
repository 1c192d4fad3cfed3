/**
 * The config → Verl table: which experiment config keys Verl (through Hydra) receives under another
 * name, and the dotted Hydra keys of the `verl_overrides` map. The experiment overview shows these
 * rows and a training launch passes them, so both read this one table. Pure: it reads only the
 * schema and a config value.
 */
import { experimentJsonSchema, type JsonSchemaNode } from './jsonSchema.js';
import { isRecord } from '../util/isRecord.js';

/** A config field that Verl receives under another name. */
export interface VerlMappedField {
  /** The key path in the experiment config, such as `['model', 'planner_path']`. */
  readonly path: readonly string[];
  /** The dotted Hydra key Verl reads, such as `actor_rollout_ref.model.path`. */
  readonly mapsTo: string;
}

/** One leaf of `verl_overrides`: its key path under the map and its dotted Hydra key. */
export interface VerlOverrideLeaf {
  readonly path: readonly string[];
  readonly key: string;
  readonly value: unknown;
}

/** Every field of the experiment schema with `maps_to` metadata, in schema order; the schema never changes. */
export const verlMappedFields: readonly VerlMappedField[] = collectMapped(experimentJsonSchema, []);

function collectMapped(node: JsonSchemaNode, path: readonly string[]): VerlMappedField[] {
  return Object.entries(node.properties ?? {}).flatMap(([key, child]) => {
    const childPath = [...path, key];
    if (child.maps_to !== undefined) return [{ path: childPath, mapsTo: child.maps_to }];
    return collectMapped(child, childPath);
  });
}

/**
 * The leaves of a nested `verl_overrides` map with their key paths. Lists and empty maps are
 * leaves, because Hydra takes each of them as one value; an empty map at the top has no leaves.
 */
export function flattenVerlOverrides(value: unknown, path: readonly string[] = []): [string[], unknown][] {
  if (!isRecord(value) || (path.length > 0 && Object.keys(value).length === 0)) return path.length === 0 ? [] : [[[...path], value]];
  return Object.entries(value).flatMap(([key, child]) => flattenVerlOverrides(child, [...path, key]));
}

/** The `verl_overrides` leaves with their dotted Hydra keys, in the order the map lists them. */
export function verlOverrideLeaves(overrides: unknown): VerlOverrideLeaf[] {
  return flattenVerlOverrides(overrides).map(([path, value]) => ({ path, key: path.join('.'), value }));
}

/**
 * Whether an override replaces the Hydra key `mapsTo`: it names the key itself or a map above it.
 * An empty map merges nothing into Hydra's config, so it overrides no key below it.
 */
export function overridesVerlKey(mapsTo: string, overrides: readonly VerlOverrideLeaf[]): boolean {
  return overrides.some((o) => o.key === mapsTo || (!isEmptyMap(o.value) && mapsTo.startsWith(`${o.key}.`)));
}

function isEmptyMap(value: unknown): boolean {
  return isRecord(value) && Object.keys(value).length === 0;
}
