/**
 * The part of the code graph an episode explored, read from its trajectory alone (the sandbox that
 * built the graph is gone): every node its observations named, with the first step at which the
 * agent saw it (hints after reset, found, proposed by an expansion), expanded from it, read it,
 * kept it in working memory, or edited it; and the edges it knows of: containment read from the
 * node ids, and the edges expansions walked one hop along. Edits are placed on nodes by
 * `goldNodes.ts`'s placement, which the caller runs on the repository diffs collected here.
 */
import type { EdgeKind, GraphNode, NodeKind, Span } from '../protocol/graph.js';
import { edgeKinds, nodeKinds } from '../protocol/graph.js';
import type { TrajectoryStep } from '../protocol/runs.js';
import type { EpisodeModel, StepKind } from '../episodes/index.js';
import { containerCandidates, nodeNameOf, parseNodeId } from './nodeIds.js';

export const encounters = ['seen', 'found', 'expanded', 'read', 'remembered', 'edited'] as const;
export type Encounter = (typeof encounters)[number];

export interface ExploredNode {
  readonly id: string;
  kind: NodeKind;
  name: string;
  path: string;
  span: Span | null;
  /** The first step of each encounter (0: the observation after reset). */
  readonly first: Partial<Record<Encounter, number>>;
}

export interface KnownEdge {
  readonly src: string;
  readonly dst: string;
  readonly kind: EdgeKind | 'related';
  readonly evidence: 'id' | 'expand';
}

/** An edge of the code graph the trajectory's end line recorded. */
export interface RecordedEdge {
  readonly src: string;
  readonly dst: string;
  readonly kind: EdgeKind;
}

export interface ExploredStep {
  readonly step: number;
  readonly kind: StepKind | 'reset';
  readonly summary: string;
}

export interface ExploredSubgraph {
  readonly nodes: Map<string, ExploredNode>;
  readonly edges: KnownEdge[];
  readonly steps: ExploredStep[];
  /** Each step's repository diff against the base commit, when a repair or submit changed it. */
  readonly diffs: ReadonlyArray<{ readonly step: number; readonly diff: string }>;
  /**
   * The code graph's edges at the nodes the episode was shown, as its end line recorded them (none
   * in trajectories from before they were): they reach nodes the episode never met, so they count
   * hops to gold but are not drawn.
   */
  readonly recordedEdges: readonly RecordedEdge[];
}

const edgeKindSet: ReadonlySet<string> = new Set(edgeKinds);

type NodeInfo = Pick<GraphNode, 'kind' | 'name' | 'path' | 'span'>;

class Builder {
  readonly nodes = new Map<string, ExploredNode>();
  private readonly edgeKeys = new Set<string>();
  readonly edges: KnownEdge[] = [];

  static from(sub: ExploredSubgraph): Builder {
    const b = new Builder();
    for (const [id, node] of sub.nodes) b.nodes.set(id, node);
    for (const e of sub.edges) b.edge(e.src, e.dst, e.kind, e.evidence);
    return b;
  }

  /** Records a node; a full record (kind, name, span) replaces what an id alone said. */
  node(id: string, full?: NodeInfo): ExploredNode | undefined {
    let node = this.nodes.get(id);
    if (node === undefined) {
      const parts = parseNodeId(id);
      if (parts === undefined && full === undefined) return undefined;
      node = {
        id,
        kind: full?.kind ?? parts?.kind ?? 'file',
        name: full?.name ?? (parts === undefined ? id : nodeNameOf(parts)),
        path: full?.path ?? parts?.path ?? '',
        span: full?.span ?? null,
        first: {},
      };
      this.nodes.set(id, node);
    } else if (full !== undefined && node.span === null) {
      node.kind = full.kind;
      node.name = full.name;
      node.path = full.path;
      node.span = full.span;
    }
    return node;
  }

  meet(id: string, how: Encounter, step: number, full?: NodeInfo): void {
    const node = this.node(id, full);
    if (node === undefined) return;
    if (node.first.seen === undefined) node.first.seen = step;
    if (node.first[how] === undefined) node.first[how] = step;
  }

  edge(src: string, dst: string, kind: KnownEdge['kind'], evidence: KnownEdge['evidence']): void {
    if (src === dst) return;
    const key = src < dst ? `${src}\n${dst}` : `${dst}\n${src}`;
    if (this.edgeKeys.has(key)) return;
    this.edgeKeys.add(key);
    this.edges.push({ src, dst, kind, evidence });
  }
}

/** A node of working memory: its kind is a plain string in the record, so the id's own kind is trusted over one that is not a node kind. */
function remember(b: Builder, n: { id: string; kind: string; path: string; span: Span }, step: number): void {
  const parts = parseNodeId(n.id);
  const kind = (nodeKinds as readonly string[]).includes(n.kind) ? (n.kind as NodeKind) : parts?.kind;
  b.meet(n.id, 'remembered', step, kind === undefined ? undefined : { kind, name: parts === undefined ? n.id : nodeNameOf(parts), path: n.path, span: n.span });
}

function takeStep(b: Builder, record: TrajectoryStep, diffs: Array<{ step: number; diff: string }>): void {
  const s = record.step;
  const last = record.observation.last;
  const action = record.action;
  if (action?.type === 'explore' && action.op === 'expand') for (const id of action.nodes) b.meet(id, 'expanded', s);
  switch (last?.kind) {
    case 'find':
      for (const n of last.nodes) b.meet(n.id, 'found', s, n);
      break;
    case 'expand':
      for (const c of last.candidates) {
        if (c.hops === 0) b.meet(c.id, 'expanded', s, c);
        else b.meet(c.id, 'seen', s, c);
        // One hop along an edge of the kind the expansion names first; a file-mate is no edge.
        const via = c.reasons[0] ?? '';
        if (c.hops === 1 && c.from !== undefined && edgeKindSet.has(via)) b.edge(c.from, c.id, via as EdgeKind, 'expand');
      }
      break;
    case 'read':
      for (const snippet of last.snippets) {
        const parts = parseNodeId(snippet.node_id);
        b.meet(
          snippet.node_id,
          'read',
          s,
          parts === undefined ? undefined : { kind: parts.kind, name: nodeNameOf(parts), path: snippet.path, span: { start: snippet.start, end: snippet.end } },
        );
      }
      break;
    case 'repair':
      if (last.applied) diffs.push({ step: s, diff: last.diff });
      break;
    case 'submit':
      diffs.push({ step: s, diff: last.patch });
      break;
    default:
      break;
  }
  for (const n of record.observation.memory.nodes) remember(b, n, s);
}

/**
 * Containment edges between the nodes recorded: each node joined to its nearest recorded container,
 * else to the container its id names for certain (a method's class, any definition's file), which
 * is added as context so that each file's nodes hang together.
 */
function containment(b: Builder): void {
  const queue = [...b.nodes.values()];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    const candidates = containerCandidates(node.id);
    const parts = parseNodeId(node.id);
    const certain = parts === undefined ? undefined : parts.kind === 'method' ? candidates[0] : candidates.length === 1 ? candidates[0] : `file:${parts.path}`;
    const container = candidates.find((c) => b.nodes.has(c)) ?? certain;
    if (container === undefined) continue;
    if (!b.nodes.has(container)) {
      const added = b.node(container);
      if (added !== undefined) queue.push(added);
    }
    b.edge(container, node.id, 'contains', 'id');
  }
}

export function exploredSubgraph(model: EpisodeModel): ExploredSubgraph {
  const b = new Builder();
  const diffs: Array<{ step: number; diff: string }> = [];
  const steps: ExploredStep[] = [{ step: 0, kind: 'reset', summary: 'the issue and its hints' }];
  const first = model.start?.observation;
  if (first !== undefined) {
    for (const id of first.hints ?? []) b.meet(id, 'seen', 0);
    for (const n of first.memory.nodes) remember(b, n, 0);
  }
  for (const view of model.steps) {
    takeStep(b, view.record, diffs);
    steps.push({ step: view.step, kind: view.kind, summary: view.summary });
  }
  containment(b);
  const recordedEdges = model.end?.graph_edges ?? [];
  return { nodes: b.nodes, edges: b.edges, steps, diffs, recordedEdges };
}

/**
 * The subgraph with more nodes (the gold nodes, the nodes an edit was placed in), each joined to its
 * containers like the rest; `met` records how the episode met it, if it did.
 */
export function addNodes(
  sub: ExploredSubgraph,
  additions: ReadonlyArray<{ readonly id: string; readonly full?: NodeInfo; readonly met?: { readonly how: Encounter; readonly step: number } }>,
): ExploredSubgraph {
  const b = Builder.from(sub);
  for (const a of additions) {
    if (a.met === undefined) b.node(a.id, a.full);
    else b.meet(a.id, a.met.how, a.met.step, a.full);
  }
  containment(b);
  return { nodes: b.nodes, edges: b.edges, steps: sub.steps, diffs: sub.diffs, recordedEdges: sub.recordedEdges };
}
