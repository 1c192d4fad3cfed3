/**
 * Where each node of an episode's subgraph is drawn, computed on the server so the page only draws.
 * The drawing is the containment forest as an outline: each file a tree (file, then its classes and
 * functions, then methods), one column per depth, a parent on the row of its first child, files one
 * under another in the order the episode met them. Edges an expansion walked are drawn over it
 * from node to node. A ranked layout of every edge (`@dagrejs/dagre`, tried on a 267-node episode
 * of the standard library) took 0.75–3.4 s on this machine and came out 4,000–4,700 px wide with
 * long edges crossing everything; the outline takes a few milliseconds, reads top to bottom like
 * the repository's own tree, and keeps a definition beside its file, which is what a reader uses.
 */

export interface LayoutNode {
  readonly id: string;
  readonly label: string;
  /** The node that contains it, or undefined for a file (a root). */
  readonly parent: string | undefined;
  /** Sorts siblings: files by when the episode met them, definitions by their place in the file. */
  readonly order: readonly [number, number, string];
}

export interface LayoutEdge {
  readonly src: string;
  readonly dst: string;
  readonly contains: boolean;
}

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface Placed {
  readonly nodes: Map<string, Box>;
  /** Each drawn edge's route, by `edgeKey(src, dst)`. */
  readonly edges: Map<string, Array<{ x: number; y: number }>>;
  readonly width: number;
  readonly height: number;
}

/** The page draws labels at 12px; this is the width of an average character there. */
const charWidth = 7;
/** Room for the kind badge on the left and up to four marks (gold, edited, read, remembered) on the right. */
const padding = 96;
const nodeHeight = 26;
const rowGap = 8;
const columnGap = 44;
const margin = 16;
/** Room on the left for edges that run back to an earlier column, which bulge out to the left. */
const leftMargin = 44;
/** Files are set apart a little more than the rows inside one. */
const fileGap = 10;

export function nodeWidth(label: string): number {
  return Math.min(420, padding + charWidth * label.length);
}

export function edgeKey(src: string, dst: string): string {
  return `${src}\n${dst}`;
}

const compareOrder = (a: LayoutNode, b: LayoutNode): number => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2].localeCompare(b.order[2]);

export function layoutSubgraph(nodes: readonly LayoutNode[], edges: readonly LayoutEdge[]): Placed {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const children = new Map<string, LayoutNode[]>();
  const roots: LayoutNode[] = [];
  for (const n of nodes) {
    const parent = n.parent === undefined ? undefined : byId.get(n.parent);
    if (parent === undefined) roots.push(n);
    else children.set(parent.id, [...(children.get(parent.id) ?? []), n]);
  }
  // Each depth's column is as wide as its widest node.
  const depthOf = new Map<string, number>();
  const columnWidth: number[] = [];
  const visitDepth = (n: LayoutNode, depth: number): void => {
    depthOf.set(n.id, depth);
    columnWidth[depth] = Math.max(columnWidth[depth] ?? 0, nodeWidth(n.label));
    for (const c of children.get(n.id) ?? []) visitDepth(c, depth + 1);
  };
  roots.sort(compareOrder).forEach((r) => visitDepth(r, 0));
  const columnX: number[] = [];
  columnWidth.reduce((x, w, i) => {
    columnX[i] = x;
    return x + w + columnGap;
  }, leftMargin);
  const placed = new Map<string, Box>();
  let y = margin;
  const place = (n: LayoutNode): void => {
    const depth = depthOf.get(n.id) ?? 0;
    const width = nodeWidth(n.label);
    placed.set(n.id, { x: (columnX[depth] ?? leftMargin) + width / 2, y: y + nodeHeight / 2, width, height: nodeHeight });
    const kids = (children.get(n.id) ?? []).sort(compareOrder);
    if (kids.length === 0) y += nodeHeight + rowGap;
    else kids.forEach(place);
  };
  for (const r of roots) {
    place(r);
    y += fileGap;
  }
  const routes = new Map<string, Array<{ x: number; y: number }>>();
  for (const e of edges) {
    const a = placed.get(e.src);
    const b = placed.get(e.dst);
    if (a === undefined || b === undefined) continue;
    // An edge to a node that starts left of this one's end leaves from its left side too, so the page's curve bulges into the margin instead of looping through both.
    const back = b.x - b.width / 2 <= a.x + a.width / 2;
    const from = { x: back ? a.x - a.width / 2 : a.x + a.width / 2, y: a.y };
    const to = { x: b.x - b.width / 2, y: b.y };
    // A first child sits on its parent's row: a short line joins them. A later one hangs from the
    // parent's kind badge like an outline's connector. Other edges go end to end; the page curves them.
    const badge = a.x - a.width / 2 + 13;
    const route = !e.contains ? [from, to] : b.y === a.y ? [from, to] : [{ x: badge, y: a.y + nodeHeight / 2 }, { x: badge, y: b.y }, to];
    routes.set(edgeKey(e.src, e.dst), route);
  }
  const width = leftMargin + columnWidth.reduce((sum, w) => sum + w + columnGap, 0) - columnGap + margin;
  return { nodes: placed, edges: routes, width: Math.max(width, 2 * margin), height: Math.max(y - fileGap - rowGap + margin, 2 * margin) };
}
