/**
 * The laid-out subgraph as SVG, built once per graph; stepping only changes classes and marks, so
 * moving the step slider never redraws. Each node shows its kind (a badge: F file, C class, ƒ
 * function, m method, and the box's corners), how the agent had met it by the step (outline and
 * fill, with marks: ★ gold, ✎ edited, ◉ read, ⊕ kept in memory, ↗ expanded), and a tooltip with
 * its id, place and history. Text goes in as text nodes; colours are the style sheet's classes.
 */
import type { CodeGraphNode, EpisodeCodeGraph } from '../../../server/src/protocol/codeGraphView.js';

const svgNs = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

const kindBadge: Record<CodeGraphNode['kind'], string> = { file: 'F', class: 'C', function: 'ƒ', method: 'm' };
const cornerRadius: Record<CodeGraphNode['kind'], number> = { file: 0, class: 12, function: 5, method: 5 };

/** Whether a node had been met in a way by `step` (a step number, 0 after reset). */
const by = (at: number | null, step: number): boolean => at !== null && at <= step;

/** The marks of a node at a step, strongest first. */
export function marksAt(n: CodeGraphNode, step: number): string {
  return [n.gold !== null && '★', by(n.edited, step) && '✎', by(n.read, step) && '◉', by(n.remembered, step) && '⊕', by(n.expanded, step) && '↗']
    .filter((m) => m !== false)
    .join('');
}

/** What a person reads on hover: the id, where it is, and when the agent met it how. */
export function describeNode(n: CodeGraphNode): string {
  const where = n.span === null ? n.path : `${n.path}:${n.span.start}-${n.span.end}`;
  const ways = (['seen', 'found', 'expanded', 'read', 'remembered', 'edited'] as const).flatMap((w) => (n[w] === null ? [] : [`${w} at step ${n[w]}`]));
  const history = ways.length === 0 ? (n.gold === null ? 'never met: shown as the container of what was' : 'never met by the episode') : ways.join(', ');
  return `${n.id} · ${where} · ${history}${n.gold === null ? '' : ` · gold (${n.gold})`}`;
}

/**
 * A route of two points is drawn as a curve entering its end from the left: leaving rightwards when
 * the end lies to the right, else bulging out to the left (the server leaves a margin for it).
 * Longer routes are drawn as they are (containment's connectors).
 */
function routeOf(points: readonly { x: number; y: number }[]): string {
  const [a, b] = points;
  if (points.length === 2 && a !== undefined && b !== undefined) {
    if (b.x <= a.x + 1) {
      const bulge = Math.min(40, 12 + Math.abs(b.y - a.y) / 8);
      const left = Math.min(a.x, b.x) - bulge;
      return `M${a.x.toFixed(1)},${a.y.toFixed(1)} C${left.toFixed(1)},${a.y.toFixed(1)} ${left.toFixed(1)},${b.y.toFixed(1)} ${b.x.toFixed(1)},${b.y.toFixed(1)}`;
    }
    const reach = Math.max(40, Math.abs(b.x - a.x) / 2);
    return `M${a.x.toFixed(1)},${a.y.toFixed(1)} C${(a.x + reach).toFixed(1)},${a.y.toFixed(1)} ${(b.x - reach).toFixed(1)},${b.y.toFixed(1)} ${b.x.toFixed(1)},${b.y.toFixed(1)}`;
  }
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
}

function fitLabel(label: string, width: number): string {
  const room = Math.max(4, Math.floor((width - 96) / 7));
  return label.length <= room ? label : `…${label.slice(label.length - room + 1)}`;
}

export interface DrawnGraph {
  readonly element: SVGSVGElement;
  /** Shows the graph as it was after `step`. */
  show(step: number): void;
  /** Scales the drawing (1 = the layout's own size). */
  zoom(scale: number): void;
}

export interface NodeActions {
  readonly open: (node: CodeGraphNode) => void;
  readonly hover: (node: CodeGraphNode | null) => void;
}

export function drawGraph(graph: EpisodeCodeGraph, actions: NodeActions): DrawnGraph {
  const root = svg('svg', {
    class: 'graph',
    'data-nodes': graph.nodes.length,
    role: 'img',
    'aria-label': `The code graph of ${graph.episodeId ?? 'the episode'}: ${graph.nodes.length} nodes`,
  });
  const edgeLayer = svg('g', { class: 'edges' });
  const nodeLayer = svg('g', { class: 'nodes' });
  root.append(edgeLayer, nodeLayer);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const edges = graph.edges.map((e) => {
    const d = routeOf(e.points);
    const path = svg('path', { class: `edge ${e.evidence === 'expand' ? 'walked' : 'contains'}`, d });
    path.append(svg('title', {}, e.evidence === 'expand' ? `${e.kind}: an expansion went from ${e.src} to ${e.dst}` : `${e.src} contains ${e.dst}`));
    edgeLayer.append(path);
    return { edge: e, path };
  });
  const nodes = graph.nodes.map((n) => {
    const x = n.x - n.width / 2;
    const y = n.y - n.height / 2;
    const g = svg('g', { class: 'node', tabindex: 0, role: 'button', 'data-id': n.id, 'aria-label': describeNode(n) });
    if (n.gold !== null)
      g.append(svg('rect', { class: 'gold', x: x - 3.5, y: y - 3.5, width: n.width + 7, height: n.height + 7, rx: cornerRadius[n.kind] + 3 }));
    g.append(svg('rect', { class: 'box', x, y, width: n.width, height: n.height, rx: cornerRadius[n.kind] }));
    g.append(svg('circle', { class: 'kind', cx: x + 13, cy: n.y, r: 8 }));
    g.append(svg('text', { class: 'kind', x: x + 13, y: n.y + 0.5, 'text-anchor': 'middle' }, kindBadge[n.kind]));
    const label = svg('text', { class: 'label', x: x + 26, y: n.y }, fitLabel(n.name, n.width - (n.hidden > 0 ? 7 * ` +${n.hidden} more`.length : 0)));
    if (n.hidden > 0) label.append(svg('tspan', { class: 'hidden-count' }, `  +${n.hidden} more`));
    g.append(label);
    const marks = svg('text', { class: 'marks', x: x + n.width - 7, y: n.y, 'text-anchor': 'end' });
    g.append(marks);
    g.append(svg('title', {}, describeNode(n)));
    g.addEventListener('click', () => actions.open(n));
    g.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        actions.open(n);
      }
    });
    g.addEventListener('mouseenter', () => actions.hover(n));
    g.addEventListener('focus', () => actions.hover(n));
    g.addEventListener('mouseleave', () => actions.hover(null));
    nodeLayer.append(g);
    return { node: n, g, marks };
  });
  const show = (step: number): void => {
    for (const { node: n, g, marks } of nodes) {
      const seen = by(n.seen, step);
      const now = [n.seen, n.found, n.expanded, n.read, n.remembered, n.edited].includes(step);
      g.setAttribute(
        'class',
        [
          'node',
          seen ? 'seen' : 'unseen',
          by(n.edited, step) ? 'edited' : by(n.read, step) ? 'read' : '',
          now ? 'new' : '',
          n.seen === null && n.gold === null ? 'context' : '',
        ]
          .filter((c) => c !== '')
          .join(' '),
      );
      marks.textContent = marksAt(n, step);
    }
    for (const { edge, path } of edges) {
      const ends = [byId.get(edge.src), byId.get(edge.dst)];
      const seen = ends.every((n) => n !== undefined && (by(n.seen, step) || n.seen === null));
      path.setAttribute('class', `edge ${edge.evidence === 'expand' ? 'walked' : 'contains'}${seen ? '' : ' unseen'}`);
    }
  };
  const zoom = (scale: number): void => {
    root.setAttribute('width', String(Math.ceil(graph.width * scale)));
    root.setAttribute('height', String(Math.ceil(graph.height * scale)));
    root.setAttribute('viewBox', `0 0 ${graph.width} ${graph.height}`);
  };
  zoom(1);
  return { element: root, show, zoom };
}
