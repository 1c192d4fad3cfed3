/**
 * `rank(issue)`: the graph's places ordered by how likely the issue's fix is there, fusing every
 * retriever that ran:
 *
 * - `anchors`: what `localise` found (failure frame, tracebacks, paths, symbols), each weighed by
 *   its evidence: a frame or a path three times a search hit, a plain word below one;
 * - `bm25`: BM25 over the nodes' documents (names, docstrings, identifiers) with the whole issue
 *   text (title, body, failing assertion), never cut short;
 * - `text`: BM25 over whole file texts (fileTextIndex.ts), which finds a file by the words of an
 *   error message or a setting that only its strings and comments hold;
 * - `embeddings`: nearest nodes by sentence embedding, when the caller hands in a semantic index.
 *
 * Lists are fused by weighted reciprocal rank (score = Σ weight / (k + rank)), which needs no
 * calibration between BM25 scores and cosine similarities. Tests and test data are left out of
 * every list unless the issue is about tests (see `aboutTests`), so common words cannot fill the
 * top with test methods. Files are ranked by their best place plus a share of the rest, so a file
 * whose definitions match several times rises above one lucky match.
 */
import type { GraphNode } from '../protocol/graph.js';
import { aboutTests, issueQuery, localiseIssue } from './localise.js';
import { isTestPath } from './nodes.js';
import type { AnchorEvidence, IssueText } from './types.js';
import type { GraphView } from './view.js';

/** Names of the retrievers, as a trajectory reports which ran. */
export type RetrieverName = 'anchors' | 'bm25' | 'text' | 'embeddings';

/** Nearest nodes to a text by embedding, best first; built and cached outside this module. */
export interface SemanticIndex {
  nearest(query: string, limit: number): Promise<Array<{ id: string; score: number }>>;
}

export interface RankOptions {
  /** Most places returned (files and definitions together). */
  limit?: number;
  /** Candidates each retriever contributes before fusion. */
  pool?: number;
  semantic?: SemanticIndex;
  /** Per-retriever weights of the fusion; the defaults were tuned on the localisation benchmark. */
  weights?: Partial<Record<RetrieverName, number>>;
}

export interface RankedNode {
  node: GraphNode;
  score: number;
  /** The retrievers that listed this node, with its 1-based rank in each. */
  from: Partial<Record<RetrieverName, number>>;
}

export interface IssueRanking {
  /** Files and definitions, best first. */
  nodes: RankedNode[];
  /** Files, best first (a definition counts for its file). */
  files: string[];
  /** Definitions (classes, functions, methods), best first. */
  definitions: RankedNode[];
  /** Which retrievers ran, in fusion order. */
  retrievers: RetrieverName[];
  /** Whether test files were kept (the issue is about tests). */
  testsKept: boolean;
}

const fusionK = 60;
/**
 * Per-retriever weights. Embeddings weigh 0.6: on the localisation benchmark (bench/README.md) at
 * 1 they lifted files but pushed exact definitions down (functions recall@10 0.532 against 0.564
 * without them); at 0.6 both rose (files 0.878, functions 0.573). Those were the two values tried.
 */
const defaultWeights: Record<RetrieverName, number> = { anchors: 1, bm25: 1, text: 1, embeddings: 0.6 };
/** An anchor's weight in the fusion by where it was found (see AnchorEvidence in types.ts). */
const evidenceWeight: Record<AnchorEvidence, number> = { frame: 3, traceback: 3, path: 3, quoted: 2.5, call: 2, dotted: 2, word: 0.6 };
/** How much a file's places after its best one add to its score. */
const fileShare = 0.3;

export async function rankIssue(view: GraphView, issue: IssueText, options: RankOptions = {}): Promise<IssueRanking> {
  const limit = options.limit ?? 50;
  const pool = options.pool ?? 200;
  const weights = { ...defaultWeights, ...options.weights };
  const testsKept = aboutTests(issue);
  const keep = (node: GraphNode) => testsKept || !isTestPath(node.path);
  const query = issueQuery(issue);

  const lists: Array<[RetrieverName, GraphNode[]]> = [];
  const located = localiseIssue(view, issue);
  // Each anchor weighs what its evidence is worth: a traceback frame names the place, an everyday
  // word that happens to be a definition's name barely does.
  const anchorWeight = new Map<string, number>();
  located.nodeIds.forEach((id, i) => anchorWeight.set(id, evidenceWeight[located.evidence[i] ?? 'word']));
  lists.push(['anchors', located.nodeIds.flatMap((id) => view.node(id) ?? [])]);
  lists.push([
    'bm25',
    view
      .search(query, pool * 2)
      .map((hit) => hit.node)
      .filter(keep)
      .slice(0, pool),
  ]);
  lists.push([
    'text',
    view
      .searchFileText(query, pool * 2)
      .flatMap((path) => view.node(`file:${path}`) ?? [])
      .filter(keep)
      .slice(0, pool),
  ]);
  if (options.semantic !== undefined) {
    const near = await options.semantic.nearest(query, pool * 2);
    lists.push([
      'embeddings',
      near
        .flatMap((hit) => view.node(hit.id) ?? [])
        .filter(keep)
        .slice(0, pool),
    ]);
  }

  const fused = new Map<string, RankedNode>();
  for (const [name, list] of lists) {
    list.forEach((node, index) => {
      const entry = fused.get(node.id) ?? { node, score: 0, from: {} };
      if (entry.from[name] !== undefined) return;
      entry.from[name] = index + 1;
      entry.score += (weights[name] * (name === 'anchors' ? (anchorWeight.get(node.id) ?? 1) : 1)) / (fusionK + index + 1);
      fused.set(node.id, entry);
    });
  }
  const nodes = [...fused.values()].sort((a, b) => b.score - a.score || a.node.id.localeCompare(b.node.id));
  return {
    nodes: nodes.slice(0, limit),
    files: rankFiles(nodes).slice(0, limit),
    definitions: nodes.filter((n) => n.node.kind !== 'file').slice(0, limit),
    retrievers: lists.map(([name]) => name),
    testsKept,
  };
}

/** Files by their best place plus a share of their other places. */
function rankFiles(nodes: readonly RankedNode[]): string[] {
  const files = new Map<string, { best: number; rest: number }>();
  for (const { node, score } of nodes) {
    const file = files.get(node.path);
    if (file === undefined) files.set(node.path, { best: score, rest: 0 });
    else if (score > file.best) {
      file.rest += file.best;
      file.best = score;
    } else file.rest += score;
  }
  return [...files.entries()]
    .map(([path, f]) => ({ path, score: f.best + fileShare * f.rest }))
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path))
    .map((f) => f.path);
}
