/**
 * `find(anchor)`: the nodes an anchor names. An id names exactly one node. A file anchor matches
 * paths (the exact path or a path suffix first, shortest paths first, then paths containing the
 * text, and dotted module names); a class/function/method anchor matches definitions of that kind
 * by name or qualified name (`Class.method`, `pkg.mod.Class.method`, `path.py::Class::method`),
 * then by a case-insensitive part of the name; `symbol` does the same for any definition. When
 * none of that finds anything, and for `text` anchors, BM25 answers, so a plausible term never
 * comes back empty when search has hits. A function anchor accepts methods too, after functions.
 */
import type { Anchor, GraphNode, NodeKind } from '../protocol/graph.js';
import { isTestPath } from './nodes.js';
import { normalisePath } from './paths.js';
import type { GraphView } from './view.js';

type DefinitionKind = Exclude<NodeKind, 'file'>;

function byId(a: GraphNode, b: GraphNode): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Code before tests, shorter paths before longer ones, then by id. */
function preferred(a: GraphNode, b: GraphNode): number {
  return Number(isTestPath(a.path)) - Number(isTestPath(b.path)) || a.path.length - b.path.length || byId(a, b);
}

function unique(nodes: readonly GraphNode[], limit: number): GraphNode[] {
  const seen = new Set<string>();
  const out: GraphNode[] = [];
  for (const node of nodes) {
    if (out.length >= limit) break;
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    out.push(node);
  }
  return out;
}

function kindMatches(node: GraphNode, kind: DefinitionKind | undefined): boolean {
  if (kind === undefined) return node.kind !== 'file';
  return node.kind === kind || (kind === 'function' && node.kind === 'method');
}

/** Files a path-like text names: exact or suffix matches (shortest first), then dotted modules, then paths containing it. */
export function findFiles(view: GraphView, text: string): GraphNode[] {
  const wanted = normalisePath(text).replace(/^\/+/, '');
  const files = view.nodes().filter((n) => n.kind === 'file');
  const exact: GraphNode[] = [];
  const mapped = view.mapPath(text);
  const mappedNode = mapped === undefined ? undefined : view.node(`file:${mapped}`);
  if (mappedNode !== undefined) exact.push(mappedNode);
  const suffix = files.filter((f) => f.path === wanted || f.path.endsWith(`/${wanted}`)).sort((a, b) => a.path.length - b.path.length || byId(a, b));
  const modulePath = /^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*$/.test(wanted) && !wanted.endsWith('.py') ? view.modules.absolute(wanted) : undefined;
  const moduleNode = modulePath === undefined ? undefined : view.node(`file:${modulePath}`);
  const lower = wanted.toLowerCase();
  const containing = files.filter((f) => f.path.toLowerCase().includes(lower)).sort((a, b) => a.path.length - b.path.length || byId(a, b));
  return [...exact, ...suffix, ...(moduleNode === undefined ? [] : [moduleNode]), ...containing];
}

/** Definitions a name names exactly: by qualified name, by `module.qualname`, by `path::Qual::name`, by own name. */
export function findDefinitions(view: GraphView, text: string, kind: DefinitionKind | undefined): GraphNode[] {
  const cleaned = text
    .trim()
    .replace(/\(.*\)?$/, '')
    .replace(/^`|`$/g, '');
  const out: GraphNode[] = [];
  const inFile = (path: string, qual: string) => {
    for (const n of view.definitionsIn(path)) if (kindMatches(n, kind) && view.qualifiedName(n) === qual) out.push(n);
  };
  if (cleaned.includes('::')) {
    const [path = '', ...rest] = cleaned.split('::');
    const file = view.mapPath(path);
    if (file !== undefined && rest.length > 0) inFile(file, rest.join('.'));
  }
  const parts = cleaned.split('.');
  const last = parts[parts.length - 1] ?? cleaned;
  const named = view.definitionsNamed(last).filter((n) => kindMatches(n, kind));
  if (parts.length > 1) {
    // `Class.method` is a qualified name; `pkg.mod.Class.method` starts with a module.
    for (const n of named) if (view.qualifiedName(n) === cleaned) out.push(n);
    const module = view.modules.longestPrefix(cleaned);
    if (module !== undefined && module.rest.length > 0) inFile(module.file, module.rest.join('.'));
    // Looser: a qualified name that ends the text (`mod.Class.m` for `Class.m`) or that the text ends.
    if (out.length === 0) {
      for (const n of named) if (`.${view.qualifiedName(n)}`.endsWith(`.${cleaned}`) || cleaned.endsWith(`.${view.qualifiedName(n)}`)) out.push(n);
    }
  } else {
    out.push(...named.sort((a, b) => Number(view.qualifiedName(a) !== a.name) - Number(view.qualifiedName(b) !== b.name) || preferred(a, b)));
  }
  if (kind === 'function') out.sort((a, b) => Number(a.kind !== 'function') - Number(b.kind !== 'function'));
  return out;
}

/** Definitions whose name or qualified name contains the text, case-insensitively; shorter names first. */
function definitionsContaining(view: GraphView, text: string, kind: DefinitionKind | undefined): GraphNode[] {
  const lower = text.trim().toLowerCase();
  if (lower === '') return [];
  return view
    .nodes()
    .filter((n) => kindMatches(n, kind) && (n.name.toLowerCase().includes(lower) || view.qualifiedName(n).toLowerCase().includes(lower)))
    .sort((a, b) => a.name.length - b.name.length || preferred(a, b));
}

export function findNodes(view: GraphView, anchor: Anchor, limit: number): GraphNode[] {
  if (limit <= 0) return [];
  if (anchor.id !== undefined && anchor.id !== '') {
    const node = view.node(anchor.id);
    if (node !== undefined) return [node];
  }
  const text = anchor.text?.trim() ?? '';
  if (text === '') return [];
  const searched = () => view.search(text, limit * 4).map((h) => h.node);
  if (anchor.kind === 'text') return unique(searched(), limit);
  if (anchor.kind === 'file') {
    const files = findFiles(view, text);
    if (files.length > 0) return unique(files, limit);
    return unique(
      searched().flatMap((n) => view.node(`file:${n.path}`) ?? []),
      limit,
    );
  }
  const kind = anchor.kind === 'symbol' ? undefined : anchor.kind;
  const exact = findDefinitions(view, text, kind);
  if (exact.length > 0) return unique(exact, limit);
  const containing = definitionsContaining(view, text, kind);
  if (containing.length > 0) return unique(containing, limit);
  const hits = searched();
  const ofKind = hits.filter((n) => kindMatches(n, kind));
  return unique(ofKind.length > 0 ? ofKind : hits, limit);
}
