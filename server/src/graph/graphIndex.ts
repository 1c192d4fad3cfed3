/**
 * The files of a graph and the lookups edge resolution needs: which module name means which file,
 * which names each scope defines, and which definitions carry a name across the repository.
 * Files are added and removed one at a time so that an update touches only what changed.
 */
import type { GraphNode } from '../protocol/graph.js';
import type { FileParse } from './extract.js';
import { ModuleMap } from './modules.js';
import { isTestPath, nodesOf } from './nodes.js';

/** A definition (`def` ≥ 0, an index into the file's definitions) or the file itself (`def` = -1). */
export interface Ref {
  readonly path: string;
  readonly def: number;
}

export interface FileRecord {
  readonly parse: FileParse;
  /** The text as read through the sandbox. */
  readonly text: string;
  readonly file: GraphNode;
  /** One per definition, aligned with `parse.definitions`. */
  readonly nodes: readonly GraphNode[];
  /**
   * Names defined directly in each scope: slot 0 is the module, slot `i + 1` definition `i`. When a
   * name is defined twice, the later definition wins, as it does when Python runs the file.
   */
  readonly members: ReadonlyArray<ReadonlyMap<string, number> | undefined>;
  readonly isTest: boolean;
}

export function fileRecord(parse: FileParse, text: string): FileRecord {
  const { file, definitions } = nodesOf(parse);
  const members: Array<Map<string, number> | undefined> = new Array(parse.definitions.length + 1);
  parse.definitions.forEach((d, i) => {
    const slot = d.parent + 1;
    let names = members[slot];
    if (names === undefined) {
      names = new Map();
      members[slot] = names;
    }
    names.set(d.name, i);
  });
  return { parse, text, file, nodes: definitions, members, isTest: isTestPath(parse.path) };
}

/** Adds a ref to a name's list. */
function addTo(map: Map<string, Ref[]>, name: string, ref: Ref): void {
  const list = map.get(name);
  if (list === undefined) map.set(name, [ref]);
  else list.push(ref);
}

function removeFrom(map: Map<string, Ref[]>, name: string, path: string): void {
  const list = map.get(name);
  if (list === undefined) return;
  const kept = list.filter((r) => r.path !== path);
  if (kept.length === 0) map.delete(name);
  else map.set(name, kept);
}

export class GraphIndex {
  readonly files = new Map<string, FileRecord>();
  readonly modules = new ModuleMap([]);
  /** Module-level functions and classes by name: the last resort for a bare call `f()`. */
  readonly topByName = new Map<string, Ref[]>();
  /** Methods by name: the last resort for a call on an unknown receiver `x.m()`. */
  readonly methodsByName = new Map<string, Ref[]>();

  add(record: FileRecord): void {
    const path = record.parse.path;
    if (this.files.has(path)) this.remove(path);
    this.files.set(path, record);
    this.modules.add(path);
    record.parse.definitions.forEach((d, def) => {
      if (d.parent === -1) addTo(this.topByName, d.name, { path, def });
      else if (d.kind === 'method') addTo(this.methodsByName, d.name, { path, def });
    });
  }

  remove(path: string): FileRecord | undefined {
    const record = this.files.get(path);
    if (record === undefined) return undefined;
    this.files.delete(path);
    this.modules.delete(path);
    for (const d of record.parse.definitions) {
      if (d.parent === -1) removeFrom(this.topByName, d.name, path);
      else if (d.kind === 'method') removeFrom(this.methodsByName, d.name, path);
    }
    return record;
  }

  node(ref: Ref): GraphNode | undefined {
    const record = this.files.get(ref.path);
    if (record === undefined) return undefined;
    return ref.def < 0 ? record.file : record.nodes[ref.def];
  }
}
