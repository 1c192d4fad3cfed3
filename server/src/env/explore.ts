/**
 * The explore action: find nodes by anchors, expand them into scored candidates, and read the
 * source of nodes. Everything comes from the code graph, which was read through the sandbox and is
 * re-parsed after each kept repair, so reads show the repository as it is now.
 */
import type { ExploreAction } from '../protocol/actions.js';
import type { ActionResult, Snippet } from '../protocol/observation.js';
import type { GraphNode } from '../protocol/graph.js';
import type { CodeGraph } from '../graph/index.js';

/** Longest snippet shown for one node; a longer definition is cut and says so. */
const maxSnippetLines = 150;
/** Candidates one expand may return in all, whatever the per-anchor limit. */
const maxExpandTotal = 60;

function anchorLabel(anchor: ExploreAction['anchors'][number]): string {
  return anchor.id ?? `${anchor.kind}:${anchor.text ?? ''}`;
}

function resolveStarts(graph: CodeGraph, action: ExploreAction): { ids: string[]; unmatched: string[] } {
  const ids: string[] = [];
  const unmatched: string[] = [];
  for (const id of action.nodes) (graph.node(id) ? ids : unmatched).push(id);
  for (const anchor of action.anchors) {
    const found = graph.find(anchor, 3);
    if (found.length === 0) unmatched.push(anchorLabel(anchor));
    ids.push(...found.map((n) => n.id));
  }
  return { ids: [...new Set(ids)], unmatched };
}

export function find(graph: CodeGraph, action: ExploreAction): Extract<ActionResult, { kind: 'find' }> {
  const seen = new Map<string, GraphNode>();
  const unmatched: string[] = [];
  for (const anchor of action.anchors) {
    const nodes = graph.find(anchor, action.limit);
    if (nodes.length === 0) unmatched.push(anchorLabel(anchor));
    for (const node of nodes) if (!seen.has(node.id)) seen.set(node.id, node);
  }
  return { kind: 'find', nodes: [...seen.values()].slice(0, action.limit * Math.max(1, action.anchors.length)), unmatched };
}

export function expand(graph: CodeGraph, action: ExploreAction, known: ReadonlySet<string>): Extract<ActionResult, { kind: 'expand' }> {
  const { ids, unmatched } = resolveStarts(graph, action);
  const candidates = graph.expand(ids, {
    hops: action.hop,
    perAnchor: action.limit,
    total: Math.min(maxExpandTotal, action.limit * Math.max(1, ids.length)),
    perDirectory: 3,
    known,
  });
  return { kind: 'expand', candidates, unmatched };
}

/** The source of a node: its span, capped; a file node shows the file's first lines. */
export function snippetOf(graph: CodeGraph, node: GraphNode): Snippet | undefined {
  const text = graph.fileText(node.path);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const start = Math.min(node.span.start, Math.max(1, lines.length));
  const end = Math.min(node.span.end, lines.length, start + maxSnippetLines - 1);
  const cut = Math.min(node.span.end, lines.length) > end;
  const body = lines.slice(start - 1, end).join('\n');
  return { node_id: node.id, path: node.path, start, end, text: cut ? `${body}\n[… cut at ${maxSnippetLines} lines; read a smaller node]` : body };
}

export function read(graph: CodeGraph, action: ExploreAction): Extract<ActionResult, { kind: 'read' }> {
  const snippets: Snippet[] = [];
  const missing: string[] = [];
  for (const id of action.nodes.slice(0, action.limit)) {
    const node = graph.node(id);
    const snippet = node === undefined ? undefined : snippetOf(graph, node);
    if (snippet === undefined) missing.push(id);
    else snippets.push(snippet);
  }
  return { kind: 'read', snippets, missing };
}
