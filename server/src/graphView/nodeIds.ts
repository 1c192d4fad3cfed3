/**
 * What a code-graph node id says by itself (protocol/graph.ts): its kind, its file and its qualified
 * name, and so the node that contains it. `method:p#A.f` is in `class:p#A`, which is in `file:p`;
 * `func:p#outer.inner` is in the definition named `outer`, whose kind the id does not say, so the
 * caller looks the candidates up. The code-graph view reads containment this way, after the
 * sandbox that built the graph is gone.
 */
import type { NodeKind } from '../protocol/graph.js';

export interface NodeIdParts {
  readonly kind: NodeKind;
  readonly path: string;
  /** Dotted through the enclosing definitions; '' for a file. */
  readonly qualName: string;
  /** `@2` for the second definition of the same name in a file, else ''. */
  readonly repeat: string;
}

const prefixes: Record<string, NodeKind> = { file: 'file', class: 'class', func: 'function', method: 'method' };
const idPrefix: Record<NodeKind, string> = { file: 'file', class: 'class', function: 'func', method: 'method' };

export function parseNodeId(id: string): NodeIdParts | undefined {
  const colon = id.indexOf(':');
  const kind = colon < 0 ? undefined : prefixes[id.slice(0, colon)];
  if (kind === undefined) return undefined;
  const rest = id.slice(colon + 1);
  if (kind === 'file') return rest === '' ? undefined : { kind, path: rest, qualName: '', repeat: '' };
  const hash = rest.lastIndexOf('#');
  if (hash <= 0) return undefined;
  const name = rest.slice(hash + 1);
  const at = /^(.*?)(@\d+)?$/.exec(name);
  const qualName = at?.[1] ?? '';
  if (qualName === '') return undefined;
  return { kind, path: rest.slice(0, hash), qualName, repeat: at?.[2] ?? '' };
}

export function nodeIdOf(kind: NodeKind, path: string, qualName: string): string {
  return kind === 'file' ? `file:${path}` : `${idPrefix[kind]}:${path}#${qualName}`;
}

/** The definition's own name (the last part of its qualified name), or the file's base name. */
export function nodeNameOf(parts: NodeIdParts): string {
  return parts.kind === 'file' ? (parts.path.split('/').pop() ?? parts.path) : (parts.qualName.split('.').pop() ?? parts.qualName);
}

/**
 * The ids that may contain a node, nearest first: for a definition nested in `A`, `class:p#A`
 * (a method's class, or a class in a class) and `func:p#A` (a function in a function); then the file.
 * A method's container is always a class.
 */
export function containerCandidates(id: string): string[] {
  const parts = parseNodeId(id);
  if (parts === undefined || parts.kind === 'file') return [];
  const file = nodeIdOf('file', parts.path, '');
  const dot = parts.qualName.lastIndexOf('.');
  if (dot < 0) return [file];
  const outer = parts.qualName.slice(0, dot);
  if (parts.kind === 'method') return [nodeIdOf('class', parts.path, outer)];
  return [nodeIdOf('class', parts.path, outer), nodeIdOf('function', parts.path, outer), nodeIdOf('method', parts.path, outer)];
}

/** `method:a/b.py#Cls.meth@2` → `a/b.py#Cls.meth`: the name gold and episodes are matched by. */
export function qualifiedKey(id: string): string | undefined {
  const parts = parseNodeId(id);
  return parts === undefined || parts.kind === 'file' ? undefined : `${parts.path}#${parts.qualName}`;
}
