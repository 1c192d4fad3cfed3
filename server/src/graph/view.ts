/**
 * The read side of a built graph that search, localisation and expansion work on. `codeGraph.ts`
 * implements it; keeping it an interface lets those modules be read (and tested) on their own.
 */
import type { GraphEdge, GraphNode } from '../protocol/graph.js';
import type { ModuleMap } from './modules.js';

export interface GraphView {
  node(id: string): GraphNode | undefined;
  /** Files and definitions, files first, each in path and source order. */
  nodes(): readonly GraphNode[];
  edgesOf(id: string): readonly GraphEdge[];
  nodeAt(path: string, line: number): GraphNode | undefined;
  search(query: string, limit: number): Array<{ node: GraphNode; score: number }>;
  /** BM25 over whole file texts (built on first use), paths best first. */
  searchFileText(query: string, limit: number): string[];
  /** Definitions (not files) whose own name is exactly `name`. */
  definitionsNamed(name: string): readonly GraphNode[];
  /** Definitions of one file, in source order. */
  definitionsIn(path: string): readonly GraphNode[];
  /** The qualified name of a definition node (`Class.method`), from its id. */
  qualifiedName(node: GraphNode): string;
  /** The graph file a written path means (see `paths.ts`). */
  mapPath(raw: string): string | undefined;
  readonly modules: ModuleMap;
}
