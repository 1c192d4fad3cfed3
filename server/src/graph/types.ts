/**
 * What the rest of the engine may ask of a code graph. `buildCodeGraph` (in `build.ts`) returns an
 * object with this shape; the environment, the agents and the benchmarks use nothing else.
 */
import type { Anchor, Candidate, GraphEdge, GraphNode, GraphStats } from '../protocol/graph.js';
import type { Sandbox } from '../sandbox/index.js';
import type { IssueRanking, RankOptions } from './rank.js';

/** A frame of a Python traceback, as found in issue text or test output. */
export interface TracebackFrame {
  /** Repository-relative when it could be mapped onto a file of the graph, else as written. */
  path: string;
  line: number;
  function: string;
  /** Whether `path` is a file of the graph. */
  inRepo: boolean;
}

/** Where the text of an issue points, strongest evidence first. */
export interface Localisation {
  anchors: Anchor[];
  /** Frames of tracebacks pasted in the text, innermost last, as written. */
  frames: TracebackFrame[];
  /** Node ids the anchors resolved to, in the order of the anchors, without duplicates. */
  nodeIds: string[];
  /** Where each of `nodeIds` was found, in the same order (rank.ts weighs a frame above a plain word). */
  evidence: AnchorEvidence[];
}

/**
 * The evidence an anchor came from: the task's failure frame, a pasted traceback, a file path or
 * module, a name in backticks, a call `name(`, a dotted `Class.method`, or a plain word that is a
 * definition's name (the weakest: everyday words are often names too).
 */
export type AnchorEvidence = 'frame' | 'traceback' | 'path' | 'quoted' | 'call' | 'dotted' | 'word';

export interface ExpandOptions {
  /** 1 or 2; 0 returns the anchors themselves. */
  hops: number;
  /** Most candidates reached from one anchor. */
  perAnchor: number;
  /** Most candidates in all. */
  total: number;
  /** Most candidates from one directory before others get a turn. */
  perDirectory: number;
  /** Node ids already in working memory (scored lower, marked not novel). */
  known?: ReadonlySet<string>;
}

export interface IssueText {
  title?: string;
  body?: string;
  failure_frame?: { path?: string; lineno?: number; function?: string };
  top_assert?: string;
}

export interface CodeGraph {
  readonly stats: GraphStats;
  nodes(): readonly GraphNode[];
  edges(): readonly GraphEdge[];
  node(id: string): GraphNode | undefined;
  /** Edges touching a node, both directions. */
  edgesOf(id: string): readonly GraphEdge[];
  /** Source text of a file of the graph (as read through the sandbox), or undefined. */
  fileText(path: string): string | undefined;
  /** The innermost node (method, function, class, else file) containing a line of a file. */
  nodeAt(path: string, line: number): GraphNode | undefined;
  /** Nodes an anchor names: exact id, then path or name matches, then BM25 for free text. */
  find(anchor: Anchor, limit: number): GraphNode[];
  /** BM25 over names, docstrings, identifiers and path tokens. */
  search(query: string, limit: number): Array<{ node: GraphNode; score: number }>;
  /** Neighbours of the start nodes by hops, scored, with per-anchor limits and directory diversity. */
  expand(startIds: readonly string[], options: ExpandOptions): Candidate[];
  /** Anchors from the failure frame, from file paths and symbols mentioned, and from pasted tracebacks. */
  localise(issue: IssueText): Localisation;
  /** Files and definitions ordered by how likely the fix is there, every retriever fused (`rank.ts`). */
  rank(issue: IssueText, options?: RankOptions): Promise<IssueRanking>;
  /**
   * Re-reads the given files through the sandbox and re-parses only them (deleted files are
   * dropped); ids of unchanged definitions stay the same. Returns the paths re-parsed.
   */
  update(sandbox: Sandbox, changedPaths: readonly string[]): Promise<string[]>;
}

export type { Sandbox };
