/**
 * The code graph of one repository: files and definitions from `parseFiles.ts`, edges from
 * `resolve.ts` (kept per source file), BM25 documents from `documents.ts`, and the queries of the
 * `CodeGraph` interface. An update re-reads and re-parses only the changed files and resolves
 * again, from their kept facts, the edges of the other files that may now point differently.
 */
import { posix } from 'node:path';
import type { Anchor, Candidate, EdgeKind, GraphEdge, GraphNode, GraphStats } from '../protocol/graph.js';
import type { Sandbox } from '../sandbox/index.js';
import { Bm25 } from './bm25.js';
import { FileTextIndex } from './fileTextIndex.js';
import { DocumentBuilder } from './documents.js';
import { expandFrom } from './expand.js';
import { findNodes } from './find.js';
import { GraphIndex, type FileRecord } from './graphIndex.js';
import { localiseIssue } from './localise.js';
import { rankIssue, type IssueRanking, type RankOptions } from './rank.js';
import type { ModuleMap } from './modules.js';
import { parseFiles, type SourceFile } from './parseFiles.js';
import { mapRepoPath, normalisePath } from './paths.js';
import { Resolver } from './resolve.js';
import { readSandboxFile, isPythonSource } from './sources.js';
import { Terms } from './tokens.js';
import type { CodeGraph, ExpandOptions, IssueText, Localisation } from './types.js';
import type { GraphView } from './view.js';

export interface GraphOrigin {
  /** The folder read, relative to the sandbox's workdir (`.` for the whole repository). */
  readonly root: string;
  /** Absolute folders that hold those files (inside the sandbox and, for a local one, on the host). */
  readonly absoluteRoots: readonly string[];
  /** Files larger than this were left out of the build, and are left out of updates too. */
  readonly maxFileBytes: number;
}

/** Lazily computed views, dropped whenever the graph changes. */
interface Derived {
  nodes?: GraphNode[];
  edges?: GraphEdge[];
  adjacency?: Map<string, GraphEdge[]>;
  byName?: Map<string, GraphNode[]>;
  stats?: GraphStats;
}

function qualifiedNameOf(id: string): string {
  const hash = id.lastIndexOf('#');
  return hash < 0 ? '' : id.slice(hash + 1).replace(/@\d+$/, '');
}

export class PythonCodeGraph implements CodeGraph, GraphView {
  private readonly index = new GraphIndex();
  private readonly edgesBySource = new Map<string, GraphEdge[]>();
  private readonly nodeById = new Map<string, GraphNode>();
  private readonly bm25 = new Bm25();
  /** Whole-file BM25 for ranking issues; built on first use and dropped when a file changes. */
  private fileTextIndex: FileTextIndex | undefined;
  private readonly documents = new DocumentBuilder(this.bm25.vocabulary);
  private readonly terms = new Terms();
  private readonly refNames = new WeakMap<FileRecord, ReadonlySet<string>>();
  private derived: Derived = {};

  private constructor(private readonly origin: GraphOrigin) {}

  /** Builds the graph of the given files (repository-relative paths). */
  static async build(files: readonly SourceFile[], origin: GraphOrigin, onProgress?: (done: number, total: number) => void): Promise<PythonCodeGraph> {
    const graph = new PythonCodeGraph(origin);
    const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const records = await parseFiles(sorted, onProgress);
    for (const record of records) graph.addRecord(record);
    const resolver = new Resolver(graph.index);
    for (const record of records) graph.edgesBySource.set(record.parse.path, resolver.edgesFrom(record.parse.path));
    return graph;
  }

  get modules(): ModuleMap {
    return this.index.modules;
  }

  get stats(): GraphStats {
    if (this.derived.stats !== undefined) return this.derived.stats;
    const edges = { contains: 0, imports: 0, calls: 0, inherits: 0, tests: 0 } satisfies Record<EdgeKind, number>;
    for (const edge of this.edges()) edges[edge.kind] += 1;
    const stats: GraphStats = { files: this.index.files.size, classes: 0, functions: 0, methods: 0, edges };
    for (const record of this.index.files.values()) {
      for (const node of record.nodes) {
        if (node.kind === 'class') stats.classes += 1;
        else if (node.kind === 'function') stats.functions += 1;
        else stats.methods += 1;
      }
    }
    this.derived.stats = stats;
    return stats;
  }

  nodes(): readonly GraphNode[] {
    this.derived.nodes ??= this.sortedRecords().flatMap((r) => [r.file, ...r.nodes]);
    return this.derived.nodes;
  }

  edges(): readonly GraphEdge[] {
    this.derived.edges ??= this.sortedRecords().flatMap((r) => this.edgesBySource.get(r.parse.path) ?? []);
    return this.derived.edges;
  }

  node(id: string): GraphNode | undefined {
    return this.nodeById.get(id);
  }

  edgesOf(id: string): readonly GraphEdge[] {
    if (this.derived.adjacency === undefined) {
      const adjacency = new Map<string, GraphEdge[]>();
      const push = (id: string, edge: GraphEdge) => {
        const list = adjacency.get(id);
        if (list === undefined) adjacency.set(id, [edge]);
        else list.push(edge);
      };
      for (const edge of this.edges()) {
        push(edge.src, edge);
        push(edge.dst, edge);
      }
      this.derived.adjacency = adjacency;
    }
    return this.derived.adjacency.get(id) ?? [];
  }

  fileText(path: string): string | undefined {
    return this.index.files.get(normalisePath(path))?.text;
  }

  nodeAt(path: string, line: number): GraphNode | undefined {
    const record = this.index.files.get(normalisePath(path));
    if (record === undefined) return undefined;
    let best: GraphNode | undefined;
    // Definitions come in source order with enclosing ones first, so the last that contains the line is the innermost.
    for (const node of record.nodes) if (node.span.start <= line && line <= node.span.end) best = node;
    return best ?? record.file;
  }

  definitionsNamed(name: string): readonly GraphNode[] {
    if (this.derived.byName === undefined) {
      const byName = new Map<string, GraphNode[]>();
      for (const node of this.nodes()) {
        if (node.kind === 'file') continue;
        const list = byName.get(node.name);
        if (list === undefined) byName.set(node.name, [node]);
        else list.push(node);
      }
      this.derived.byName = byName;
    }
    return this.derived.byName.get(name) ?? [];
  }

  definitionsIn(path: string): readonly GraphNode[] {
    return this.index.files.get(path)?.nodes ?? [];
  }

  qualifiedName(node: GraphNode): string {
    return node.kind === 'file' ? node.path : qualifiedNameOf(node.id);
  }

  mapPath(raw: string): string | undefined {
    return mapRepoPath(raw, (p) => this.index.files.has(p), this.origin.absoluteRoots);
  }

  search(query: string, limit: number): Array<{ node: GraphNode; score: number }> {
    return this.bm25.search(this.terms.ofText(query), limit).flatMap((hit) => {
      const node = this.nodeById.get(hit.id);
      return node === undefined ? [] : [{ node, score: hit.score }];
    });
  }

  searchFileText(query: string, limit: number): string[] {
    this.fileTextIndex ??= new FileTextIndex(
      [...this.index.files.keys()].flatMap((path) => {
        const text = this.fileText(path);
        return text === undefined ? [] : [{ path, text }];
      }),
    );
    return this.fileTextIndex.search(query, limit);
  }

  find(anchor: Anchor, limit: number): GraphNode[] {
    return findNodes(this, anchor, limit);
  }

  expand(startIds: readonly string[], options: ExpandOptions): Candidate[] {
    return expandFrom(this, startIds, options);
  }

  localise(issue: IssueText): Localisation {
    return localiseIssue(this, issue);
  }

  rank(issue: IssueText, options?: RankOptions): Promise<IssueRanking> {
    return rankIssue(this, issue, options);
  }

  async update(sandbox: Sandbox, changedPaths: readonly string[]): Promise<string[]> {
    const paths = [...new Set(changedPaths.map((p) => this.repoPath(p)))].filter(isPythonSource).sort();
    if (paths.length === 0) return [];
    const present: SourceFile[] = [];
    for (const path of paths) {
      const text = await readSandboxFile(sandbox, posix.join(this.origin.root, path), this.origin.maxFileBytes);
      if (text !== undefined) present.push({ path, text });
    }
    const records = await parseFiles(present);
    this.fileTextIndex = undefined;
    const before = this.beforeChange(paths);
    for (const path of paths) this.removeRecord(path);
    for (const record of records) this.addRecord(record);
    const stale = this.staleFiles(paths, records, before);
    const resolver = new Resolver(this.index);
    for (const path of this.index.files.keys()) if (stale === 'all' || stale.has(path)) this.edgesBySource.set(path, resolver.edgesFrom(path));
    this.derived = {};
    return records.map((r) => r.parse.path);
  }

  /** What an update must know of the graph before the changed files are replaced. */
  private beforeChange(paths: readonly string[]): { pointing: Set<string>; existed: Set<string>; names: Set<string>; roots: string } {
    const names = new Set<string>();
    for (const path of paths) this.namesOf(this.index.files.get(path), names);
    return {
      pointing: this.pointingInto(new Set(paths)),
      existed: new Set(paths.filter((p) => this.index.files.has(p))),
      names,
      roots: this.index.modules.roots().join('\n'),
    };
  }

  /**
   * The files whose edges must be resolved again: the changed ones; those that pointed into them;
   * those that mention a name the changed files define, before or after; every file under the
   * folder of a file that came or went, or of a changed `__init__.py` (relative imports there may
   * mean something else now); and all of them when the module roots changed.
   */
  private staleFiles(paths: readonly string[], records: readonly FileRecord[], before: ReturnType<PythonCodeGraph['beforeChange']>): Set<string> | 'all' {
    if (this.index.modules.roots().join('\n') !== before.roots) return 'all';
    const stale = new Set([...paths, ...before.pointing]);
    const names = new Set(before.names);
    for (const record of records) this.namesOf(record, names);
    for (const [path, record] of this.index.files) {
      const mentions = this.referencedNames(record);
      if (!stale.has(path) && [...names].some((n) => mentions.has(n))) stale.add(path);
    }
    const exists = new Set(records.map((r) => r.parse.path));
    const folders = paths
      .filter((p) => before.existed.has(p) !== exists.has(p) || p.endsWith('__init__.py'))
      .map((p) => (posix.dirname(p) === '.' ? '' : `${posix.dirname(p)}/`));
    for (const dir of folders) for (const other of this.index.files.keys()) if (other.startsWith(dir)) stale.add(other);
    return stale;
  }

  /** A changed path as the graph names it: relative to the graph's root, POSIX. */
  private repoPath(path: string): string {
    const normal = normalisePath(path);
    for (const root of this.origin.absoluteRoots) {
      const prefix = root.endsWith('/') ? root : `${root}/`;
      if (normal.startsWith(prefix)) return normal.slice(prefix.length);
    }
    const root = normalisePath(this.origin.root);
    return root !== '' && root !== '.' && normal.startsWith(`${root}/`) ? normal.slice(root.length + 1) : normal;
  }

  private sortedRecords(): FileRecord[] {
    return [...this.index.files.values()].sort((a, b) => (a.parse.path < b.parse.path ? -1 : a.parse.path > b.parse.path ? 1 : 0));
  }

  private addRecord(record: FileRecord): void {
    this.index.add(record);
    this.nodeById.set(record.file.id, record.file);
    for (const node of record.nodes) this.nodeById.set(node.id, node);
    this.documents.index(record, (id, terms) => this.bm25.set(id, terms));
  }

  private removeRecord(path: string): void {
    const record = this.index.remove(path);
    this.edgesBySource.delete(path);
    if (record === undefined) return;
    for (const node of [record.file, ...record.nodes]) {
      this.nodeById.delete(node.id);
      this.bm25.remove(node.id);
    }
  }

  /** Files other than the changed ones with an edge into a changed file. */
  private pointingInto(changed: ReadonlySet<string>): Set<string> {
    const out = new Set<string>();
    for (const [path, edges] of this.edgesBySource) {
      if (changed.has(path)) continue;
      if (edges.some((e) => changed.has(this.nodeById.get(e.dst)?.path ?? ''))) out.add(path);
    }
    return out;
  }

  /** The names a file defines, and its module name (the package's for `__init__.py`). */
  private namesOf(record: FileRecord | undefined, into: Set<string>): void {
    if (record === undefined) return;
    for (const d of record.parse.definitions) into.add(d.name);
    const parts = record.parse.path.replace(/\.py$/, '').split('/');
    const stem = parts[parts.length - 1] === '__init__' ? parts[parts.length - 2] : parts[parts.length - 1];
    if (stem !== undefined) into.add(stem);
  }

  /** Every name a file's calls, bases and imports mention: resolution looks up nothing else. */
  private referencedNames(record: FileRecord): ReadonlySet<string> {
    let names = this.refNames.get(record);
    if (names !== undefined) return names;
    const out = new Set<string>();
    const addDotted = (dotted: string) => {
      for (const part of dotted.split('.')) out.add(part);
    };
    for (const d of record.parse.definitions) {
      d.calls.forEach(addDotted);
      d.bases.forEach(addDotted);
    }
    for (const raw of record.parse.imports) {
      addDotted(raw.module);
      if (raw.form === 'import') {
        if (raw.alias !== undefined) out.add(raw.alias);
      } else for (const n of raw.names) addDotted(n.name);
    }
    names = out;
    this.refNames.set(record, names);
    return names;
  }
}
