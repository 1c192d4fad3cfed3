/**
 * `expand(startIds)`: the neighbourhood of the start nodes, scored and capped. The start nodes
 * come first (hops 0, reason `anchor`). From each, a breadth-first walk follows edges in both
 * directions up to `hops`; the other definitions of the anchor's file and the tests that exercise
 * the anchor (or what it contains) join at one hop. Scores follow the original system's spirit
 * (docs/original-system.md#e2-candidate-scoring): reached from an anchor, fewer hops, the kind of edge (calls, tests and inherits
 * say more than contains, and contains more than imports), same file, same directory, a test,
 * well connected, and novel (not yet in working memory). Each anchor keeps its best `perAnchor`;
 * the rest are chosen round-robin over directories, at most `perDirectory` from each per round,
 * until `total`. Equal scores are ordered by id, so the result is deterministic.
 */
import { posix } from 'node:path';
import type { Candidate, EdgeKind, GraphNode } from '../protocol/graph.js';
import { isTestPath } from './nodes.js';
import type { ExpandOptions } from './types.js';
import type { GraphView } from './view.js';

const edgeWeight: Record<EdgeKind | 'same_file', number> = { calls: 0.6, tests: 0.6, inherits: 0.6, contains: 0.4, imports: 0.2, same_file: 0.2 };
const hopWeight = [0, 1.0, 0.4];
const anchorBonus = 5;

interface Reached {
  readonly node: GraphNode;
  readonly hops: number;
  readonly via: EdgeKind | 'same_file';
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function directory(path: string): string {
  const dir = posix.dirname(path);
  return dir === '.' ? '' : dir;
}

function compare(a: Candidate, b: Candidate): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Nodes within `hops` of the anchor, each with its distance and the kind of edge that reached it first. */
function reach(view: GraphView, anchor: GraphNode, hops: number): Reached[] {
  const found = new Map<string, Reached>([[anchor.id, { node: anchor, hops: 0, via: 'contains' }]]);
  let frontier = [anchor.id];
  for (let hop = 1; hop <= hops && frontier.length > 0; hop += 1) {
    const next: string[] = [];
    // Edges in a fixed order (kind weight, then id) so the edge that claims a node does not depend on insertion order.
    for (const id of frontier) {
      const edges = [...view.edgesOf(id)].sort((x, y) => edgeWeight[y.kind] - edgeWeight[x.kind] || (x.src + x.dst < y.src + y.dst ? -1 : 1));
      for (const edge of edges) {
        const other = edge.src === id ? edge.dst : edge.src;
        if (found.has(other)) continue;
        const node = view.node(other);
        if (node === undefined) continue;
        found.set(other, { node, hops: hop, via: edge.kind });
        next.push(other);
      }
    }
    frontier = next;
  }
  if (hops >= 1) {
    // The anchor's file-mates and the tests of what the anchor contains are one step away, however far the edges put them.
    const closer = (node: GraphNode, via: Reached['via']) => {
      if ((found.get(node.id)?.hops ?? Number.POSITIVE_INFINITY) > 1) found.set(node.id, { node, hops: 1, via });
    };
    const inside = (n: GraphNode) => n.path === anchor.path && n.span.start >= anchor.span.start && n.span.end <= anchor.span.end;
    for (const node of view.definitionsIn(anchor.path)) {
      closer(node, 'same_file');
      if (!inside(node)) continue;
      for (const edge of view.edgesOf(node.id)) {
        const test = edge.kind === 'tests' && edge.dst === node.id ? view.node(edge.src) : undefined;
        if (test !== undefined) closer(test, 'tests');
      }
    }
  }
  found.delete(anchor.id);
  return [...found.values()];
}

function score(view: GraphView, anchor: GraphNode, reached: Reached, known: ReadonlySet<string> | undefined): Candidate {
  const { node, hops, via } = reached;
  const reasons: string[] = [via];
  let value = 1 + (hopWeight[hops] ?? 0) + edgeWeight[via];
  if (node.path === anchor.path) {
    value += 0.8;
    if (via !== 'same_file') reasons.push('same_file');
  } else if (directory(node.path) === directory(anchor.path)) {
    value += 0.3;
    reasons.push('same_dir');
  }
  if (isTestPath(node.path)) {
    value += 0.25;
    reasons.push('test');
  }
  const degree = view.edgesOf(node.id).length;
  if (degree > 0) {
    value += 0.6 * Math.min(degree / 8, 1);
    reasons.push(`degree=${degree}`);
  }
  if (known?.has(node.id) !== true) {
    value += 0.5;
    reasons.push('novel');
  }
  return { ...node, score: round(value), reasons, from: anchor.id, hops };
}

/** Round-robin over directories (best directory first), at most `perDirectory` from each per round. */
function diversify(candidates: readonly Candidate[], perDirectory: number, room: number): Candidate[] {
  const groups = new Map<string, Candidate[]>();
  for (const c of [...candidates].sort(compare)) {
    const dir = directory(c.path);
    const group = groups.get(dir);
    if (group === undefined) groups.set(dir, [c]);
    else group.push(c);
  }
  const queues = [...groups.values()];
  const out: Candidate[] = [];
  const step = Math.max(1, perDirectory);
  for (let round = 0; out.length < room && queues.some((q) => q.length > round * step); round += 1) {
    for (const queue of queues) {
      for (const c of queue.slice(round * step, (round + 1) * step)) {
        if (out.length >= room) break;
        out.push(c);
      }
    }
  }
  return out.sort(compare);
}

export function expandFrom(view: GraphView, startIds: readonly string[], options: ExpandOptions): Candidate[] {
  const anchors = [...new Set(startIds)].flatMap((id) => view.node(id) ?? []);
  const known = options.known;
  const total = Math.max(0, options.total);
  const heads: Candidate[] = anchors.map((node) => ({
    ...node,
    score: round(anchorBonus + (known?.has(node.id) === true ? 0 : 0.5)),
    reasons: known?.has(node.id) === true ? ['anchor'] : ['anchor', 'novel'],
    from: node.id,
    hops: 0,
  }));
  if (options.hops <= 0 || heads.length >= total) return heads.slice(0, total);
  const anchorIds = new Set(anchors.map((a) => a.id));
  const best = new Map<string, Candidate>();
  for (const anchor of anchors) {
    const mine = reach(view, anchor, Math.min(options.hops, hopWeight.length - 1))
      .filter((r) => !anchorIds.has(r.node.id))
      .map((r) => score(view, anchor, r, known))
      .sort(compare)
      .slice(0, Math.max(0, options.perAnchor));
    for (const c of mine) {
      const held = best.get(c.id);
      if (held === undefined || compare(c, held) < 0) best.set(c.id, c);
    }
  }
  return [...heads, ...diversify([...best.values()], options.perDirectory, total - heads.length)];
}
