/**
 * What a code-graph node id says by itself (`func:app/calc.py#add`, protocol/graph.ts): its kind,
 * name and file, for a node the episode's observations never described. Pure, so it is tested in Node.
 */

export interface KnownNode {
  readonly kind: string;
  readonly name: string;
  readonly path: string;
  readonly line: number;
  readonly test?: boolean;
}

const kindNames: Record<string, string> = { file: 'file', class: 'class', func: 'function', method: 'method' };

/** What an id says by itself; undefined when it is not a code-graph node id. */
export function nodeFromId(id: string): Omit<KnownNode, 'line'> | undefined {
  const colon = id.indexOf(':');
  const kind = colon < 0 ? undefined : kindNames[id.slice(0, colon)];
  if (kind === undefined) return undefined;
  const rest = id.slice(colon + 1);
  if (kind === 'file') return rest === '' ? undefined : { kind, name: rest.split('/').pop() ?? rest, path: rest };
  const hash = rest.lastIndexOf('#');
  if (hash <= 0 || hash === rest.length - 1) return undefined;
  return { kind, name: rest.slice(hash + 1), path: rest.slice(0, hash) };
}
