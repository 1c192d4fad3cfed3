/**
 * Where each node of an episode's subgraph is drawn: a layered layout by `@dagrejs/dagre`, left to
 * right, so each file's containment reads as a tree (file, class, method) and the edges an
 * expansion walked run between them. Computed on the server, once per request, so the page only
 * draws. Labels are one line; a node's width follows its label's length at the page's font.
 */
import dagre from '@dagrejs/dagre';

export interface LayoutNode {
  readonly id: string;
  readonly label: string;
}

export interface LayoutEdge {
  readonly src: string;
  readonly dst: string;
  /** Containment keeps its tree tight; other edges weigh less. */
  readonly contains: boolean;
}

export interface Placed {
  readonly nodes: Map<string, { x: number; y: number; width: number; height: number }>;
  /** Each drawn edge's route, by `edgeKey(src, dst)`. */
  readonly edges: Map<string, Array<{ x: number; y: number }>>;
  readonly width: number;
  readonly height: number;
}

/** The page draws labels at 12px; this is the width of an average character there, padding added. */
const charWidth = 7;
// Room for the kind badge on the left and up to four marks (gold, edited, read, remembered) on the right.
const padding = 96;
const nodeHeight = 26;

export function nodeWidth(label: string): number {
  return Math.min(420, padding + charWidth * label.length);
}

export function edgeKey(src: string, dst: string): string {
  return `${src}\n${dst}`;
}

export function layoutSubgraph(nodes: readonly LayoutNode[], edges: readonly LayoutEdge[]): Placed {
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: 'LR', nodesep: 10, ranksep: 48, edgesep: 6, marginx: 16, marginy: 16, ranker: 'network-simplex' });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: nodeWidth(n.label), height: nodeHeight });
  const present = edges.filter((e) => g.hasNode(e.src) && g.hasNode(e.dst) && e.src !== e.dst);
  for (const e of present) g.setEdge(e.src, e.dst, { weight: e.contains ? 4 : 1, minlen: 1 });
  dagre.layout(g);
  const placed = new Map<string, { x: number; y: number; width: number; height: number }>();
  for (const n of nodes) {
    const label = g.node(n.id) as { x?: number; y?: number; width: number; height: number };
    placed.set(n.id, { x: label.x ?? 0, y: label.y ?? 0, width: label.width, height: label.height });
  }
  const routes = new Map<string, Array<{ x: number; y: number }>>();
  for (const e of present) {
    const label = g.edge(e.src, e.dst) as { points?: Array<{ x: number; y: number }> } | undefined;
    routes.set(edgeKey(e.src, e.dst), (label?.points ?? []).map((p) => ({ x: p.x, y: p.y })));
  }
  const graph = g.graph() as { width?: number; height?: number };
  return { nodes: placed, edges: routes, width: graph.width ?? 0, height: graph.height ?? 0 };
}
