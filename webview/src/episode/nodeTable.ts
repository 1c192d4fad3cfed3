/**
 * Code-graph nodes named by an action (`nodes`, `focus_ids`) as a table a person reads: kind, name
 * and where (`path:line`, a link that opens the file at the line, in the workspace or as the episode
 * recorded it). What the episode's observations said of a node (its kind, name, path and line) is
 * used when known; otherwise the id itself (`func:app/calc.py#add`, protocol/graph.ts) is read.
 */
import { el } from '../dom.js';
import { marked, type OpenLocation } from './linkedText.js';

export interface KnownNode {
  readonly kind: string;
  readonly name: string;
  readonly path: string;
  readonly line: number;
  readonly test?: boolean;
}

export type KnownNodes = ReadonlyMap<string, KnownNode>;

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

export function nodeTable(ids: readonly string[], known: KnownNodes, open: OpenLocation, highlight: string): HTMLElement {
  if (ids.length === 0) return el('p', { class: 'hint' }, 'None.');
  const rows = ids.map((id) => {
    const node = known.get(id) ?? nodeFromId(id);
    if (node === undefined) return el('tr', {}, el('td', { class: 'muted' }, '?'), el('td', {}, el('code', {}, ...marked(id, highlight))), el('td', { class: 'hint' }, 'not a code-graph node id'));
    const line = 'line' in node && typeof node.line === 'number' ? node.line : undefined;
    const where = line === undefined ? node.path : `${node.path}:${line}`;
    const link = el('a', { class: 'ref', attrs: { href: '#', role: 'link' }, title: `Open ${node.path}${line === undefined ? '' : ` at line ${line}`}` }, ...marked(where, highlight));
    link.addEventListener('click', (event) => {
      event.preventDefault();
      open({ file: node.path, line: line ?? 1 });
    });
    return el(
      'tr',
      { attrs: { 'data-node': id } },
      el('td', {}, node.test === true ? `${node.kind} · test` : node.kind),
      el('td', { title: id }, el('code', {}, ...marked(node.name, highlight))),
      el('td', {}, link),
    );
  });
  return el('table', { class: 'nodes node-list' }, el('thead', {}, el('tr', {}, el('th', {}, 'kind'), el('th', {}, 'name'), el('th', {}, 'where'))), el('tbody', {}, ...rows));
}
